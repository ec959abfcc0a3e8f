// Drives a real browser (Debian's chromium, through puppeteer-core over the DevTools protocol)
// over a site written by `flowmcp catalog site` (issue #45). Two commands:
//
//   node scripts/site-browser.mjs check <site-dir> <expect.json>
//     Opens the site from file:// and prints one JSON object: what it found and every failure.
//     Exit 0 when nothing failed, 1 otherwise, 2 on a usage error. <expect.json> says what to look
//     for: {"namespaces": [...], "search": {"query": "...", "finds": "..."},
//     "parameters": [...], "pages": ["relative/page.html", ...], "themes": ["light", "dark"],
//     "axe": true, "index": true} (as shown by default; "axe": false leaves it out for `pages`,
//     "index": false checks `pages` alone, such as the HTML reports). Checked: the index names every
//     namespace; typing the query into the search box lists a link in `#results` whose text holds `finds`, and
//     that link's page shows a table holding every parameter; no page writes a console error,
//     throws, opens a dialog, or asks for anything but file://; no page of `pages` holds a script
//     that is not the site's own file or a `javascript:` link; axe-core finds no serious or
//     critical violation on the index, the tool page and every page of `pages`, in the light and
//     the dark theme.
//
//   node scripts/site-browser.mjs screenshots <out-dir> <name>=<file.html> ...
//     Writes <out-dir>/<name>-light.png and <name>-dark.png of each page (1280x800).
//
// Needs: FLOWMCP_CHROMIUM (default /usr/bin/chromium) and NODE_PATH or a node_modules holding
// puppeteer-core and axe-core (FLOWMCP_SITE_MODULES names that directory).

import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const modules = process.env.FLOWMCP_SITE_MODULES;
const require = createRequire(modules ? path.join(path.resolve(modules), 'x.js') : import.meta.url);
const puppeteer = require('puppeteer-core');
const axeSource = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const chromium = process.env.FLOWMCP_CHROMIUM || '/usr/bin/chromium';

function usage(message) {
  process.stderr.write(`site-browser: ${message}\n`);
  process.exit(2);
}

async function launch() {
  return puppeteer.launch({
    executablePath: chromium,
    headless: true,
    // The sandbox needs user namespaces, which CI containers often lack.
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-extensions'],
  });
}

