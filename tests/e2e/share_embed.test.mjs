// Embedding, share links and hostile input (issue #8): the example tutorial page with live
// consoles, a share link round trip into a fresh workspace, and a catalogue of hostile keys,
// values, links and messages that must show as text and never run.
//
//   node --test tests/e2e/share_embed.test.mjs     (after `trunk build --release`)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch } from './lib.mjs';

let server, browser, page;

before(async () => {
  server = await serveDist();
  browser = await launch();
  page = browser.page;
  // Any script that a hostile string manages to run sets this flag.
  await browser.context.addInitScript(() => {
    window.__pwned = 0;
  });
});

after(async () => {
  await browser?.close();
  await new Promise((ok) => (server ? server.close(ok) : ok()));
});

const HOSTILE = [
  '<img src=x onerror="window.__pwned=1">',
  '<script>window.__pwned=1</script>',
  '"><svg onload=window.__pwned=1>',
  "javascript:window.__pwned=1",
  '{{constructor.constructor("window.__pwned=1")()}}',
];

const b64url = (s) => Buffer.from(s, 'utf8').toString('base64url');

async function run(p, line) {
  const box = p.getByRole('textbox', { name: 'Command', exact: true }).last();
  await box.fill(line);
  await box.press('Enter');
}

const logText = (p) => p.getByRole('log').last().innerText();

test('the example tutorial page turns code blocks into live, isolated consoles', async () => {
  await page.goto(`${server.url}examples/tutorial.html`);
  const frames = page.locator('iframe.kvlab-embed');
  await page.waitForFunction(() => document.querySelectorAll('iframe.kvlab-embed').length === 4);
  // The first block's setup ran in its own workspace: INCR then GET gives 1.
  const first = page.frameLocator('iframe.kvlab-embed >> nth=0');
  await first.getByRole('log').getByText('"1"').first().waitFor({ timeout: 30_000 });
  // The second block shares that workspace and opens after it, so its INCR runs second and
  // sees the first block's keys (whichever of the two frames runs the workspace).
  const second = page.frameLocator('iframe.kvlab-embed >> nth=1');
  await second.getByRole('log').getByText('(integer) 2').first().waitFor({ timeout: 30_000 });
  await run(second, 'GET login:1:name');
  await second.getByRole('log').getByText('"ken thompson"').first().waitFor({ timeout: 10_000 });
  // The third block is isolated: its sorted set is there.
  await frames.nth(2).scrollIntoViewIfNeeded();
  const third = page.frameLocator('iframe.kvlab-embed >> nth=2');
  await third.getByRole('log').getByText('"5"').first().waitFor({ timeout: 30_000 });
  // It does not see the first block's keys.
  await run(third, 'EXISTS login:1:name');
  await third.getByRole('log').getByText('(integer) 0').first().waitFor({ timeout: 10_000 });
  // Heights are reported by the embeds and applied by embed.js.
  await page.waitForFunction(() => [...document.querySelectorAll('iframe.kvlab-embed')].some((f) => f.style.height !== '320px'));
  // Reset runs FLUSHALL and the setup again.
  await third.getByRole('button', { name: 'Reset' }).click();
  await third.getByRole('log').getByText('FLUSHALL').first().waitFor({ timeout: 10_000 });
  await page.screenshot({ path: `${process.env.KVLAB_SHOTS ?? '/tmp'}/tutorial.png`, fullPage: true });
});

