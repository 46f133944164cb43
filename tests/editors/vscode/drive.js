// Drives code-server (the VS Code workbench) in headless Chromium with the qrels-lsp extension:
// open the demo golden set, wait for the expected code lens titles, the Problems panel rows and a
// squiggle, take the screenshot; then open a TREC run and check its language and highlighting.
// Inputs (env): CS_URL, EXPECT (JSON, see test_vscode.py), SHOT, SHOT_TREC, T_MS. Prints JSON lines.
// EXPECT.untrusted: first check that the workbench is in Restricted Mode; EXPECT.lensesOnly: stop
// after the lenses; EXPECT.grantTrust: then trust the folder and wait for that file to appear.
const fs = require('fs');
const { chromium } = require('playwright-core');

const URL = process.env.CS_URL;
const EXPECT = JSON.parse(process.env.EXPECT);
const T = Number(process.env.T_MS || 120000);

const t0 = Date.now();
const lap = (m) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);
const report = {};

async function openFromExplorer(page, name, folder) {
  if (folder) {
    const dir = page.locator('.explorer-folders-view .monaco-list-row', { hasText: folder }).first();
    await dir.waitFor({ timeout: T });
    const expanded = await dir.getAttribute('aria-expanded');
    if (expanded !== 'true') await dir.click();
  }
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).first();
  await row.waitFor({ timeout: T });
  await row.dblclick();
  await page.waitForSelector(`.tab[aria-label*="${name}"]`, { timeout: T });
}

