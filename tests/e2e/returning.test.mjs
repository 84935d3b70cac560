// The returning visitor (issue #23): a service worker already installed and data already
// stored. Every page of dist/ must then be served as itself — not as the app shell, whose
// relative asset URLs break under another directory — online and offline; the example
// tutorial's embeds work; and a tutorial page on another site (as a real tutorial would
// be) embeds consoles that work on the first visit and on the next, when the worker (in
// that site's partition) answers them.
//
//   node --test tests/e2e/returning.test.mjs     (after `trunk build --release`)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { dist, serveDist, launch } from './lib.mjs';

let server, other, browser, page;

/** Every HTML page of the build, relative to dist/ ('index.html', 'examples/tutorial.html'…). */
async function pages(dir = dist) {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await pages(p)));
    else if (entry.name.endsWith('.html')) out.push(relative(dist, p).split(sep).join('/'));
  }
  return out.sort();
}

const titleOf = (html) => /<title>([^<]*)<\/title>/.exec(html)?.[1].trim() ?? '';

before(async () => {
  server = await serveDist();
  // The tutorial site: another site (localhost, not 127.0.0.1), serving the example
  // tutorial as a tutorial author would copy it, pointing at the kvlab build by its address.
  const tutorial = (await readFile(join(dist, 'examples', 'tutorial.html'), 'utf8'))
    .replace('src="../embed.js"', `src="${server.url}embed.js"`)
    .replace('href="tutorial.css"', `href="${server.url}examples/tutorial.css"`)
    .replace('src="../index.html#', `src="${server.url}index.html#`);
  assert.ok(tutorial.includes(`${server.url}embed.js`) && tutorial.includes(`${server.url}index.html#`));
  other = createServer((req, res) => {
    if (req.url === '/lesson.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' });
      res.end(tutorial);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise((ok) => other.listen(0, '127.0.0.1', ok));
  other.url = `http://localhost:${other.address().port}/`;
  browser = await launch();
  page = browser.page;
});

after(async () => {
  await browser?.close();
  await new Promise((ok) => (server ? server.close(ok) : ok()));
  await new Promise((ok) => (other ? other.close(ok) : ok()));
});

const command = (p) => p.getByRole('textbox', { name: 'Command', exact: true }).last();

async function run(p, line) {
  await command(p).fill(line);
  await command(p).press('Enter');
}

/** Runs `line` in `p` until its log shows `text` (an embed may still be running its setup). */
async function until(p, line, text, timeout = 30_000) {
  const end = Date.now() + timeout;
  for (;;) {
    await run(p, line);
    try {
      await p.getByRole('log').getByText(text).first().waitFor({ timeout: 2_000 });
      return;
    } catch (e) {
      if (Date.now() > end) throw e;
    }
  }
}

/** Opens every page of dist/ and checks it is itself, and that the worker answered it. */
async function everyPageIsItself(label) {
  const list = await pages();
  assert.ok(list.includes('index.html') && list.includes('examples/tutorial.html'), list.join(' '));
  for (const file of list) {
    const want = titleOf(await readFile(join(dist, file), 'utf8'));
    browser.errors.length = 0;
    await page.goto(`${server.url}${file === 'index.html' ? '' : file}`);
    await page.waitForLoadState('load');
    if (file === 'index.html') await command(page).waitFor({ timeout: 20_000 });
    const got = await page.evaluate(() => ({
      controlled: navigator.serviceWorker.controller !== null,
      text: document.body.innerText.trim().length,
      sheets: [...document.styleSheets].filter((s) => {
        try {
          return s.cssRules.length > 0;
        } catch {
          return false;
        }
      }).length,
    }));
    // The app sets its title in the UI language; every other page keeps its own.
    if (file !== 'index.html') assert.equal(await page.title(), want, `${label}: ${file} is served as itself`);
    assert.ok(got.controlled, `${label}: ${file} was answered by the service worker`);
    assert.ok(got.text > 0, `${label}: ${file} is not blank`);
    assert.ok(got.sheets > 0, `${label}: ${file} has its styles`);
    assert.deepEqual(browser.errors, [], `${label}: ${file} loaded without errors`);
  }
}

test('after one visit, with data stored, every page of the build is served as itself', async () => {
  await page.goto(server.url);
  await run(page, 'SET returning:visitor "came back"');
  await page.getByRole('log').getByText('OK', { exact: true }).first().waitFor({ timeout: 10_000 });
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 20_000 });
  // The example tutorial, now answered by the worker: its embeds run their setup.
  await page.goto(`${server.url}examples/tutorial.html`);
  const first = page.frameLocator('iframe.kvlab-embed >> nth=0');
  await first.getByRole('log').getByText('"1"').first().waitFor({ timeout: 30_000 });
  const second = page.frameLocator('iframe.kvlab-embed >> nth=1');
  await second.getByRole('log').getByText('(integer) 2').first().waitFor({ timeout: 30_000 });
  await everyPageIsItself('online');
});

test('offline, every page is still itself, and the embeds and the app find their data', async () => {
  await page.context().setOffline(true);
  try {
    await everyPageIsItself('offline');
    // The tutorial again, offline: the embeds start from the cache and find their data.
    await page.goto(`${server.url}examples/tutorial.html`);
    const first = page.frameLocator('iframe.kvlab-embed >> nth=0');
    await until(first, 'GET login:1:name', '"ken thompson"');
    // And the app keeps what the visitor stored.
    await page.goto(server.url);
    await run(page, 'GET returning:visitor');
    await page.getByRole('log').getByText('"came back"').first().waitFor({ timeout: 10_000 });
  } finally {
    await page.context().setOffline(false);
  }
});

/**
 * Opens the lesson at `lesson` twice in a new tab; each time the first embed must start and
 * find its data, and the height messages must cross the origins. `controlled` says whether
 * the service worker must answer the embeds on the second visit.
 */
async function lessonTwice(lesson, controlled) {
  const tab = await browser.context.newPage();
  const errors = [];
  tab.on('pageerror', (e) => errors.push(String(e)));
  tab.on('response', (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
  const kvlabFrames = () => tab.frames().filter((f) => f.url().startsWith(server.url));
  for (const visit of ['first', 'next']) {
    await tab.goto(lesson);
    await tab.waitForFunction(() => document.querySelectorAll('iframe.kvlab-embed').length === 4);
    const first = tab.frameLocator('iframe.kvlab-embed >> nth=0');
    await command(first).waitFor({ timeout: 30_000 });
    await until(first, 'GET login:1:name', '"ken thompson"');
    await tab.waitForFunction(() => [...document.querySelectorAll('iframe.kvlab-embed')].some((f) => f.style.height !== '320px'));
    const answered = await Promise.all(kvlabFrames().map((f) => f.evaluate(() => navigator.serviceWorker.controller !== null)));
    assert.ok(answered.length >= 1, 'embeds loaded');
    if (visit === 'next') assert.ok(answered.every((c) => c === controlled), `${visit} visit, frames controlled: ${answered}`);
  }
  assert.deepEqual(errors, []);
  await tab.close();
}

test('a tutorial on another origin of the same site: the installed worker answers its embeds', async () => {
  await lessonTwice(`http://127.0.0.1:${other.address().port}/lesson.html`, true);
});

test('a tutorial on another site: its embeds work on the first visit and the next', async () => {
  // Chromium refuses service workers to third-party frames ("The user denied permission to
  // use Service Worker"), so there the embeds load from the network every time, and must
  // not mind.
  await lessonTwice(`${other.url}lesson.html`, false);
});
