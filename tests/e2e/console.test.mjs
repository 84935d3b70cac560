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
import { open, writesSettled } from './lib.mjs';

const screenshot = process.env.KVLAB_SCREENSHOT ?? '/tmp/kvlab-console.png';

let browser, page, url;
const pageErrors = [];

before(async () => {
  browser = await open({ viewport: { width: 1100, height: 720 } });
  ({ page, url } = browser);
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && pageErrors.push(m.text()));
  page.on('response', (r) => r.status() >= 400 && pageErrors.push(`${r.status()} ${r.url()}`));
  await page.goto(url);
});

after(async () => {
  await browser?.close();
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

// ---- console (issue 23): Ctrl+C, reset, completion list, wrapping, several panes, --raw ----

const shots = process.env.KVLAB_SHOTS ?? '/tmp';
const pane = (name) => page.getByRole('region', { name });
const box = (p) => p.getByRole('textbox', { name: /^(Command|命令)$/ });
const output = (p) => p.getByRole('log');

/** Runs a line in pane `p` and waits until its block is on screen, a write's reply
 * included (it shows once IndexedDB has the write, which a busy machine takes a while to
 * confirm). */
async function runIn(p, line) {
  const n = await p.locator('.entry').count();
  const b = box(p);
  await b.fill(line);
  await b.press('Enter');
  await p.locator('.entry').nth(n).waitFor();
  await writesSettled(page);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
}

/** Waits until pane `p`'s log matches `re`; returns its text. */
async function waitLog(p, re, timeout = 5_000) {
  const end = Date.now() + timeout;
  let text = '';
  while (Date.now() < end) {
    text = await output(p).innerText();
    if (re.test(text)) return text;
    await page.waitForTimeout(50);
  }
  assert.fail(`log never matched ${re}:\n${text}`);
}

/** The text of pane `p`'s last reply block. */
const lastOut = (p) => output(p).locator('.out').last().innerText();

test('Ctrl+C stops a BLPOP on the engine side: a later LPUSH is not taken by it', async () => {
  await page.setViewportSize({ width: 1366, height: 850 });
  await page.getByRole('button', { name: '+ Client' }).click();
  const one = pane('client 1');
  const two = pane('client 2');
  await box(two).waitFor();
  await runIn(one, 'DEL k');
  await runIn(one, 'BLPOP k 0');
  await one.locator('.pane-status.blocked').waitFor();
  await box(one).press('Control+c');
  await one.locator('.pane-status.blocked').waitFor({ state: 'detached' });
  assert.match(await one.locator('.note').last().innerText(), /^\^C \(interrupted: the command no longer waits\)$/);
  // The prompt is back: the pane answers at once.
  await runIn(one, 'PING');
  assert.equal(await lastOut(one), 'PONG');
  await runIn(two, 'LPUSH k v');
  assert.equal(await lastOut(two), '(integer) 1');
  await runIn(two, 'LLEN k');
  assert.equal(await lastOut(two), '(integer) 1');
  // Nothing arrived late in the first pane.
  assert.equal(await output(one).locator('.late').count(), 0);
  await runIn(one, 'LPOP k');
  assert.equal(await lastOut(one), '"v"');
});

test('the Stop button ends XREAD BLOCK 0; Ctrl+C ends SUBSCRIBE, PSUBSCRIBE and MONITOR', async () => {
  const one = pane('client 1');
  const two = pane('client 2');
  await runIn(one, 'XREAD BLOCK 0 STREAMS s $');
  await one.locator('.pane-status.blocked').waitFor();
  await one.getByRole('button', { name: /^Stop/ }).click();
  await one.locator('.pane-status.blocked').waitFor({ state: 'detached' });
  await runIn(two, 'XADD s * f v');
  await runIn(two, 'XLEN s');
  assert.equal(await lastOut(two), '(integer) 1');
  assert.equal(await output(one).locator('.late').count(), 0);

  await runIn(one, 'SUBSCRIBE ch');
  await runIn(one, 'PSUBSCRIBE news.*');
  await one.locator('.pane-status.subscribed').waitFor();
  await page.screenshot({ path: `${shots}/console-subscribed.png` });
  await box(one).press('Control+c');
  await one.locator('.pane-status.subscribed').waitFor({ state: 'detached' });
  assert.match(await one.locator('.note').last().innerText(), /unsubscribed from everything/);
  // Out of pub/sub mode: PING answers PONG (subscribed, RESP2 would answer an array).
  await runIn(one, 'PING');
  assert.equal(await lastOut(one), 'PONG');
  await runIn(two, 'PUBLISH ch hi');
  assert.equal(await lastOut(two), '(integer) 0');
  await runIn(two, 'PUBLISH news.today hi');
  assert.equal(await lastOut(two), '(integer) 0');

  await runIn(one, 'MONITOR');
  await runIn(two, 'SET seen 1');
  await waitLog(one, /"SET" "seen" "1"/);
  // A monitoring pane says so, with its Stop button, until stopped.
  await one.locator('.pane-status.monitor').getByText('monitoring').waitFor({ timeout: 5_000 });
  assert.equal(await one.locator('.pane-status.monitor button.stop').count(), 1);
  await box(one).press('Control+c');
  assert.match(await one.locator('.note').last().innerText(), /MONITOR stopped/);
  await one.locator('.pane-status.monitor').waitFor({ state: 'detached', timeout: 5_000 });
  const before = await output(one).locator('.late').count();
  await runIn(two, 'SET unseen 1');
  await runIn(one, 'ECHO done');
  assert.equal(await lastOut(one), '"done"');
  assert.equal(await output(one).locator('.late').count(), before);

  // Ctrl+C with nothing to stop drops the line being typed, as a shell does.
  await box(one).fill('GET half-typed');
  await box(one).press('Control+c');
  assert.equal(await box(one).inputValue(), '');
  assert.match(await output(one).innerText(), /GET half-typed\^C/);
});

test('a blocked pane can be reset or closed with its buttons', async () => {
  const one = pane('client 1');
  const two = pane('client 2');
  await runIn(one, 'SELECT 0');
  await runIn(one, 'BLPOP k2 0');
  await one.locator('.pane-status.blocked').waitFor();
  await one.getByRole('button', { name: 'Reconnect as a new client, output cleared' }).click();
  await one.locator('.pane-status.blocked').waitFor({ state: 'detached' });
  assert.match(await output(one).innerText(), /Redis|Try/);
  await runIn(two, 'LPUSH k2 v');
  await runIn(two, 'LLEN k2');
  assert.equal(await lastOut(two), '(integer) 1');
  await runIn(one, 'PING');
  assert.equal(await lastOut(one), 'PONG');

  await runIn(two, 'BLPOP k3 0');
  await two.locator('.pane-status.blocked').waitFor();
  await two.getByRole('button', { name: 'Close client' }).click();
  await two.waitFor({ state: 'detached' });
  await runIn(one, 'LPUSH k3 v');
  await runIn(one, 'LLEN k3');
  assert.equal(await lastOut(one), '(integer) 1');
  await runIn(one, 'DEL k k2 k3 s');
});

test('Tab shows a list of candidates, completes their common prefix, and follows the typed case', async () => {
  const one = pane('client 1');
  const b = box(one);
  const list = one.getByRole('listbox');
  const options = list.getByRole('option');
  await b.fill('hg');
  await b.press('Tab');
  assert.equal(await b.inputValue(), 'hget');
  assert.deepEqual(await options.allInnerTexts(), ['hget', 'hgetall']);
  assert.equal(await b.getAttribute('aria-controls'), await list.getAttribute('id'));
  await page.screenshot({ path: `${shots}/console-completion.png` });
  // A second Tab moves to the next candidate; Enter takes it.
  await b.press('Tab');
  assert.equal(await b.inputValue(), 'hgetall');
  const active = await b.getAttribute('aria-activedescendant');
  assert.equal(await one.locator(`[id="${active}"]`).innerText(), 'hgetall');
  assert.equal(await one.locator(`[id="${active}"]`).getAttribute('aria-selected'), 'true');
  await b.press('Enter');
  assert.equal(await b.inputValue(), 'hgetall ');
  assert.equal(await list.count(), 0);
  assert.equal(await output(one).locator('.echo').filter({ hasText: 'hgetall' }).count(), 0, 'Enter took the candidate, it did not run the line');

  await b.fill('HG');
  await b.press('Tab');
  assert.equal(await b.inputValue(), 'HGET');
  assert.deepEqual(await options.allInnerTexts(), ['HGET', 'HGETALL']);
  // Arrows walk the list; Escape closes it and keeps the line.
  await b.press('ArrowDown');
  assert.equal(await b.inputValue(), 'HGET');
  await b.press('ArrowDown');
  assert.equal(await b.inputValue(), 'HGETALL');
  await b.press('ArrowUp');
  assert.equal(await b.inputValue(), 'HGET');
  await b.press('Escape');
  assert.equal(await list.count(), 0);
  assert.equal(await b.inputValue(), 'HGET');

  // Subcommands, in the line's case.
  await b.fill('CLIENT ');
  await b.press('Tab');
  const subs = await options.allInnerTexts();
  for (const s of ['GETNAME', 'KILL', 'LIST', 'UNBLOCK']) assert.ok(subs.includes(s), `${s} in ${subs}`);
  await b.fill('config ');
  await b.press('Tab');
  assert.ok((await options.allInnerTexts()).includes('get'));
  await b.press('Escape');

  // help <Tab>: the help topics, groups first, as the banner promises.
  await b.fill('help ');
  await b.press('Tab');
  const topics = await options.allInnerTexts();
  for (const t of ['@generic', '@list', '@string', '@sorted-set']) assert.ok(topics.includes(t), `${t} in help topics`);
  assert.ok(topics.includes('append') && topics.includes('blpop'), 'commands are topics too');
  assert.ok(await one.locator('.completions .more').isVisible(), 'the rest is counted');
  await b.fill('help @so');
  await b.press('Tab');
  assert.equal(await b.inputValue(), 'help @sorted-set ');

  // Key names in key positions (not in a PUBLISH's channel).
  await runIn(one, 'MSET user:1 a user:2 b');
  await b.fill('GET us');
  await b.press('Tab');
  assert.equal(await b.inputValue(), 'GET user:');
  assert.deepEqual(await options.allInnerTexts(), ['user:1', 'user:2']);
  await options.nth(1).click();
  assert.equal(await b.inputValue(), 'GET user:2 ');
  await b.fill('PUBLISH us');
  await b.press('Tab');
  assert.equal(await b.inputValue(), 'PUBLISH us');
  await b.fill('');
});

test('replies wrap between words, and a nested reply wraps under its own column', async () => {
  const one = pane('client 1');
  for (let i = 0; i < 3; i++) await page.getByRole('button', { name: '+ Client' }).click();
  await box(pane('client 5')).waitFor();
  const words = 'the value of the sorted score stays whole while the pane is narrow and the line goes on';
  await runIn(one, `RPUSH wrapped a "${words}"`);
  await runIn(one, 'LRANGE wrapped 0 -1');
  await runIn(one, 'DEL wrapped');
  const report = await one.locator('.out').filter({ hasText: 'sorted score' }).last().evaluate((pre) => {
    const line = [...pre.querySelectorAll('.ln')].find((l) => l.textContent.includes('sorted'));
    const text = line.firstChild;
    const rects = [];
    for (let i = 0; i < text.length; i++) {
      const r = document.createRange();
      r.setStart(text, i);
      r.setEnd(text, i + 1);
      const box = r.getClientRects()[0];
      if (box) rects.push({ i, ch: text.data[i], top: Math.round(box.top), left: box.left });
    }
    const breaks = [];
    for (let k = 1; k < rects.length; k++) {
      if (rects[k].top > rects[k - 1].top + 2) breaks.push({ before: rects[k - 1].ch, at: rects[k].ch, left: rects[k].left });
    }
    const valueStart = rects.find((r) => r.ch === '"').left;
    return { breaks, valueStart, text: text.data };
  });
  assert.ok(report.breaks.length >= 1, `the reply wraps in a narrow pane: ${JSON.stringify(report)}`);
  // Wrapping is only visual: the text (what a copy gets) is redis-cli's, line for line.
  const shown = await one.locator('.out').filter({ hasText: 'sorted score' }).last().innerText();
  assert.equal(shown, `1) "a"\n2) "${words}"`);
  for (const b of report.breaks) {
    assert.ok(b.before === ' ' && b.at !== ' ', `breaks only between words: ${JSON.stringify(report)}`);
    assert.ok(Math.abs(b.left - report.valueStart) < 1.5, `continues under the value, after "2) ": ${JSON.stringify(report)}`);
  }
});

test('with four panes at 1366 px every pane stays readable', async () => {
  const logs = page.locator('.pane .log');
  assert.equal(await logs.count(), 4);
  const widths = await logs.evaluateAll((ls) => ls.map((l) => l.getBoundingClientRect().width));
  for (const w of widths) assert.ok(w >= 320, `each log is at least 320 px wide: ${widths}`);
  await page.screenshot({ path: `${shots}/console-4-panes-en.png` });
  await page.getByRole('button', { name: 'Switch language to Chinese' }).click();
  await box(pane('客户端 1')).waitFor();
  await page.screenshot({ path: `${shots}/console-4-panes-zh-CN.png` });
  await page.getByRole('button', { name: '切换为英文界面' }).click();
  for (const n of [5, 4, 3]) {
    await pane(`client ${n}`).getByRole('button', { name: 'Close client' }).click();
  }
  await page.screenshot({ path: `${shots}/console-1-pane-en.png` });
});

test('--raw shows UTF-8 text as text, formatted as redis-cli --raw; the hint offers it in Chinese', async () => {
  const one = pane('client 1');
  await runIn(one, 'SET 名字 值');
  await runIn(one, 'GET 名字');
  assert.equal(await lastOut(one), '"\\xe5\\x80\\xbc"');
  assert.match(await one.locator('.raw-hint').innerText(), /turn on --raw/);
  await page.getByRole('button', { name: 'Switch language to Chinese' }).click();
  const zh = pane('客户端 1');
  assert.match(await zh.locator('.raw-hint').innerText(), /显示为原文：\s*打开 --raw/);
  await page.screenshot({ path: `${shots}/console-1-pane-zh-CN.png` });
  await zh.getByRole('button', { name: '打开 --raw' }).click();
  const toggle = zh.getByRole('button', { name: '--raw', exact: true });
  assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
  assert.equal(await zh.locator('.raw-hint').count(), 0);
  await runIn(zh, 'GET 名字');
  assert.equal(await lastOut(zh), '值');
  await runIn(zh, 'RPUSH rawlist a "" b');
  await runIn(zh, 'LRANGE rawlist 0 -1');
  assert.equal(await output(zh).locator('.out').last().textContent(), 'a\n\nb');
  await runIn(zh, 'INCR rawn');
  assert.equal(await lastOut(zh), '1');
  await runIn(zh, 'GET nosuchkey');
  assert.equal(await output(zh).locator('.out').last().textContent(), '');
  await runIn(zh, 'DEL rawlist rawn 名字');
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
  await page.getByRole('button', { name: '切换为英文界面' }).click();
});

test('a phone-sized screen: one column, controls in reach', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  const one = pane('client 1');
  await runIn(one, 'BLPOP phone 0');
  await one.getByRole('button', { name: /^Stop/ }).waitFor();
  const b = box(one);
  await b.fill('hg');
  await b.press('Tab');
  await page.screenshot({ path: `${shots}/console-390.png`, fullPage: true });
  await one.getByRole('button', { name: /^Stop/ }).click();
  await b.fill('');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no sideways scrolling (${overflow} px)`);
  await page.setViewportSize({ width: 1100, height: 720 });
});

test('no errors in the page', () => {
  assert.deepEqual(pageErrors, []);
});
