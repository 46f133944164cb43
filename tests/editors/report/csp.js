// Opens report pages from file:// in headless Chromium (Debian's, through playwright-core) and
// says, for each, its title, whether its own script ran (a click on a questions header sorts the
// table and marks the header) and every Content-Security-Policy violation the page reported.
// Input (env): PAGES, a JSON list of files. Prints one JSON line: {ok, pages: [{...}]}.
const { chromium } = require('playwright-core');

(async () => {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
           '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  const out = { pages: [] };
  try {
    for (const file of JSON.parse(process.env.PAGES)) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      const seen = { file, console: [], violations: [] };
      page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') seen.console.push(m.text()); });
      page.on('pageerror', (e) => seen.console.push('pageerror: ' + e.message));
      // (an init script is the browser's own, not the page's: the policy does not apply to it)
      await page.addInitScript(() => {
        window.__violations = [];
        document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(
          { directive: e.effectiveDirective, blocked: e.blockedURI, sample: e.sample }));
      });
      await page.goto('file://' + file, { waitUntil: 'load' });
      const header = page.locator('table.questions thead th').nth(2);
      await header.click();
      seen.sort = await header.getAttribute('aria-sort');
      seen.title = await page.title();
      seen.violations = await page.evaluate(() => window.__violations);
      out.pages.push(seen);
      await page.close();
    }
    out.ok = true;
  } catch (e) {
    out.error = e.message;
  } finally {
    console.log(JSON.stringify(out));
    await browser.close();
  }
})();