// A page that records what must never happen.
async function watched(browser, failures, scheme) {
  const page = await browser.newPage();
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    const url = request.url();
    if (url.startsWith('file://')) {
      request.continue();
    } else {
      failures.push(`a request left file://: ${url}`);
      request.abort();
    }
  });
  page.on('console', (message) => {
    if (message.type() === 'error') failures.push(`console error on ${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => failures.push(`uncaught error on ${page.url()}: ${error.message}`));
  page.on('dialog', async (dialog) => {
    failures.push(`a dialog opened on ${page.url()}: ${dialog.message()}`);
    await dialog.dismiss();
  });
  return page;
}

// axe-core's serious and critical violations of the page as it is now.
async function axe(page) {
  // Evaluated over the DevTools protocol, which the page's Content-Security-Policy does not cover.
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    // No preload: axe would fetch the stylesheets, which the page's policy forbids.
    const r = await axe.run(document, { resultTypes: ['violations'], preload: false });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')),
    }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

// Scripts that are not the site's own files, inline handlers and javascript: links on the page.
async function injected(page) {
  return page.evaluate(() => {
    const found = [];
    for (const s of document.querySelectorAll('script')) {
      const src = s.getAttribute('src');
      if (!src || /^[a-z]+:/i.test(src)) found.push(`script ${src || '(inline)'}`);
    }
    for (const el of document.querySelectorAll('*')) {
      for (const a of el.attributes) {
        if (/^on/i.test(a.name)) found.push(`${el.tagName.toLowerCase()}[${a.name}]`);
        if (/^\s*javascript:/i.test(a.value)) found.push(`${el.tagName.toLowerCase()}[${a.name}=javascript:]`);
      }
    }
    return found;
  });
}

async function check(siteDir, expectFile) {
  const expect = JSON.parse(fs.readFileSync(expectFile, 'utf8'));
  const index = path.join(path.resolve(siteDir), 'index.html');
  const withIndex = expect.index !== false;
  if (withIndex && !fs.existsSync(index)) usage(`${index}: no such file`);
  const failures = [];
  const report = { failures, axe: {}, pages: 0 };
  const browser = await launch();
  try {
    for (const scheme of expect.themes || ['light', 'dark']) {
      const page = await watched(browser, failures, scheme);
      if (withIndex) {
        await page.goto(pathToFileURL(index).href, { waitUntil: 'load' });
        report.pages += 1;
        const text = await page.evaluate(() => document.body.innerText);
        for (const ns of expect.namespaces || []) {
          if (!text.includes(ns)) failures.push(`the index does not name namespace ${ns}`);
        }
        report.axe[`index (${scheme})`] = await axe(page);
      }
      if (withIndex && expect.search) {
        const box = await page.$('input[type="search"]');
        if (!box) {
          failures.push('the index has no search box (input[type=search])');
        } else {
          // A result is a visible link to the tool in the search results (`#results`).
          await box.focus();
          await page.keyboard.type(expect.search.query);
          const href = await page
            .waitForFunction(
              (finds) => {
                const link = [...document.querySelectorAll('#results a')].find(
                  (a) => a.offsetParent !== null && a.textContent.includes(finds)
                );
                return link ? link.href : false;
              },
              { timeout: 5000 },
              expect.search.finds
            )
            .then((h) => h.jsonValue())
            .catch(() => null);
          if (!href) {
            failures.push(`searching ${JSON.stringify(expect.search.query)} listed no link to ${expect.search.finds}`);
          } else {
            report.found = href;
            await page.goto(href, { waitUntil: 'load' });
            report.pages += 1;
            const cells = await page.evaluate(() =>
              [...document.querySelectorAll('table')].map((t) => t.innerText).join('\n')
            );
            for (const p of expect.parameters || []) {
              if (!cells.includes(p)) failures.push(`the tool page's tables do not show parameter ${p}`);
            }
            report.axe[`tool page (${scheme})`] = await axe(page);
          }
        }
      }
      for (const rel of expect.pages || []) {
        const file = path.join(path.resolve(siteDir), rel);
        await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
        report.pages += 1;
        for (const found of await injected(page)) failures.push(`${rel}: ${found}`);
        const marker = await page.evaluate(() => window.__flowmcpInjected === true || !!document.getElementById('flowmcp-injected'));
        if (marker) failures.push(`${rel}: catalog text ran as markup or script`);
        if (expect.axe !== false) report.axe[`${rel} (${scheme})`] = await axe(page);
      }
      await page.close();
    }
  } finally {
    await browser.close();
  }
  for (const [where, violations] of Object.entries(report.axe)) {
    for (const v of violations) failures.push(`axe ${v.impact} ${v.id} on ${where}: ${v.help} (${v.nodes.join(', ')})`);
  }
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  return failures.length === 0 ? 0 : 1;
}

async function screenshots(outDir, shots) {
  fs.mkdirSync(outDir, { recursive: true });
  const failures = [];
  const browser = await launch();
  try {
    for (const shot of shots) {
      const at = shot.indexOf('=');
      if (at < 1) usage(`${shot}: give <name>=<file.html>`);
      const name = shot.slice(0, at);
      const file = path.resolve(shot.slice(at + 1));
      for (const scheme of ['light', 'dark']) {
        const page = await watched(browser, failures, scheme);
        await page.setViewport({ width: 1280, height: 800 });
        await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
        const out = path.join(outDir, `${name}-${scheme}.png`);
        await page.screenshot({ path: `${out}.tmp.png` });
        fs.renameSync(`${out}.tmp.png`, out);
        process.stdout.write(`wrote ${out}\n`);
        await page.close();
      }
    }
  } finally {
    await browser.close();
  }
  for (const f of failures) process.stderr.write(`site-browser: ${f}\n`);
  return failures.length === 0 ? 0 : 1;
}

const [command, ...rest] = process.argv.slice(2);
let code;
if (command === 'check' && rest.length === 2) {
  code = await check(rest[0], rest[1]);
} else if (command === 'screenshots' && rest.length >= 2) {
  code = await screenshots(rest[0], rest.slice(1));
} else {
  usage('usage: site-browser.mjs check <site-dir> <expect.json> | screenshots <out-dir> <name>=<file.html> ...');
}
process.exit(code);
