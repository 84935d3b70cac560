// End-to-end test of the walkthroughs: the release build in dist/, in headless Chromium.
// Opens the login walkthrough, runs it to the end, sees the query plan change after CREATE
// INDEX and the KV replies; checks deep links, language, the phone layout, a broken file's
// error; and measures what the console downloads with and without the SQL side.
//
//   node --test tests/e2e/walkthrough.test.mjs     (after `trunk build --release`)
//
// Environment: KVLAB_DIST (default <repo>/dist), KVLAB_SCREENSHOT (default
// /tmp/kvlab-walk.png), KVLAB_SHOTS (directory of the walk-*.png screenshots of the step
// screen, the recap and the phone layout in both languages; default /tmp), CHROMIUM
// (default /usr/bin/chromium).

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
const shots = process.env.KVLAB_SHOTS ?? '/tmp';

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
  // The walkthroughs' style sheet waits for the first walkthrough view; the command table's
  // English prose (HELP, COMMAND DOCS) comes once the console is up, outside the wasm.
  assert.ok(!served.some((f) => f.path === '/walkthrough.css'), 'walkthrough.css not loaded yet');
  assert.ok(served.some((f) => f.path === '/i18n/help.en.json'), 'help.en.json fetched');
  initial = sum(served);
  // Until the network is idle: the split wasm's secondary module (loaded once the console
  // is interactive) included; bench/web.mjs tells the two apart.
  console.log(`console transfer until idle: ${kb(initial.raw)} raw, ${kb(initial.gz)} gzip -9 (${served.length} files)`);
});

test('the list shows every walkthrough and filters by search', async () => {
  await page.getByRole('link', { name: 'Walkthroughs', exact: true }).click();
  const cards = page.locator('.walk-card');
  await cards.nth(9).waitFor({ timeout: 15_000 });
  assert.ok(served.some((f) => f.path === '/walkthrough.css'), 'walkthrough.css loaded with the list');
  // Styled: the list's cards are laid out by walkthrough.css (a grid), not as plain blocks.
  assert.equal(await page.locator('.walk-cards').evaluate((e) => getComputedStyle(e).display), 'grid');
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

  // Step 4 sorts in a temporary B-tree; step 5, after CREATE INDEX, walks the index. The
  // earlier steps are collapsed: open them to read them.
  await page.locator('.walk-past').evaluateAll((ds) => ds.forEach((d) => { d.open = true; }));
  const step4 = await page.locator('.walk-sql.walk-run[data-step="4"]').innerText();
  assert.match(step4, /SCAN login\s+USE TEMP B-TREE FOR ORDER BY/);
  assert.match(step4, /sorts: 1/);
  const step5 = await page.locator('.walk-sql.walk-run[data-step="5"]').innerText();
  assert.match(step5, /CREATE INDEX login_last/);
  assert.match(step5, /SCAN login USING INDEX login_last/);
  assert.doesNotMatch(step5, /TEMP B-TREE/);
  assert.match(step5, /sorts: 0/);

  const kv = (await page.locator('.walk-kv.walk-run').allInnerTexts()).join('\n');
  // Each command shows its complexity beside it, then its reply.
  assert.match(kv, /127\.0\.0\.1:6379> INCR login:1:login_times\s+INCR · O\(1\)\s+\(integer\) 6/);
  assert.match(kv, /LRANGE login:last_login 0 -1\s+LRANGE · O\([^\n]*\s+1\) "1"\s+2\) "3"/);
  assert.match(kv, /ZRANGE login:login_times 0 1 REV WITHSCORES\s+ZRANGE · O\(log[^\n]*\s+1\) "1"\s+2\) "6"/);
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

