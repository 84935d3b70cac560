// End-to-end test of the workbench: history across reloads, completion, hints, HELP in
// both languages, two client panes (SUBSCRIBE/PUBLISH, BLPOP/LPUSH, MULTI), the keyspace
// tree and live value views, editing from a view, themes and the phone layout.
//
//   node --test tests/e2e/      (after `trunk build --release`; scripts/test.sh does both)
//
// Screenshots go to KVLAB_SHOTS (default /tmp/kvlab-shots/).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { open } from './lib.mjs';

const shots = process.env.KVLAB_SHOTS ?? '/tmp/kvlab-shots';
let app, page;

before(async () => {
  await mkdir(shots, { recursive: true });
  app = await open();
  page = app.page;
  await page.goto(app.url);
  await page.evaluate(() => localStorage.setItem('kvlab.theme', 'dark'));
});

after(async () => {
  await app?.close();
});

const pane = (name) => page.getByRole('region', { name });
const box = (p) => p.getByRole('textbox', { name: /^(Command|命令)$/ });

/** Types a line into a pane's command box and presses Enter. */
async function run(p, line) {
  await box(p).fill(line);
  await box(p).press('Enter');
}

async function logText(p) {
  return p.getByRole('log').innerText();
}

async function waitText(p, re, timeout = 5_000) {
  const end = Date.now() + timeout;
  for (;;) {
    const text = await logText(p);
    if (re.test(text)) return text;
    if (Date.now() > end) assert.fail(`${re} not in:\n${text}`);
    await page.waitForTimeout(50);
  }
}

test('history survives a reload', async () => {
  const one = pane('client 1');
  await run(one, 'SET greeting hello');
  await run(one, 'GET greeting');
  await waitText(one, /"hello"/);
  await page.reload();
  const box1 = box(pane('client 1'));
  await box1.waitFor();
  await box1.press('ArrowUp');
  assert.equal(await box1.inputValue(), 'GET greeting');
  await box1.press('ArrowUp');
  assert.equal(await box1.inputValue(), 'SET greeting hello');
  await box1.fill('');
});

test('Tab completes commands, subcommands and keys; hints show the rest of the syntax', async () => {
  const one = pane('client 1');
  const b = box(one);
  await b.fill('RPOPL');
  await b.press('Tab');
  assert.equal(await b.inputValue(), 'RPOPLPUSH ');
  // Several candidates: Tab cycles through them.
  await b.fill('lpus');
  await b.press('Tab');
  assert.equal(await b.inputValue(), 'lpush');
  await b.press('Tab');
  assert.equal(await b.inputValue(), 'lpushx');
  await b.fill('config ge');
  await b.press('Tab');
  assert.equal(await b.inputValue(), 'config get ');
  await run(one, 'SET user:1:name Ada');
  await b.fill('GET user:1');
  await b.press('Tab');
  assert.equal(await b.inputValue(), 'GET user:1:name ');
  // Hints: the syntax not typed yet, in grey.
  await b.fill('SET');
  assert.match(await one.locator('.hint').innerText(), /key value/);
  await b.fill('SET k ');
  assert.match(await one.locator('.hint').innerText(), /^value/);
  await b.fill('');
});

test('HELP prints syntax, summary, complexity and since, in both languages', async () => {
  const one = pane('client 1');
  await run(one, 'HELP SET');
  const text = await waitText(one, /since: 1\.0\.0/);
  assert.match(text, /SET key value/);
  assert.match(text, /summary: /);
  assert.match(text, /complexity: O\(1\)/);
  // The Chinese texts are a separate file, fetched only once Chinese mode needs them.
  const asked = [];
  page.on('request', (r) => r.url().includes('help.zh-CN.json') && asked.push(r.url()));
  assert.deepEqual(asked, []);
  await page.getByRole('button', { name: 'Switch language to Chinese' }).click();
  const zh = pane('客户端 1');
  await box(zh).press('Control+l');
  await run(zh, 'HELP SET');
  const t1 = await waitText(zh, /在键中存入字符串/);
  assert.match(t1, /SET key value/);
  assert.match(t1, /复杂度： O\(1\)/);
  assert.match(t1, /分组： string（字符串）/);
  assert.doesNotMatch(t1, /Stores a string/);
  await run(zh, 'HELP CONFIG GET');
  await waitText(zh, /返回名称或通配符模式匹配的参数及其值/);
  await run(zh, 'HELP @list');
  const t2 = await waitText(zh, /将元素插入列表头部/);
  assert.match(t2, /LPUSH key element/);
  assert.match(t2, /起始版本：/);
  assert.match(t2, /O\(N\)，N 为返回的元素数/);
  assert.doesNotMatch(t2, /Prepends elements/);
  assert.equal(asked.length, 1, 'fetched once');
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
  await page.screenshot({ path: `${shots}/workbench-zh.png` });
  await page.getByRole('button', { name: '切换为英文界面' }).click();
  const en = pane('client 1');
  await box(en).waitFor();
  await box(en).press('Control+l');
  await run(en, 'HELP SET');
  const t3 = await waitText(en, /summary: Stores a string under a key/);
  assert.match(t3, /group: string\n/);
  assert.doesNotMatch(t3, /在键中存入字符串|字符串/);
  await box(en).press('Control+l');
});