(async () => {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
           '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  let code = 1;
  const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
  page.on('pageerror', (e) => console.log('PAGEERROR', e.message));
  let stage = 'load';
  try {
    await page.goto(URL, { waitUntil: 'domcontentloaded', timeout: T });
    await page.waitForSelector('.monaco-workbench', { timeout: T });
    lap('workbench loaded');

    if (EXPECT.untrusted) {
      // the workbench itself must hold the folder untrusted: its status bar item and banner
      stage = 'restricted mode';
      const status = page.locator('.statusbar-item[id="status.workspaceTrust"]');
      await status.waitFor({ timeout: T });
      report.restricted = {
        status: await status.getAttribute('aria-label'),
        banner: await page.locator('.part.banner').textContent({ timeout: T }),
      };
      lap('Restricted Mode: ' + report.restricted.status);
    }

    stage = 'golden set';
    await openFromExplorer(page, EXPECT.golden);
    lap(`${EXPECT.golden} opened`);
    await page.waitForFunction(
      (lang) => (document.querySelector('.statusbar-item[id="status.editor.mode"]') || {}).textContent?.includes(lang),
      EXPECT.goldenLanguage || 'YAML', { timeout: T }).catch(() => undefined);
    report.language = await page.locator('.statusbar-item[id="status.editor.mode"]').first().textContent({ timeout: T });

    if (EXPECT.missing) {
      stage = 'missing-server notification';
      const toast = page.locator('.notifications-toasts .notification-list-item', { hasText: EXPECT.notification }).first();
      await toast.waitFor({ timeout: T });
      report.notification = await toast.textContent();
      await page.screenshot({ path: process.env.SHOT });
      lap('notification: ' + report.notification);
      code = 0;
      return;
    }

    stage = 'code lenses';
    // what the extension says while it sets up its bundled server (a progress notification)
    report.progress = [];
    let watching = !!EXPECT.progress;
    const watch = (async () => {
      while (watching) {
        const toasts = await page.locator('.notifications-toasts .notification-list-item').allInnerTexts().catch(() => []);
        for (const text of toasts) {
          if (text.includes('qrels-lsp') && !report.progress.includes(text)) report.progress.push(text);
        }
        await page.waitForTimeout(300).catch(() => undefined);
      }
    })();
    // the lenses, or the extension's error notification (then there is no point waiting)
    const failed = /qrels-lsp (needs|could not|installed its server but)/;
    await page.waitForFunction(
      ([titles, failure]) => {
        const text = [...document.querySelectorAll('.codelens-decoration')].map((e) => e.textContent).join('\n');
        const toasts = [...document.querySelectorAll('.notifications-toasts .notification-list-item')].map((e) => e.innerText);
        return titles.every((t) => text.includes(t)) || toasts.some((t) => new RegExp(failure).test(t));
      },
      [EXPECT.lenses, failed.source], { timeout: T });
    const shownError = (await page.locator('.notifications-toasts .notification-list-item').allInnerTexts()).find((t) => failed.test(t));
    if (shownError) throw new Error('the extension said: ' + shownError);
    report.lenses = await page.locator('.codelens-decoration').allTextContents();
    watching = false;
    await watch;
    lap('code lenses with the expected numbers in the page');

    if (EXPECT.report) {
      // the first line's report lens opens the report in a webview beside the golden set
      stage = 'report webview';
      await page.locator('.codelens-decoration a', { hasText: EXPECT.report }).first().click();
      let frame = null;
      const until = Date.now() + T;
      while (!frame && Date.now() < until) {
        for (const f of page.frames()) {
          const h1 = await f.locator('h1').first().textContent({ timeout: 200 }).catch(() => null);
          if (h1 && h1.includes('Retrieval report')) frame = f;
        }
        if (!frame) await page.waitForTimeout(250);
      }
      if (!frame) throw new Error('no webview with the report');
      report.reportTitle = await frame.locator('h1').first().textContent();
      report.reportMeans = await frame.locator('table.means tbody tr').evaluateAll((rows) =>
        rows.map((r) => [r.getAttribute('data-run'), ...[...r.querySelectorAll('td[data-metric]')].map((td) => [td.getAttribute('data-metric'), td.getAttribute('data-value')])]));
      report.reportSeries = await frame.locator('svg.curve-recall g.series').count();
      report.tabs = await page.locator('.tab').allTextContents();
      await page.waitForTimeout(800);
      await page.screenshot({ path: process.env.SHOT });
      // the page's own script runs in the webview, under the page's policy: a header sorts
      const sortBy = frame.locator('table.questions thead th').nth(2);
      await sortBy.click();
      report.reportSort = await sortBy.getAttribute('aria-sort');
      lap('report in a webview');
      code = 0;
      return;
    }
    if (EXPECT.lensesOnly || EXPECT.grantTrust) await page.screenshot({ path: process.env.SHOT });
    if (EXPECT.grantTrust) {
      // what ran so far, then trust the folder: the extension restarts with the trusted lookup
      report.ranBeforeTrust = (EXPECT.markers || []).filter((m) => fs.existsSync(m));
      stage = 'granting trust';
      await page.click('.part.banner a:has-text("Manage")');
      await page.locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust$/ }).first().click({ timeout: T });
      await page.locator('.statusbar-item[id="status.workspaceTrust"]').waitFor({ state: 'detached', timeout: T });
      lap('folder trusted');
      stage = 'trusted restart';
      const until = Date.now() + T;
      while (!fs.existsSync(EXPECT.grantTrust) && Date.now() < until) await page.waitForTimeout(250);
      report.ranAfterTrust = fs.existsSync(EXPECT.grantTrust);
      lap('after trust, ' + EXPECT.grantTrust + (report.ranAfterTrust ? ' appeared' : ' never appeared'));
    }
    if (EXPECT.lensesOnly || EXPECT.grantTrust) {
      code = 0;
      return;
    }

    stage = 'problems panel';
    await page.click('.monaco-editor .view-lines');
    await page.keyboard.press('Control+Shift+M'); // View: Problems
    await page.waitForFunction(
      (rows) => {
        const panel = document.querySelector('.markers-panel');
        return panel && rows.every((r) => panel.textContent.includes(r));
      },
      EXPECT.problems, { timeout: T });
    report.problems = await page.locator('.markers-panel .monaco-list-row').allTextContents();
    lap('Problems panel lists the planted findings');
    // scroll the golden set to the two planted warnings of the screenshot, cursor on the QR106 line
    await page.click('.monaco-editor .view-lines');
    await page.keyboard.press('Control+G');
    await page.keyboard.type(String(EXPECT.gotoLine));
    await page.keyboard.press('Enter');
    stage = 'squiggles';
    await page.waitForSelector('.monaco-editor .squiggly-warning', { timeout: T });
    report.squiggles = await page.locator('.monaco-editor .squiggly-warning').count();
    await page.waitForTimeout(1000);
    await page.screenshot({ path: process.env.SHOT });
    lap('screenshot ' + process.env.SHOT);

    stage = 'TREC run';
    await openFromExplorer(page, EXPECT.trec, EXPECT.trecFolder);
    await page.waitForFunction(
      (lang) => (document.querySelector('.statusbar-item[id="status.editor.mode"]') || {}).textContent?.includes(lang),
      EXPECT.trecLanguage, { timeout: T });
    // the first line's six fields are drawn as tokens of different colours (mtkN classes)
    await page.waitForFunction(() => {
      const line = document.querySelector('.monaco-editor .view-line');
      return line && new Set([...line.querySelectorAll('span[class^="mtk"]')].filter((s) => s.textContent.trim()).map((s) => s.className)).size >= 4;
    }, null, { timeout: T });
    report.trecTokens = await page.evaluate(() => {
      const lines = [...document.querySelectorAll('.monaco-editor .view-line')];
      lines.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top));
      return [...lines[0].querySelectorAll('span[class^="mtk"]')]
        .filter((s) => s.textContent.trim() && !/dyn-rule|ced-|inlay/.test(s.className)) // inlay hints are decorations
        .map((s) => [s.textContent, s.className, getComputedStyle(s).color]);
    });
    // its header lens: the run's means against the golden set that lists it
    await page.waitForFunction(
      (title) => [...document.querySelectorAll('.codelens-decoration')].some((e) => e.textContent.includes(title)),
      EXPECT.trecLens, { timeout: T });
    await page.screenshot({ path: process.env.SHOT_TREC });
    lap('TREC run highlighted');

    if (EXPECT.folding) {
      // a TREC run has no indentation to fold by: every fold marker is the server's
      stage = 'folding';
      const markers = '.margin-view-overlays .codicon-folding-expanded';
      await page.waitForFunction((sel) => document.querySelectorAll(sel).length > 0, markers, { timeout: T });
      report.foldMarkers = await page.locator(markers).count();
      await page.click('.monaco-editor .view-lines');
      await page.keyboard.press('F1');
      await page.keyboard.type('Fold All');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: /^Fold All/ }).first().waitFor({ timeout: T });
      await page.keyboard.press('Enter');
      await page.waitForFunction(
        () => document.querySelectorAll('.margin-view-overlays .codicon-folding-collapsed').length > 0,
        null, { timeout: T });
      await page.waitForTimeout(500);
      report.foldedLines = await page.evaluate(() => {
        const lines = [...document.querySelectorAll('.monaco-editor .view-line')];
        lines.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top));
        return lines.map((l) => l.textContent.replace(/\u00a0/g, ' '));
      });
      report.foldCollapsed = await page.locator('.margin-view-overlays .codicon-folding-collapsed').count();
      if (process.env.SHOT_FOLD) await page.screenshot({ path: process.env.SHOT_FOLD });
      lap(`folded: ${report.foldCollapsed} queries collapsed`);
    }
    code = 0;
  } catch (e) {
    console.log(`FAIL at ${stage}: ${e.message.split('\n')[0]}`);
    report.failedAt = stage;
    if (EXPECT.grantTrust && report.ranBeforeTrust === undefined) {
      report.ranBeforeTrust = (EXPECT.markers || []).filter((m) => fs.existsSync(m));
    }
    report.lensesSeen = await page.locator('.codelens-decoration').allTextContents().catch(() => []);
    report.markers = await page.locator('.markers-panel').textContent().catch(() => null);
    await page.screenshot({ path: process.env.SHOT + '.fail.png' }).catch(() => undefined);
  } finally {
    console.log('REPORT=' + JSON.stringify(report));
    await browser.close();
  }
  process.exit(code);
})();