test('the recap lists what each side built, the costs as data grows, and opens the data in the workbench', async () => {
  await page.setViewportSize({ width: 1366, height: 850 });
  const recap = page.locator('.walk-recap');
  await recap.waitFor({ timeout: 5_000 });
  const sqlBuilt = await recap.locator('.walk-recap-sql').innerText();
  assert.match(sqlBuilt, /CREATE UNIQUE INDEX login_name ON login\(name\);\s+step 2/);
  assert.match(sqlBuilt, /CREATE INDEX login_last ON login\(last_login_time\);\s+step 5/);
  assert.match(sqlBuilt, /CREATE INDEX login_times_idx ON login\(login_times\);\s+step 6/);
  const kvBuilt = await recap.locator('.walk-recap-kv').innerText();
  assert.match(kvBuilt, /login:\*:id × 3 keys · string · kept by SET/);
  assert.match(kvBuilt, /login:last_login · list · kept by RPUSH, LPUSH, LTRIM/);
  assert.match(kvBuilt, /login:login_times · zset · kept by ZADD, ZINCRBY/);
  // The seeded cells are not "built", even the one INCR changed.
  assert.doesNotMatch(kvBuilt, /login:1:login_times/);
  // Costs: step 4's query sorts a full scan, step 5's walks the index; the KV side's from the table.
  const rows = await recap.locator('.walk-costs tbody tr').allInnerTexts();
  assert.equal(rows.length, 7);
  assert.match(rows[3], /O\(N log N\)\s+SELECT user_id, name, last_login_time FROM login ORDER BY/);
  assert.match(rows[3], /O\([^)]*\)\s+LRANGE/);
  assert.match(rows[4], /O\(log N \+ M\)\s+SELECT/);
  assert.match(rows[1], /O\(N\)\s+SELECT user_id FROM login WHERE name[\s\S]*O\(log N\)\s+SELECT user_id FROM login WHERE name/);
  await page.locator('.walk-past').evaluateAll((ds) => ds.forEach((d) => { d.open = false; }));
  await recap.evaluate((e) => e.scrollIntoView(true));
  await page.screenshot({ path: `${shots}/walk-recap-en-1366.png` });
  await recap.locator('a.walk-try-link').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}/walk-recap-en-1366-end.png` });

  // The link opens the workbench (a share link, in a workspace named after the walkthrough)
  // with the final KV data: the seed and the steps' writes, no reads.
  const href = await recap.locator('a.walk-try-link').getAttribute('href');
  assert.match(href, /\?ws=walk-login#\/share\?s=/);
  const other = await context.newPage();
  await other.goto(new URL(href, page.url()).href);
  await other.getByText('A shared kvlab session').waitFor({ timeout: 20_000 });
  const lines = await other.locator('.share-lines').innerText();
  assert.match(lines, /SET login:1:name "ken thompson"/);
  assert.match(lines, /RPUSH login:last_login 3 2 1/);
  assert.match(lines, /ZINCRBY login:login_times 1 1/);
  assert.doesNotMatch(lines, /LRANGE|MGET|TYPE /);
  await other.getByRole('button', { name: 'Run them' }).click({ timeout: 20_000 });
  const box = other.getByRole('textbox', { name: 'Command', exact: true }).last();
  await box.fill('ZRANGE login:login_times 0 -1 WITHSCORES');
  await box.press('Enter');
  await other.getByRole('log').getByText('"6"').last().waitFor({ timeout: 10_000 });
  await box.fill('LRANGE login:last_login 0 -1');
  await box.press('Enter');
  await other.getByRole('log').getByText('LRANGE login:last_login 0 -1').last().waitFor({ timeout: 10_000 });
  assert.match(await other.getByRole('log').last().innerText(), /LRANGE login:last_login 0 -1\s+1\) "1"\s+2\) "3"/);
  await other.close();
});

test('the current step is the screen: its code before it runs, SQL and KV level, results under them, controls in reach', async () => {
  await page.setViewportSize({ width: 1366, height: 850 });
  await page.goto(`${url}#/walk/login/4`);
  await page.reload();
  await page.locator('.walk[data-done="3"][data-busy="false"]').waitFor({ timeout: 30_000 });
  const cur = page.locator('.walk-current');
  assert.equal(await cur.getAttribute('data-step'), '4');
  // Before it runs: the step's SQL and commands are there to read, with each command's
  // complexity beside it, and no result yet.
  assert.match(await cur.locator('.walk-sql .walk-stmt').innerText(), /ORDER BY last_login_time DESC LIMIT 2/);
  assert.match(await cur.locator('.walk-kv').innerText(), /RPUSH login:last_login 3 2 1\s+RPUSH · O\(1\)/);
  assert.equal(await cur.locator('.walk-grid, .walk-reply, .walk-plan').count(), 0);
  assert.match(await cur.locator('.walk-not-run').innerText(), /Not run yet/);
  // The earlier steps are collapsed above it, one line each, and can be opened.
  const past = page.locator('.walk-past');
  assert.equal(await past.count(), 3);
  assert.deepEqual(await past.evaluateAll((ds) => ds.map((d) => d.open)), [false, false, false]);
  await past.first().locator('summary').click();
  assert.match(await past.first().innerText(), /MGET login:1:name/);
  await past.first().locator('summary').click();

  await page.getByRole('button', { name: 'Run step' }).click();
  await page.locator('.walk[data-done="4"][data-busy="false"]').waitFor({ timeout: 30_000 });
  const box = async (sel) => (await page.locator(sel).boundingBox());
  const sqlBox = await box('.walk-current .walk-sql.walk-run');
  const kvBox = await box('.walk-current .walk-kv.walk-run');
  assert.ok(Math.abs(sqlBox.y - kvBox.y) <= 3, `SQL block at y=${sqlBox.y}, KV block at y=${kvBox.y}`);
  assert.ok(sqlBox.x + sqlBox.width <= kvBox.x, 'side by side');
  for (const b of [sqlBox, kvBox]) assert.ok(b.y >= 0 && b.y < 850 - 200, `block top at y=${b.y} is on screen`);
  // The results appear under the code: the grid, the query plan and the counters under the
  // statement, each reply under its command.
  const stmt = await box('.walk-current .walk-sql .walk-stmt');
  const grid = await box('.walk-current .walk-sql .walk-grid');
  const plan = await box('.walk-current .walk-sql .walk-plan');
  assert.ok(stmt.y < grid.y && grid.y < plan.y, 'statement, then result, then plan');
  assert.match(await page.locator('.walk-current .walk-plan').innerText(), /Query plan\s+SCAN login\s+USE TEMP B-TREE FOR ORDER BY/);
  assert.match(await page.locator('.walk-current .walk-sql').innerText(), /full-scan steps: \d+ · sorts: 1/);
  assert.match(await page.locator('.walk-current .walk-kv').innerText(), /LRANGE login:last_login 0 -1\s+LRANGE · O\([^\n]+\s+1\) "1"\s+2\) "3"/);
  await page.screenshot({ path: `${shots}/walk-step4-en-1366.png` });

  // The controls stay in reach when the page scrolls to its end.
  await page.locator('.walk').evaluate((e) => {
    e.scrollTop = e.scrollHeight;
    window.scrollTo(0, document.documentElement.scrollHeight);
  });
  await page.waitForTimeout(100);
  for (const sel of ['.walk-run-step', '.walk-next', '.walk-run-all']) {
    const b = await box(sel);
    assert.ok(b && b.y >= 0 && b.y + b.height <= 850, `${sel} visible at y=${b?.y}`);
  }
  // Next: step 5 is the screen, step 4 joins the collapsed ones.
  await page.getByRole('button', { name: 'Next →' }).click();
  await page.locator('.walk-current[data-step="5"]').waitFor();
  await page.waitForTimeout(200);
  assert.equal(await page.locator('.walk-past').count(), 4);
  const s5 = await box('.walk-current .walk-sql.walk-run');
  const k5 = await box('.walk-current .walk-kv.walk-run');
  assert.ok(Math.abs(s5.y - k5.y) <= 3 && s5.y >= 0 && s5.y < 850 - 200, `step 5 blocks at ${s5.y}, ${k5.y}`);
  assert.match(await page.locator('.walk-current .walk-kv').innerText(), /No KV commands in this step/);
});