test('two panes: PUBLISH reaches a SUBSCRIBEd pane; LPUSH wakes a BLPOP', async () => {
  await page.getByRole('button', { name: '+ Client' }).click();
  const one = pane('client 1');
  const two = pane('client 2');
  await box(two).waitFor();
  await run(one, 'SUBSCRIBE news');
  await waitText(one, /1\) "subscribe"\n2\) "news"\n3\) \(integer\) 1/);
  await run(two, 'PUBLISH news hello');
  await waitText(two, /\(integer\) 1/);
  await waitText(one, /1\) "message"\n2\) "news"\n3\) "hello"/);
  await run(one, 'UNSUBSCRIBE');
  await waitText(one, /"unsubscribe"/);

  await run(one, 'BLPOP jobs 30');
  const status = one.getByRole('status');
  await status.waitFor();
  assert.match(await status.innerText(), /blocked.*timeout in (30|29) s/);
  await page.screenshot({ path: `${shots}/blpop-waiting.png` });
  await run(two, 'LPUSH jobs job1');
  await waitText(one, /1\) "jobs"\n2\) "job1"/);
  await status.waitFor({ state: 'detached' });

  // A BLPOP with a 1 s timeout gives up by itself.
  await run(one, 'BLPOP nothing 1');
  await waitText(one, /BLPOP nothing 1[\s\S]*\(nil\)/, 4_000);

  // CLIENT PAUSE WRITE holds back the other pane's write, which says why and until when;
  // CLIENT UNPAUSE lets it run.
  await run(one, 'CLIENT PAUSE 20000 WRITE');
  await waitText(one, /CLIENT PAUSE 20000 WRITE\s+OK/);
  await run(two, 'SET paused yes');
  const held = two.getByRole('status');
  await held.waitFor();
  assert.match(await held.innerText(), /held back by CLIENT PAUSE.*timeout in (20|19) s/);
  await run(one, 'GET paused');
  await waitText(one, /GET paused\s+\(nil\)/);
  await run(one, 'CLIENT UNPAUSE');
  await waitText(two, /SET paused yes\s+OK/);
  await held.waitFor({ state: 'detached' });

  // MULTI shows its queue.
  await run(two, 'MULTI');
  await run(two, 'INCR counter');
  await run(two, 'INCR counter');
  const queue = two.getByRole('status');
  assert.match(await queue.innerText(), /MULTI queue \(2\)[\s\S]*INCR counter/);
  await run(two, 'EXEC');
  await waitText(two, /1\) \(integer\) 1\n2\) \(integer\) 2/);
});

test('the tree and the value views follow commands from any pane', async () => {
  const one = pane('client 1');
  const two = pane('client 2');
  await run(two, 'RPUSH queue:a x y z');
  const tree = page.getByRole('tree');
  await tree.getByRole('treeitem', { name: 'queue', exact: true }).click();
  await tree.getByRole('treeitem', { name: 'queue:a', exact: true }).click();
  const value = page.getByRole('region', { name: 'Value' });
  await value.getByText('tail').waitFor();
  assert.match(await value.locator('tbody').innerText(), /0\s+x\s*head[\s\S]*2\s+z\s*tail/);
  await run(one, 'LPUSH queue:a w');
  await value.locator('tr.added').getByText('w').waitFor();
  await run(two, 'LTRIM queue:a 0 1');
  await value.locator('.removed').getByText('y', { exact: true }).waitFor();
  assert.match(await value.innerText(), /changed by\s+LTRIM/);

  // A sorted set: ZINCRBY moves a member to its new rank (ann: 0 → 2).
  await run(one, 'ZADD board 1 ann 2 bob 3 cy');
  await tree.getByRole('treeitem', { name: 'board', exact: true }).click();
  await run(two, 'ZINCRBY board 5 ann');
  await value.locator('tr.moved', { hasText: 'ann' }).waitFor();
  assert.match(await value.locator('tr.moved', { hasText: 'ann' }).innerText(), /^2 ↓2\s+ann\s+6/);
  await page.screenshot({ path: `${shots}/zset-moved.png` });

  // Editing from the view runs the real command in the console.
  await value.getByRole('button', { name: 'Delete key' }).click();
  await waitText(two, /DEL board\s+\(integer\) 1/);
  await value.getByText('The key does not exist').waitFor();
});

