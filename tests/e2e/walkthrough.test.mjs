// End-to-end test of the walkthroughs: the release build in dist/, in headless Chromium.
// Opens the login walkthrough, runs it to the end, sees the query plan change after CREATE
// INDEX and the KV replies; checks deep links, language, the phone layout, a broken file's
// error; and measures what the console downloads with and without the SQL side.
//
//   node --test tests/e2e/walkthrough.test.mjs     (after `trunk build --release`)
//
// Environment: KVLAB_DIST (default <repo>/dist), KVLAB_SCREENSHOT (default
// /tmp/kvlab-walk.png), CHROMIUM (default /usr/bin/chromium).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const here = fileURLToPath(new URL('.', import.meta.url));
const dist = resolve(process.env.KVLAB_DIST ?? join(here, '..', '..', 'dist'));
const screenshot = process.env.KVLAB_SCREENSHOT ?? '/tmp/kvlab-walk.png';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
  '.walk': 'text/plain; charset=utf-8',
};

/** Every file served, with its raw and gzip -9 size, in order. */
const served = [];

function serveDist() {
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      let file = normalize(join(dist, path));
      if (file !== dist && !file.startsWith(dist + sep)) throw new Error('outside dist');
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      served.push({ path, raw: body.length, gz: gzipSync(body, { level: 9 }).length });
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

const sum = (files) => files.reduce((a, f) => ({ raw: a.raw + f.raw, gz: a.gz + f.gz }), { raw: 0, gz: 0 });
const kb = (n) => `${Math.round(n / 1024)} KB`;

before(async () => {
  await stat(join(dist, 'index.html')).catch(() => {
    throw new Error(`${dist}/index.html not found: run \`trunk build --release\` first`);
  });
  server = await serveDist();
  url = `http://127.0.0.1:${server.address().port}/`;
  profile = await mkdtemp(join(tmpdir(), 'kvlab-e2e-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    locale: 'en-US',
    viewport: { width: 1200, height: 800 },
    // The service worker precaches every file of the build, the SQL side included, in the
    // background after the first load (so walkthroughs work offline; tests/e2e/pwa.test.mjs).
    // What is measured here is what the console itself loads.
    serviceWorkers: 'block',
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && pageErrors.push(m.text()));
  page.on('response', (r) => r.status() >= 400 && pageErrors.push(`${r.status()} ${r.url()}`));
});

after(async () => {
  await context?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
  await new Promise((ok) => (server ? server.close(ok) : ok()));
});

let initial;

test('the console loads without the SQL side', async () => {
  await page.goto(url);
  await page.getByRole('textbox', { name: 'Command', exact: true }).waitFor({ timeout: 15_000 });
  await page.waitForLoadState('networkidle');
  assert.ok(!served.some((f) => f.path.includes('kvlab-sql')), served.map((f) => f.path).join(' '));
  initial = sum(served);
  // Until the network is idle: the split wasm's secondary module (loaded once the console
  // is interactive) included; bench/web.mjs tells the two apart.
  console.log(`console transfer until idle: ${kb(initial.raw)} raw, ${kb(initial.gz)} gzip -9 (${served.length} files)`);
});

test('the list shows every walkthrough and filters by search', async () => {
  await page.getByRole('link', { name: 'Walkthroughs' }).click();
  const cards = page.locator('.walk-card');
  await cards.nth(9).waitFor({ timeout: 15_000 });
  assert.ok((await cards.count()) >= 10);
  await page.getByRole('searchbox', { name: 'Search walkthroughs' }).fill('sinter');
  await page.waitForFunction(() => document.querySelectorAll('.walk-card').length < 5);
  assert.match(await page.locator('.walk-cards').innerText(), /Tag system/);
  await page.getByRole('searchbox', { name: 'Search walkthroughs' }).fill('');
});

test('login runs to the end: the plan changes after CREATE INDEX, KV replies show', async () => {
  await page.getByRole('link', { name: /Login system/ }).click();
  await page.locator('.walk[data-done="0"][data-busy="false"]').waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Run step' }).click();
  await page.locator('.walk[data-done="1"]').waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Run all' }).click();
  await page.locator('.walk[data-done="7"][data-busy="false"]').waitFor({ timeout: 30_000 });
  assert.match(page.url(), /#\/walk\/login\/7$/);

  // Step 4 sorts in a temporary B-tree; step 5, after CREATE INDEX, walks the index.
  const step4 = await page.locator('.walk-sql .walk-run[data-step="4"]').innerText();
  assert.match(step4, /SCAN login\s+USE TEMP B-TREE FOR ORDER BY/);
  assert.match(step4, /sorts: 1/);
  const step5 = await page.locator('.walk-sql .walk-run[data-step="5"]').innerText();
  assert.match(step5, /CREATE INDEX login_last/);
  assert.match(step5, /SCAN login USING INDEX login_last/);
  assert.doesNotMatch(step5, /TEMP B-TREE/);
  assert.match(step5, /sorts: 0/);

  const kv = await page.locator('.walk-kv').innerText();
  assert.match(kv, /127\.0\.0\.1:6379> INCR login:1:login_times\s+\(integer\) 6/);
  assert.match(kv, /LRANGE login:last_login 0 -1\s+1\) "1"\s+2\) "3"/);
  assert.match(kv, /ZRANGE login:login_times 0 1 REV WITHSCORES\s+1\) "1"\s+2\) "6"/);
  assert.match(kv, /O\(log\(N\)\+M\)|O\(log\(N\) \+ M\)|O\(log/);
  // The keyspace tree groups login:1:* under login → 1.
  assert.match(await page.locator('.walk-tree').innerText(), /login: \(\d+\)[\s\S]*1: \(3\)/);
  // Every result matched the file.
  assert.equal(await page.locator('.mismatch').count(), 0);
  await page.screenshot({ path: screenshot, fullPage: true });

  const withSql = sum(served);
  const sqlFiles = served.filter((f) => f.path.includes('kvlab-sql'));
  assert.ok(sqlFiles.length >= 2, 'the SQL worker was loaded');
  console.log(`with the SQL side loaded: ${kb(withSql.raw)} raw, ${kb(withSql.gz)} gzip -9 ` +
    `(worker ${kb(sum(sqlFiles).raw)} raw, ${kb(sum(sqlFiles).gz)} gzip; walkthrough files ` +
    `${kb(sum(served.filter((f) => f.path.startsWith('/walkthroughs/'))).gz)} gzip)`);
});