test('the SQL side shows its schema and seed rows, and a browser of the real tables', async () => {
  // The setup is the first, collapsible part: CREATE TABLE and the INSERTs beside the seed.
  const setup = page.locator('details.walk-setup');
  await setup.locator('summary').click();
  const schema = await setup.locator('.walk-schema').innerText();
  assert.match(schema, /CREATE TABLE login \(/);
  assert.match(schema, /INSERT INTO login VALUES \(1, 'ken thompson',\s+5, '2011-01-01 00:00:00'\);/);
  assert.match(await setup.locator('.walk-seed').innerText(), /SET login:1:name "ken thompson"/);
  await setup.locator('summary').click();
  // The table browser reads SQLite itself: columns, indexes (step 2's so far), rows.
  const table = page.locator('.walk-tables .walk-table[data-table="login"]');
  const text = await table.innerText();
  assert.match(text, /login \(3 rows\)/);
  assert.match(text, /user_id INTEGER \(primary key\), name TEXT, login_times INTEGER, last_login_time TEXT/);
  assert.match(text, /login_name \(name\) · unique/);
  assert.doesNotMatch(text, /login_last/);
  assert.match(text, /ken thompson[\s\S]*dennis ritchie[\s\S]*Joe Armstrong/);
  // Step 4's UPDATE is visible in the rows.
  assert.match(text, /ken thompson\s+6\s+2011-04-01 00:00:00/);
  // Run step 5: its CREATE INDEX shows up.
  await page.getByRole('button', { name: 'Run step' }).click();
  await page.locator('.walk[data-done="5"][data-busy="false"]').waitFor({ timeout: 30_000 });
  await page.waitForFunction(() => /login_last \(last_login_time\)/.test(document.querySelector('.walk-tables')?.innerText ?? ''), null, { timeout: 10_000 });
  // The table browser and the keyspace tree sit side by side.
  const tb = await page.locator('.walk-tables').boundingBox();
  const kt = await page.locator('.walk-tree').boundingBox();
  assert.ok(Math.abs(tb.y - kt.y) <= 3, `tables at ${tb.y}, keys at ${kt.y}`);
});

test('on a phone, SQL result tables fit their boxes (in English and Chinese)', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${url}#/walk/login/4`);
  await page.reload();
  await page.locator('.walk[data-done="3"][data-busy="false"]').waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Run step' }).click();
  await page.locator('.walk[data-done="4"][data-busy="false"]').waitFor({ timeout: 30_000 });
  await page.locator('.walk-past').evaluateAll((ds) => ds.forEach((d) => { d.open = true; }));
  await page.locator('.walk-setup').evaluate((d) => { d.open = true; });
  const check = async () => {
    const over = await page.evaluate(() => {
      const bad = [];
      for (const t of document.querySelectorAll('.walk-grid')) {
        if (!t.offsetParent) continue;
        const box = t.parentElement;
        if (t.getBoundingClientRect().width > box.clientWidth + 1) bad.push(`table ${t.innerText.slice(0, 40)} ${t.getBoundingClientRect().width} > ${box.clientWidth}`);
      }
      for (const sec of document.querySelectorAll('.walk-pair > section, .walk-tables, .walk')) {
        if (sec.scrollWidth > sec.clientWidth + 1) bad.push(`${sec.className} scrolls sideways: ${sec.scrollWidth} > ${sec.clientWidth}`);
      }
      return bad;
    });
    assert.deepEqual(over, []);
    assert.ok((await page.locator('.walk-grid').count()) >= 4);
  };
  await check();
  // A four-column result is one card per row, each value under its column's name.
  const card = page.locator('.walk-current .walk-grid.wide tbody tr').first();
  assert.match(await card.innerText(), /^1\s+ken thompson\s+2011-04-01 00:00:00$/);
  const labels = await card.locator('td').evaluateAll((tds) => tds.map((td) => getComputedStyle(td, '::before').content));
  assert.deepEqual(labels, ['"user_id"', '"name"', '"last_login_time"']);
  await page.locator('.walk-past').evaluateAll((ds) => ds.forEach((d) => { d.open = false; }));
  await page.locator('.walk-setup').evaluate((d) => { d.open = false; });
  await page.locator('.walk-current').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}/walk-phone-en-390.png` });
  await page.screenshot({ path: `${shots}/walk-phone-en-390-full.png`, fullPage: true });
  const run = await page.locator('.walk-run-step').boundingBox();
  assert.ok(run.y >= 0 && run.y + run.height <= 844, `Run step visible at ${run.y}`);
  await page.locator('button.lang:not(.ws-button)').click();
  await page.getByRole('button', { name: '运行本步' }).waitFor({ timeout: 5_000 });
  await page.locator('.walk-past').evaluateAll((ds) => ds.forEach((d) => { d.open = true; }));
  await check();
  await page.locator('.walk-past').evaluateAll((ds) => ds.forEach((d) => { d.open = false; }));
  await page.locator('.walk-current').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${shots}/walk-phone-zh-390.png` });
  await page.setViewportSize({ width: 1366, height: 850 });
  await page.locator('.walk-current').scrollIntoViewIfNeeded();
  assert.match(await page.locator('.walk-current .walk-plan').innerText(), /^查询计划/);
  assert.doesNotMatch(await page.locator('.walk').innerText(), /QUERY PLAN|Query plan/);
  await page.screenshot({ path: `${shots}/walk-step4-zh-1366.png` });
  await page.locator('button.lang:not(.ws-button)').click();
  await page.setViewportSize({ width: 1200, height: 800 });
});