test('a share link shows what it will run, then replays it in a fresh workspace', async () => {
  await page.goto(server.url);
  await run(page, 'SET greeting "hello from a link"');
  await run(page, 'RPUSH shared:list a b c');
  await page.getByRole('button', { name: 'Share' }).click();
  const link = await page.locator('.share-box input').inputValue();
  assert.match(link, /#\/share\?s=/);
  const other = await browser.context.newPage();
  await other.goto(link);
  await other.getByText('A shared kvlab session').waitFor({ timeout: 20_000 });
  assert.match(await other.locator('.share-lines').innerText(), /RPUSH shared:list a b c/);
  // The default workspace holds data, so the link opens in a workspace of its own.
  await other.getByRole('button', { name: 'Open in a fresh workspace' }).click();
  await other.getByRole('button', { name: 'Run them' }).click({ timeout: 20_000 });
  await run(other, 'GET greeting');
  await other.getByRole('log').getByText('"hello from a link"').last().waitFor({ timeout: 10_000 });
  assert.match(other.url(), /\?ws=shared-[0-9a-f]{8}/);
  await other.close();
});

test('the share box copies its link, and a damaged link says it is damaged', async () => {
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url.slice(0, -1) });
  await page.goto(`${server.url}?ws=copy-test`);
  await run(page, 'SET copied yes');
  await page.getByRole('button', { name: 'Share' }).click();
  const link = await page.locator('.share-box input').inputValue();
  await page.getByRole('button', { name: 'Copy', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Copied.' }).waitFor({ timeout: 5_000 });
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
  // The link with its first character changed, and cut short: damaged, in both languages.
  const s = new URL(link).hash.split('s=')[1];
  const other = await browser.context.newPage();
  for (const bad of [`B${s.slice(1)}`, s.slice(0, Math.floor(s.length / 2))]) {
    await other.goto(`${server.url}?ws=damaged#/share?s=${bad}`);
    await other.getByText('This share link cannot be opened').waitFor({ timeout: 20_000 });
    const why = await other.locator('.share-page .error').innerText();
    assert.match(why, /damaged/, why);
    assert.doesNotMatch(why, /newer/, why);
  }
  await other.getByRole('button', { name: 'Switch language to Chinese' }).click();
  assert.match(await other.locator('.share-page .error').innerText(), /链接已损坏/);
  await other.getByRole('button', { name: '切换为英文界面' }).click();
  await other.close();
});

test('a Try-it link as redis.io writes it lists its commands, and runs them when asked', async () => {
  const commands = ['SET try:name "from a Try-it link"', 'HSET try:h f1 v1 f2 v2\nHLEN try:h'];
  const c = b64url(JSON.stringify(commands));
  const tab = await browser.context.newPage();
  // An empty workspace, without autorun: listed, nothing ran.
  await tab.goto(`${server.url}?ws=try-empty#/try?commands=${c}`);
  await tab.getByText('Commands from a Try-it link').waitFor({ timeout: 20_000 });
  assert.deepEqual(await tab.locator('.share-lines li').allInnerTexts(), [
    'SET try:name "from a Try-it link"',
    'HSET try:h f1 v1 f2 v2',
    'HLEN try:h',
  ]);
  await tab.getByRole('button', { name: 'Run them' }).click();
  await tab.getByRole('log').getByText('(integer) 2').first().waitFor({ timeout: 10_000 });
  await run(tab, 'GET try:name');
  await tab.getByRole('log').getByText('"from a Try-it link"').first().waitFor({ timeout: 10_000 });
  // With autorun, into a workspace that holds data: it runs at once, in a fresh workspace.
  await tab.goto(`${server.url}?ws=try-full#/`);
  await run(tab, 'SET mine 1');
  await tab.getByRole('log').getByText('OK', { exact: true }).first().waitFor({ timeout: 10_000 });
  await tab.goto(`${server.url}?ws=try-full&x=1#/try?commands=${c}&autorun=true`);
  await tab.waitForURL(/\?ws=shared-[0-9a-f]{8}#/, { timeout: 20_000 });
  await tab.getByRole('log').getByText('(integer) 2').first().waitFor({ timeout: 20_000 });
  await run(tab, 'EXISTS mine');
  await tab.getByRole('log').getByText('(integer) 0').first().waitFor({ timeout: 10_000 });
  const fresh = tab.url();
  // The same link again, in its own workspace that now holds its data: it waits.
  await tab.goto(`${fresh.split('#')[0]}&again=1#/try?commands=${c}&autorun=true`);
  await tab.getByText('This link has run in this workspace before').waitFor({ timeout: 20_000 });
  await tab.getByRole('button', { name: 'Run them again here' }).click();
  await run(tab, 'HLEN try:h');
  await tab.getByRole('log').getByText('(integer) 2').first().waitFor({ timeout: 10_000 });
  // A Try-it link that is not a list of commands says so.
  await tab.goto(`${server.url}?ws=try-bad#/try?commands=${b64url('{"not":"a list"}')}`);
  await tab.getByText('This Try-it link cannot be opened').waitFor({ timeout: 20_000 });
  assert.match(await tab.locator('.share-page .error').innerText(), /does not hold a list of commands/);
  await tab.close();
});

test('hostile keys, values, share links and embeds show as text and never run', async () => {
  await page.goto(server.url);
  for (const [i, h] of HOSTILE.entries()) {
    await run(page, `SET ${JSON.stringify(h)} ${JSON.stringify(h)}`);
    await run(page, `HSET hostile:${i} ${JSON.stringify(h)} ${JSON.stringify(h)}`);
  }
  await run(page, 'KEYS *');
  const text = await logText(page);
  assert.ok(text.includes('<script>window.__pwned=1</script>'), 'hostile text shown literally');
  // Open each in the value view.
  for (const h of HOSTILE.slice(0, 2)) {
    const item = page.getByRole('treeitem', { name: h }).first();
    if (await item.count()) await item.click();
  }
  // A share link and an embed carrying the catalogue.
  const cmds = HOSTILE.map((h) => `SET ${JSON.stringify(h)} 1`);
  await page.goto(`${server.url}#/embed?ws=hostile&setup=${b64url(cmds.join('\n'))}`);
  await page.getByRole('log').getByText('OK').first().waitFor({ timeout: 20_000 });
  // A different query makes this a new document (a fragment change alone would not reload).
  await page.goto(`${server.url}?from=test#/share?s=${'A'.repeat(40)}`);
  await page.getByText('This share link cannot be opened').waitFor({ timeout: 20_000 });
  // A forged message to the tutorial page is ignored.
  await page.goto(`${server.url}examples/tutorial.html`);
  await page.evaluate(() => window.postMessage({ type: 'kvlab:height', height: '<img src=x onerror=window.__pwned=1>' }, '*'));
  await page.evaluate(() => window.postMessage('<img src=x onerror=window.__pwned=1>', '*'));
  await page.waitForTimeout(500);
  assert.equal(await page.evaluate(() => window.__pwned), 0);
  assert.equal(await page.locator('img[src=x]').count(), 0);
});

test('cluster mode: multi-key commands across hash slots fail with CROSSSLOT', async () => {
  await page.goto(`${server.url}?ws=cluster-test`);
  // Cluster mode lives in the key tree's Settings.
  await page.locator('.browser .advanced summary').click();
  const toggle = page.getByRole('checkbox', { name: /Cluster mode/ });
  await toggle.check();
  await run(page, 'MSET a 1 b 2');
  await run(page, 'MSET {user:1}:name ken {user:1}:visits 1');
  await run(page, 'CLUSTER KEYSLOT foo');
  await page.getByRole('log').getByText('(integer) 12182').first().waitFor({ timeout: 10_000 });
  const text = await logText(page);
  assert.match(text, /MSET a 1 b 2\s+\(error\) CROSSSLOT Keys in request don't hash to the same slot/);
  assert.match(text, /MSET \{user:1\}:name ken \{user:1\}:visits 1\s+OK/);
  await toggle.uncheck();
  await run(page, 'MSET a 1 b 2');
  await page.getByRole('log').getByText('OK', { exact: true }).nth(1).waitFor({ timeout: 10_000 });
  assert.match(await logText(page), /MSET a 1 b 2\s+OK/);
});