test('a deep link opens a walkthrough at a step, with the steps before it run', async () => {
  await page.goto(`${url}#/walk/tags/3`);
  await page.locator('.walk[data-done="2"][data-busy="false"]').waitFor({ timeout: 30_000 });
  assert.match(await page.locator('.walk-step h2').innerText(), /^3\. ruby but NOT web/);
  await page.getByRole('button', { name: 'Run step' }).click();
  await page.locator('.walk[data-done="3"]').waitFor({ timeout: 30_000 });
  assert.match(await page.locator('.walk-kv').innerText(), /SDIFF tag:ruby tag:web\s+1\) "1"/);
  assert.match(await page.locator('.walk-sql .walk-run[data-step="3"]').innerText(), /NOT EXISTS/);
});

test('free play runs edited SQL and commands on both sides', async () => {
  await page.getByRole('button', { name: 'Free play' }).click();
  await page.locator('.walk-edit-sql').fill("SELECT name FROM book WHERE id = 4;");
  await page.locator('.walk-edit-kv').fill('GET book:4:name');
  await page.getByRole('button', { name: 'Run both sides' }).click();
  await page.locator('.walk-kv .walk-run[data-step="0"]').waitFor({ timeout: 30_000 });
  await page.locator('.walk-sql .walk-run[data-step="0"]').waitFor({ timeout: 30_000 });
  assert.match(await page.locator('.walk-sql .walk-run[data-step="0"]').innerText(), /JavaScript: The Good Parts/);
  assert.match(await page.locator('.walk-kv .walk-run[data-step="0"]').innerText(), /"JavaScript: The Good Parts"/);
});