test('a deep link opens a walkthrough at a step, with the steps before it run', async () => {
  await page.goto(`${url}#/walk/tags/3`);
  await page.locator('.walk[data-done="2"][data-busy="false"]').waitFor({ timeout: 30_000 });
  assert.match(await page.locator('.walk-step h2').innerText(), /^3\. ruby but NOT web/);
  await page.getByRole('button', { name: 'Run step' }).click();
  await page.locator('.walk[data-done="3"]').waitFor({ timeout: 30_000 });
  assert.match(await page.locator('.walk-current .walk-kv').innerText(), /SDIFF tag:ruby tag:web\s+SDIFF · O\(N\)[^\n]*\s+1\) "1"/);
  assert.match(await page.locator('.walk-sql.walk-run[data-step="3"]').innerText(), /NOT EXISTS/);
});

test('free play runs edited SQL and commands on both sides, and keeps what was typed', async () => {
  await page.getByRole('button', { name: 'Free play' }).click();
  const sqlText = 'SELECT name\n  FROM book\n  WHERE id = 4;';
  await page.locator('.walk-edit-sql').fill(sqlText);
  await page.locator('.walk-edit-kv').fill('GET book:4:name');
  await page.getByRole('button', { name: 'Run both sides' }).click();
  await page.locator('.walk-kv.walk-run[data-step="0"]').waitFor({ timeout: 30_000 });
  await page.locator('.walk-sql.walk-run[data-step="0"]').waitFor({ timeout: 30_000 });
  assert.match(await page.locator('.walk-sql.walk-run[data-step="0"]').innerText(), /JavaScript: The Good Parts/);
  assert.match(await page.locator('.walk-kv.walk-run[data-step="0"]').innerText(), /"JavaScript: The Good Parts"/);
  // What the learner typed is still there after the run and after the tables were re-read.
  await page.locator('.walk[data-busy="false"]').waitFor();
  await page.waitForTimeout(300);
  assert.equal(await page.locator('.walk-edit-sql').inputValue(), sqlText);
  assert.equal(await page.locator('.walk-edit-kv').inputValue(), 'GET book:4:name');
  // And after leaving free play and coming back.
  await page.getByRole('button', { name: 'Free play' }).click();
  await page.getByRole('button', { name: 'Free play' }).click();
  assert.equal(await page.locator('.walk-edit-sql').inputValue(), sqlText);
});