test('set operations, bitmaps, HyperLogLogs and geo members have their own views', async () => {
  const one = pane('client 1');
  const value = page.getByRole('region', { name: 'Value' });
  const tree = page.getByRole('tree');
  await run(one, 'SADD s1 a b c');
  await run(one, 'SADD s2 b c d');
  await run(one, 'SINTER s1 s2');
  await value.locator('.venn .region.hot').first().waitFor();
  assert.match(await value.locator('.venn-result').innerText(), /result: b, c/);
  await page.screenshot({ path: `${shots}/venn.png` });

  await run(one, 'SETBIT flags 3 1');
  await tree.getByRole('treeitem', { name: 'flags', exact: true }).click();
  await value.getByRole('button', { name: 'Bits' }).click();
  await value.locator('.bit.on').first().waitFor();
  assert.equal(await value.locator('.bit.on').count(), 1);
  await value.getByRole('gridcell', { name: '5: 0' }).click();
  await waitText(one, /SETBIT flags 5 1/);
  assert.equal(await value.locator('.bit.on').count(), 2);

  await run(one, 'PFADD visitors a b c d e');
  await tree.getByRole('treeitem', { name: 'visitors', exact: true }).click();
  await value.getByText('estimated distinct elements').waitFor();
  assert.match(await value.locator('dd.big').innerText(), /^5$/);

  await run(one, 'GEOADD cities 13.361389 38.115556 Palermo 15.087269 37.502669 Catania 2.3522 48.8566 Paris');
  await tree.getByRole('treeitem', { name: 'cities', exact: true }).click();
  await value.getByRole('button', { name: 'Map' }).click();
  assert.equal(await value.locator('svg.geo circle').count(), 3);
  await page.screenshot({ path: `${shots}/geo-map.png` });

  await run(one, 'SET doc \'{"a":[1,2,{"b":null}],"c":"x"}\'');
  await tree.getByRole('treeitem', { name: 'doc', exact: true }).click();
  assert.match(await value.locator('pre.json').innerText(), /\{\n  "a": \[\n    1,/);
});

test('a stream shows its entries, groups and pending entries; XADD and XACK from the view', async () => {
  const one = pane('client 1');
  const value = page.getByRole('region', { name: 'Value' });
  const tree = page.getByRole('tree');
  await run(one, 'XADD events 1-1 kind login user ann');
  await run(one, 'XADD events 2-1 kind logout user bob');
  await run(one, 'XGROUP CREATE events mailer 0');
  await run(one, 'XREADGROUP GROUP mailer c1 COUNT 1 STREAMS events >');
  await waitText(one, /1\) "1-1"/);
  const row = tree.getByRole('treeitem', { name: 'events', exact: true });
  await row.click();
  // Outside cluster mode a row shows the stream's XLEN and MEMORY USAGE, no hash slot. A
  // stream's first node is allocated 4 KB as Redis allocates it, so it reads in KB.
  assert.equal(await row.locator('.badge.slot').count(), 0);
  assert.equal(await row.locator('.len').innerText(), '2 items');
  assert.match(await row.locator('.mem').innerText(), /(^|\s)\d+(\.\d)? KB$/);
  const entries = value.locator('table.stream tbody');
  await entries.getByText('2-1').waitFor();
  assert.match(await entries.innerText(), /1-1\s+kind login\s+user ann\s+2-1\s+kind logout\s+user bob/);
  const group = value.locator('.stream-group', { hasText: 'mailer' });
  assert.match(await group.innerText(), /Last delivered\s+1-1/);
  assert.match(await group.locator('.consumers').innerText(), /c1 \(1\)/);
  assert.match(await group.locator('table.pending tbody').innerText(), /^1-1\s+c1\s+1/);
  await page.screenshot({ path: `${shots}/stream.png` });
  await value.getByRole('textbox', { name: 'field' }).fill('kind');
  await value.getByRole('textbox', { name: 'value' }).fill('signup');
  await value.getByRole('button', { name: 'XADD *' }).click();
  await waitText(one, /XADD events \* kind signup/);
  await value.locator('table.stream tr.added', { hasText: 'signup' }).waitFor();
  await group.getByRole('button', { name: 'XACK' }).click();
  await waitText(one, /XACK events mailer 1-1\s+\(integer\) 1/);
  await value.locator('table.pending').waitFor({ state: 'detached' });
});

test('the tree filters with a glob, lists flat, and shows TTLs', async () => {
  const one = pane('client 1');
  const tree = page.getByRole('tree');
  await run(one, 'MSET app:1:name a app:2:name b app:2:mail c');
  await run(one, 'EXPIRE app:1:name 90');
  await page.getByRole('searchbox', { name: /Filter keys/ }).fill('app:2:*');
  await tree.getByRole('treeitem', { name: 'app', exact: true }).click();
  await tree.getByRole('treeitem', { name: '2', exact: true }).click();
  await tree.getByRole('treeitem', { name: 'app:2:mail', exact: true }).waitFor();
  assert.equal(await tree.getByRole('treeitem', { name: 'app:1:name', exact: true }).count(), 0);
  await page.getByRole('searchbox', { name: /Filter keys/ }).fill('');
  await page.getByRole('button', { name: 'List', exact: true }).click();
  const ttl = tree.getByRole('treeitem', { name: 'app:1:name', exact: true }).locator('.ttl');
  assert.match(await ttl.innerText(), /^(90|89)s$/);
  await page.screenshot({ path: `${shots}/workbench-dark.png` });
  await page.getByRole('button', { name: 'Light theme' }).click();
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'light');
  await page.screenshot({ path: `${shots}/workbench-light.png` });
  await page.getByRole('button', { name: 'Tree', exact: true }).click();
});

