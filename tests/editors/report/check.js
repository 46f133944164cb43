// Opens the HTML report from file:// in headless Chromium (Debian's, through playwright-core) at
// 1280x800, collects console errors and failed requests, reads back what the page shows (the SVG
// series, the numbers behind every point, bar and cell), sorts the questions table by a click,
// and takes a screenshot. Inputs (env): REPORT (the file), SHOT (the PNG). Prints one JSON line.
const { chromium } = require('playwright-core');

(async () => {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
           '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  const out = { console: [], requests: [] };
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') out.console.push(m.text()); });
    page.on('pageerror', (e) => out.console.push('pageerror: ' + e.message));
    page.on('request', (r) => { if (!r.url().startsWith('file://') && !r.url().startsWith('data:')) out.requests.push(r.url()); });
    await page.goto('file://' + process.env.REPORT, { waitUntil: 'load' });
    out.title = await page.title();
    await page.screenshot({ path: process.env.SHOT, fullPage: false }); // the top, as it opens
    out.curves = await page.evaluate(() => {
      const get = (cls) => [...document.querySelectorAll(`svg.${cls} g.series`)].map((g) => ({
        run: g.getAttribute('data-run'), values: JSON.parse(g.getAttribute('data-values')),
        points: [...g.querySelectorAll('.point')].map((p) => [Number(p.getAttribute('data-k')), Number(p.getAttribute('data-value'))]),
      }));
      return { recall: get('curve-recall'), precision: get('curve-precision') };
    });
    out.kMark = await page.locator('svg.curve-recall .k-label').textContent();
    out.legend = await page.locator('svg.curve-recall .legend-item').evaluateAll((els) => els.map((e) => e.getAttribute('data-run')));
    out.strips = await page.locator('svg.strip').evaluateAll((svgs) => svgs.map((s) => ({
      run: s.getAttribute('data-run'), base: s.getAttribute('data-base'),
      bars: [...s.querySelectorAll('rect.bar')].map((b) => [b.getAttribute('data-qid'), Number(b.getAttribute('data-delta')), b.getAttribute('class')]),
    })));
    out.bins = await page.locator('svg.histogram rect.bin').evaluateAll((rs) => rs.map((r) => [r.getAttribute('data-run'), Number(r.getAttribute('data-bin')), Number(r.getAttribute('data-count'))]));
    out.judged = await page.locator('svg.coverage g.judged').evaluateAll((gs) => gs.map((g) => [g.getAttribute('data-run'), Number(g.getAttribute('data-value'))]));
    out.means = await page.locator('table.means tbody tr').evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-run'),
      Object.fromEntries([...r.querySelectorAll('td[data-metric]')].map((td) => [td.getAttribute('data-metric'), Number(td.getAttribute('data-value'))]))]));
    out.causes = await page.locator('table.causes tbody tr').evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-run'),
      Object.fromEntries([...r.querySelectorAll('td[data-cause]')].map((td) => [td.getAttribute('data-cause'), Number(td.getAttribute('data-value'))]))]));
    out.questions = await page.locator('table.questions tbody tr').evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-qid'),
      Object.fromEntries([...r.querySelectorAll('td[data-run]')].map((td) => [td.getAttribute('data-run'), Number(td.getAttribute('data-value'))]))]));
    out.embedded = JSON.parse(await page.locator('#qrels-data').textContent());
    // what a 1280 px window shows: nothing wider than the page, no table wider than its box
    out.overflow = await page.evaluate(() => ({
      page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
      tables: [...document.querySelectorAll('table')].map((t) => [t.className, t.scrollWidth, t.clientWidth,
        t.getBoundingClientRect().right]),
    }));
    out.verdicts = await page.locator('table.decisions td.decision').evaluateAll((tds) => tds.map((t) =>
      [t.getAttribute('data-run'), t.getAttribute('data-metric'), t.getAttribute('data-verdict'), t.querySelector('.verdict').textContent]));
    out.tagRows = await page.locator('table.tags tbody tr').evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-tag'),
      Number(r.cells[1].textContent), [...r.querySelectorAll('td.decision')].map((t) => t.getAttribute('data-verdict'))]));
    out.ticks = await page.locator('svg.histogram text.tick.edge').evaluateAll((ts) => ts.map((t) => t.textContent));
    out.counts = await page.locator('p.sub').first().textContent();
    // a question id is a link to its text
    const first = page.locator('table.questions tbody tr a').first();
    const target = await first.getAttribute('href');
    out.linkTarget = await page.locator(target.replace(/[^#a-zA-Z0-9_-]/g, (c) => '\\' + c)).textContent().catch(() => null);
    // sort by the first run's column, descending then ascending
    const header = page.locator('table.questions thead th').nth(2);
    await header.click();
    const down = await page.locator('table.questions tbody tr td:nth-child(3)').evaluateAll((tds) => tds.map((t) => Number(t.getAttribute('data-value'))));
    await header.click();
    const up = await page.locator('table.questions tbody tr td:nth-child(3)').evaluateAll((tds) => tds.map((t) => Number(t.getAttribute('data-value'))));
    out.sorted = { down, up, sort: await header.getAttribute('aria-sort') };
    out.ok = true;
  } catch (e) {
    out.error = e.message;
  } finally {
    console.log(JSON.stringify(out));
    await browser.close();
  }
})();