test('Tab indents in the free-play boxes; Shift+Tab, or Esc then Tab, leaves them', async () => {
  const box = page.locator('.walk-edit-sql');
  await box.fill('SELECT 1\nFROM book;');
  await box.focus();
  // The cursor at the start of the second line: Tab indents there and stays in the box.
  await box.evaluate((e) => e.setSelectionRange(9, 9));
  await page.keyboard.press('Tab');
  assert.equal(await box.inputValue(), 'SELECT 1\n  FROM book;');
  assert.ok(await box.evaluate((e) => document.activeElement === e), 'Tab kept the focus in the box');
  // A selection over both lines indents both.
  await box.evaluate((e) => e.setSelectionRange(0, e.value.length));
  await page.keyboard.press('Tab');
  assert.equal(await box.inputValue(), '  SELECT 1\n    FROM book;');
  // The KV box indents too.
  const kvBox = page.locator('.walk-edit-kv');
  await kvBox.fill('GET a');
  await kvBox.focus();
  await page.keyboard.press('Tab');
  assert.equal(await kvBox.inputValue(), 'GET a  ');
  // Escape, then Tab: the focus moves on and the text is unchanged.
  await box.focus();
  await page.keyboard.press('Escape');
  await page.keyboard.press('Tab');
  assert.ok(await box.evaluate((e) => document.activeElement !== e), 'Esc then Tab left the box');
  assert.equal(await box.inputValue(), '  SELECT 1\n    FROM book;');
  // Shift+Tab always leaves.
  await kvBox.focus();
  await page.keyboard.press('Shift+Tab');
  assert.ok(await kvBox.evaluate((e) => document.activeElement !== e), 'Shift+Tab left the box');
  // The hint says so, and the boxes point to it.
  const hint = await page.locator('#walk-edit-hint').innerText();
  assert.match(hint, /Tab indents[\s\S]*Shift\+Tab[\s\S]*Esc then Tab/);
  assert.equal(await box.getAttribute('aria-describedby'), 'walk-edit-hint');
  await page.getByRole('button', { name: 'Free play' }).click();
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
  const cols = await page.locator('.walk-current .walk-pair').evaluate((e) => getComputedStyle(e).gridTemplateColumns);
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
  // Every other walkthrough runs in Chinese (the language stays across reloads).
  let zh = false;
  for (const file of files) {
    const text = await readFile(join(dist, 'walkthroughs', file), 'utf8');
    const id = text.match(/^id:\s*(\S+)/m)[1];
    const steps = (text.match(/^\[step\]/gm) ?? []).length;
    await page.goto(`${url}#/walk/${id}/1`);
    await page.reload();
    await page.locator('.walk[data-done="0"][data-busy="false"]').waitFor({ timeout: 30_000 });
    const inZh = ((await page.locator('html').getAttribute('lang')) ?? '').startsWith('zh');
    if (inZh !== zh) await page.locator('button.lang:not(.ws-button)').click();
    await page.locator('.walk-run-all').click();
    await page.locator(`.walk[data-done="${steps}"][data-busy="false"]`).waitFor({ timeout: 30_000 });
    const bad = await page.locator('.mismatch').allInnerTexts();
    assert.deepEqual(bad, [], `${file}: results differ from the file`);
    assert.equal(await page.locator('.walk-error').count(), 0, `${file}: error shown`);
    // Every step's narration is on the page (the earlier ones collapsed), in Chinese: no
    // ASCII space beside full-width punctuation, Chinese quotes.
    if (zh) {
      const say = (await page.locator('.walk-say, .walk-step h2, .walk-past summary, .walk-top h1').evaluateAll((es) => es.map((e) => e.textContent))).join('\n');
      assert.doesNotMatch(say, /[，。；：！？、）“”] | [，。；：！？、（“”]/, `${file}: ${say.match(/.{0,12}[，。；：！？、）“”] .{0,12}|.{0,12} [，。；：！？、（“”].{0,12}/)?.[0]}`);
      assert.doesNotMatch(say, /"/, `${file}: ASCII quotes in Chinese`);
      assert.match(await page.locator('.walk-recap').innerText(), /回顾：两边各建了什么/);
    }
    zh = !zh;
  }
  // Leave the page in English.
  if (((await page.locator('html').getAttribute('lang')) ?? '').startsWith('zh')) {
    await page.locator('button.lang:not(.ws-button)').click();
  }
});

test('no errors in the page', () => {
  assert.deepEqual(pageErrors, []);
});