test('in Chinese, and stacked on a phone', async () => {
  await page.locator('button.lang:not(.ws-button)').click();
  await page.getByRole('heading', { name: '标签系统' }).waitFor({ timeout: 5_000 });
  assert.match(await page.locator('.walk-step').innerText(), /差集/);
  // No space is left between Chinese sentences where the file wraps a line.
  assert.doesNotMatch(await page.locator('.walk').innerText(), /[，。；：] /);
  // Cost lines quote the complexities in Chinese (from the HELP texts, fetched in zh mode).
  await page.waitForFunction(
    () => [...document.querySelectorAll('.walk-kv .walk-cost')].some((e) => /O\([^)]*\)，?[^a-z]*为/.test(e.innerText)),
    null,
    { timeout: 10_000 },
  );
  for (const cost of await page.locator('.walk-kv .walk-cost').allInnerTexts()) {
    assert.doesNotMatch(cost, /\b(where|the|per|for|each|in)\b/, cost);
  }
  await page.setViewportSize({ width: 390, height: 800 });
  const cols = await page.locator('.walk > .walk-sides').evaluate((e) => getComputedStyle(e).gridTemplateColumns);
  assert.equal(cols.split(' ').length, 1, cols);
  await page.screenshot({ path: screenshot.replace(/\.png$/, '-phone-zh.png'), fullPage: true });
  await page.setViewportSize({ width: 1200, height: 800 });
  await page.locator('button.lang:not(.ws-button)').click();
});

test('a file with a mistake is rejected with its name and step', async () => {
  await page.goto(`${url}#/walk`);
  await page.locator('.walk-card').first().waitFor({ timeout: 15_000 });
  await page.locator('.walk-load summary').click();
  const broken = await readFile(join(here, '..', 'walk-broken', 'mistakes.walk'));
  await page.locator('.walk-load input[type=file]').setInputFiles({ name: 'mistakes.walk', mimeType: 'text/plain', buffer: broken });
  const err = page.locator('.walk-error').last();
  await err.waitFor({ timeout: 5_000 });
  assert.equal(await err.innerText(), 'mistakes.walk:25: step 2: needs narration in en: and zh:');
  await page.locator('button.lang:not(.ws-button)').click();
  assert.equal(await err.innerText(), '演练文件有误：mistakes.walk 第 25 行（第 2 步）：缺少 en: 和 zh: 的讲解文字');
  await page.locator('button.lang:not(.ws-button)').click();
});

test('every walkthrough runs to the end in the app and matches its file', async () => {
  const index = await readFile(join(dist, 'walkthroughs', 'index.txt'), 'utf8');
  const files = index.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  for (const file of files) {
    const text = await readFile(join(dist, 'walkthroughs', file), 'utf8');
    const id = text.match(/^id:\s*(\S+)/m)[1];
    const steps = (text.match(/^\[step\]/gm) ?? []).length;
    await page.goto(`${url}#/walk/${id}/1`);
    await page.reload();
    await page.locator('.walk[data-done="0"][data-busy="false"]').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Run all' }).click();
    await page.locator(`.walk[data-done="${steps}"][data-busy="false"]`).waitFor({ timeout: 30_000 });
    const bad = await page.locator('.mismatch').allInnerTexts();
    assert.deepEqual(bad, [], `${file}: results differ from the file`);
    assert.equal(await page.locator('.walk-error').count(), 0, `${file}: error shown`);
  }
});

test('no errors in the page', () => {
  assert.deepEqual(pageErrors, []);
});