test('pasting several lines runs them in order', async () => {
  const two = pane('client 2');
  await box(two).focus();
  await page.evaluate(() => {
    const input = document.querySelectorAll('input.command')[1];
    const data = new DataTransfer();
    data.setData('text/plain', 'SET p 1\nINCR p\nGET p\n');
    input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  });
  await waitText(two, /SET p 1\s+OK\s+127\.0\.0\.1:6379> INCR p\s+\(integer\) 2\s+127\.0\.0\.1:6379> GET p\s+"2"/);
});

test('maxmemory: the status bar shows memory and evictions; writes fail when nothing can go', async () => {
  const one = pane('client 1');
  const status = page.locator('footer.status');
  assert.equal(await status.locator('.memory').count(), 0, 'no meter without maxmemory');
  await run(one, 'SELECT 5');
  await run(one, 'MSET cache:a 1 cache:b 2');
  await run(one, 'EXPIRE cache:a 1000');
  await run(one, 'CONFIG SET maxmemory-policy volatile-lru');
  await run(one, 'CONFIG SET maxmemory 1');
  // Only the key with a TTL may go under volatile-lru; then nothing is left to evict.
  await run(one, 'SET cache:c 3');
  await waitText(one, /OOM command not allowed when used memory > 'maxmemory'\./);
  await run(one, 'EXISTS cache:a cache:b');
  await waitText(one, /EXISTS cache:a cache:b\s*\n\(integer\) 1/);
  const meter = status.locator('.memory');
  // cache:a, and any key with a TTL an earlier test left in another database.
  assert.match(await meter.innerText(), /^memory [\d.]+[KMG]? \/ 1B · [1-9]\d* evicted$/);
  assert.match(await meter.getAttribute('title'), /volatile-lru$/);
  assert.equal(await meter.evaluate((el) => el.classList.contains('over')), true);
  await page.screenshot({ path: `${shots}/maxmemory.png` });
  await run(one, 'CONFIG SET maxmemory 0');
  await run(one, 'CONFIG SET maxmemory-policy noeviction');
  await run(one, 'FLUSHDB');
  await run(one, 'SELECT 0');
  await status.locator('.memory').waitFor({ state: 'detached' });
});

test('a 360 px phone screen', async () => {
  await page.setViewportSize({ width: 360, height: 740 });
  await box(pane('client 1')).waitFor();
  await page.screenshot({ path: `${shots}/phone.png`, fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
  assert.equal(overflow, false, 'no horizontal scrolling');
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('panes can be renamed; closing one disconnects its client', async () => {
  const name = pane('client 2').getByRole('textbox', { name: 'Client name' });
  await name.fill('worker');
  await name.press('Enter');
  await pane('worker').waitFor();
  await pane('worker').getByRole('button', { name: 'Close client' }).click();
  await run(pane('client 1'), 'CLIENT LIST');
  const text = await waitText(pane('client 1'), /id=1 /);
  assert.doesNotMatch(text, /id=2 /);
});

test('the page has no inline scripts and loads nothing from other origins', async () => {
  const inline = await page.evaluate(
    () => [...document.querySelectorAll('script')].filter((s) => !s.src).length,
  );
  assert.equal(inline, 0);
  // Foreign requests would be listed among the errors below (see lib.mjs).
});

test('no errors in the page', () => {
  assert.deepEqual(app.errors, []);
});
