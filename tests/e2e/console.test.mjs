// End-to-end test of the console: the release build in dist/ served over HTTP, driven in
// headless Chromium like a user would.
//
//   node --test tests/e2e/          (after `trunk build --release`; scripts/test.sh does both)
//
// Environment:
//   KVLAB_URL         test a running server instead (e.g. http://127.0.0.1:8080 from trunk serve)
//   KVLAB_DIST        directory to serve (default: <repo>/dist)
//   KVLAB_SCREENSHOT  where to save a screenshot (default: /tmp/kvlab-console.png)
//   CHROMIUM          browser binary (default: /usr/bin/chromium)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = fileURLToPath(new URL('.', import.meta.url));
const dist = resolve(process.env.KVLAB_DIST ?? join(here, '..', '..', 'dist'));
const screenshot = process.env.KVLAB_SCREENSHOT ?? '/tmp/kvlab-console.png';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** A static file server for dist/ on a free 127.0.0.1 port. */
function serveDist() {
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      let file = normalize(join(dist, path));
      if (file !== dist && !file.startsWith(dist + sep)) throw new Error('outside dist');
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

let server, context, profile, page, url;
const pageErrors = [];

before(async () => {
  if (process.env.KVLAB_URL) {
    url = process.env.KVLAB_URL;
  } else {
    await stat(join(dist, 'index.html')).catch(() => {
      throw new Error(`${dist}/index.html not found: run \`trunk build --release\` first`);
    });
    server = await serveDist();
    url = `http://127.0.0.1:${server.address().port}/`;
  }
  // A fresh profile for each run; playwright passes it to Chromium as --user-data-dir.
  profile = await mkdtemp(join(tmpdir(), 'kvlab-e2e-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    locale: 'en-US',
    viewport: { width: 1100, height: 720 },
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && pageErrors.push(m.text()));
  page.on('response', (r) => r.status() >= 400 && pageErrors.push(`${r.status()} ${r.url()}`));
  await page.goto(url);
});

after(async () => {
  await context?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
  await new Promise((ok) => (server ? server.close(ok) : ok()));
});

/** Types a line into the command box and presses Enter. */
async function run(line) {
  const box = page.getByRole('textbox', { name: 'Command', exact: true });
  await box.fill(line);
  await box.press('Enter');
}

test('SET then GET shows the value in the log', async () => {
  const log = page.getByRole('log');
  await run('SET greeting hello');
  await run('GET greeting');
  await assert.doesNotReject(log.getByText('"hello"', { exact: true }).waitFor({ timeout: 10_000 }));
  const text = await log.innerText();
  assert.match(text, /127\.0\.0\.1:6379> SET greeting hello\s+OK/);
  assert.match(text, /127\.0\.0\.1:6379> GET greeting\s+"hello"/);
  assert.equal(await page.getByRole('textbox', { name: 'Command' }).inputValue(), '');
});

test('errors render as redis-cli prints them, visibly styled', async () => {
  await run('GETT greeting');
  const error = page.getByRole('log').locator('.out.error').last();
  await error.waitFor({ timeout: 10_000 });
  assert.match(await error.innerText(), /^\(error\) ERR unknown command 'GETT'/);
  await run('SET "unbalanced');
  assert.equal(await page.getByRole('log').locator('.out.error').last().innerText(), 'Invalid argument(s)');
});

test('the prompt shows the selected database; history recalls lines', async () => {
  await run('SELECT 2');
  await run('GET greeting');
  assert.match(await page.getByRole('log').innerText(), /127\.0\.0\.1:6379\[2\]> GET greeting\s+\(nil\)/);
  const box = page.getByRole('textbox', { name: 'Command' });
  await box.press('ArrowUp');
  assert.equal(await box.inputValue(), 'GET greeting');
  await box.press('ArrowUp');
  assert.equal(await box.inputValue(), 'SELECT 2');
  await box.press('ArrowDown');
  await box.press('ArrowDown');
  assert.equal(await box.inputValue(), '');
  await run('SELECT 0');
  await page.getByRole('textbox', { name: 'Command' }).fill('SET');
  await page.screenshot({ path: screenshot });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshot.replace(/\.png$/, '-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.getByRole('textbox', { name: 'Command' }).fill('');
});

test('switching to Chinese renames the controls', async () => {
  await page.getByRole('button', { name: 'Switch language to Chinese' }).click();
  await page.getByRole('textbox', { name: '命令' }).waitFor({ timeout: 5_000 });
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
  await page.screenshot({ path: screenshot.replace(/\.png$/, '-zh.png') });
  await page.getByRole('button', { name: '切换为英文界面' }).click();
  await page.getByRole('textbox', { name: 'Command' }).waitFor({ timeout: 5_000 });
});

test('Ctrl+L clears the screen', async () => {
  const box = page.getByRole('textbox', { name: 'Command' });
  await box.press('Control+l');
  assert.equal((await page.getByRole('log').innerText()).trim(), '');
});

test('no errors in the page', () => {
  assert.deepEqual(pageErrors, []);
});
