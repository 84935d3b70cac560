// Lua scripts in the console (issue 19): the script editor (Enter makes a new line,
// Ctrl+Enter runs EVAL), the hand-over from an `EVAL "…` line whose quote is open, a pasted
// multi-line EVAL, the echo as one redis-cli command with the script highlighted,
// redis.log in the browser's console, and scripts that survive a reload — SCRIPT LOAD and
// EVAL cache them, EVALSHA finds them after the page comes back (also when the service
// worker serves it), SCRIPT FLUSH forgets them for good. Expected replies were recorded
// from redis-server 7.0.15 with `redis-cli --no-raw`.
//
//   node --test tests/e2e/script.test.mjs     (after `trunk build --release`)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open } from './lib.mjs';

let browser, page, url;
const logged = [];

before(async () => {
  browser = await open();
  ({ page, url } = browser);
  page.on('console', (m) => logged.push([m.type(), m.text()]));
  await page.goto(url);
  await command().waitFor({ timeout: 20_000 });
});

after(async () => {
  await browser?.close();
});

const command = () => page.getByRole('textbox', { name: 'Command', exact: true });
const log = () => page.getByRole('log');

async function run(line) {
  await command().fill(line);
  await command().press('Enter');
}

/** Waits until the log's text matches `re`; returns the text. */
async function waitLog(re, timeout = 10_000) {
  await page.waitForFunction((src) => new RegExp(src).test(document.querySelector('[role="log"]')?.innerText ?? ''), re.source, {
    timeout,
  });
  return log().innerText();
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('a script typed in the editor runs with Ctrl+Enter; the echo is one redis-cli command', async () => {
  await page.getByRole('button', { name: 'Lua script' }).click();
  const editor = page.getByRole('group', { name: 'Lua script' });
  const code = editor.getByRole('textbox', { name: 'Lua script' });
  await assert.doesNotReject(code.waitFor({ timeout: 5_000 }));
  assert.ok(await code.evaluate((el) => el === document.activeElement), 'the editor has the focus');
  // Enter inserts a line break; nothing runs.
  await code.pressSequentially("local n = redis.call('INCRBY', KEYS[1], ARGV[1])");
  await code.press('Enter');
  await code.pressSequentially("return {n, redis.call('GET', KEYS[1])} -- both");
  assert.equal(
    await code.inputValue(),
    "local n = redis.call('INCRBY', KEYS[1], ARGV[1])\nreturn {n, redis.call('GET', KEYS[1])} -- both",
  );
  assert.doesNotMatch(await log().innerText(), /INCRBY/, 'Enter did not run the script');
  // Highlighted as it is typed.
  const hl = editor.locator('.code-hl');
  assert.deepEqual(await hl.locator('.lua-kw').allInnerTexts(), ['local', 'return']);
  assert.deepEqual(await hl.locator('.lua-api').allInnerTexts(), ['redis.call', 'redis.call']);
  assert.deepEqual(await hl.locator('.lua-com').allInnerTexts(), ['-- both']);
  await editor.getByRole('textbox', { name: 'Keys (KEYS)' }).fill('counter');
  await editor.getByRole('textbox', { name: 'Arguments (ARGV)' }).fill('5');
  await code.press('Control+Enter');
  const script = "local n = redis.call('INCRBY', KEYS[1], ARGV[1])\nreturn {n, redis.call('GET', KEYS[1])} -- both";
  const text = await waitLog(/2\) "5"/);
  assert.match(
    text,
    new RegExp(`127\\.0\\.0\\.1:6379> ${escape(`EVAL "${script}" 1 counter 5`)}\\s+1\\) \\(integer\\) 5\\s+2\\) "5"`),
  );
  // The echo highlights the script; the editor stays open with the script in it.
  const echo = log().locator('.echo').last();
  assert.deepEqual(await echo.locator('.lua-api').allInnerTexts(), ['redis.call', 'redis.call']);
  assert.deepEqual(await echo.locator('.lua-str').allInnerTexts(), ["'INCRBY'", "'GET'"]);
  assert.equal(await code.inputValue(), script);
  // Run again from the button: the same command, the counter at 10.
  await editor.getByRole('button', { name: /^EVAL · numkeys 1$/ }).click();
  await waitLog(/1\) \(integer\) 10\s+2\) "10"/);
  // ↑ brings the script back into the editor, not into the one-line box.
  await editor.getByRole('button', { name: 'Close the editor (the script is kept)' }).click();
  assert.equal(await editor.count(), 0);
  await command().press('ArrowUp');
  await page.getByRole('group', { name: 'Lua script' }).waitFor({ timeout: 5_000 });
  assert.equal(await code.inputValue(), script);
  assert.equal(await command().inputValue(), '');
  await page.getByRole('button', { name: 'Lua script' }).click();
});

test('Enter on EVAL with its quote open hands the script over to the editor', async () => {
  await run('EVAL "local greeting = \'hi\'');
  const code = page.getByRole('group', { name: 'Lua script' }).getByRole('textbox', { name: 'Lua script' });
  await code.waitFor({ timeout: 5_000 });
  assert.equal(await code.inputValue(), "local greeting = 'hi'\n");
  assert.equal(await command().inputValue(), '');
  await code.pressSequentially('return greeting');
  await page.getByRole('textbox', { name: 'Keys (KEYS)' }).fill('');
  await page.getByRole('textbox', { name: 'Arguments (ARGV)' }).fill('');
  await code.press('Control+Enter');
  const text = await waitLog(/> EVAL "local greeting = 'hi'\nreturn greeting" 0\s+"hi"/);
  assert.ok(text);
  // SCRIPT LOAD caches it and answers its SHA-1 (recorded from redis-server).
  await page.getByRole('button', { name: 'SCRIPT LOAD', exact: true }).click();
  await waitLog(/> SCRIPT LOAD "local greeting = 'hi'\nreturn greeting"\s+"ddac1d37d649b9bd21428c8a6505d8b910a3cb23"/);
  // A keys line with an open quote runs nothing and says why.
  await page.getByRole('textbox', { name: 'Keys (KEYS)' }).fill('"open');
  await code.press('Control+Enter');
  await page.getByRole('alert').getByText('The keys line has an unbalanced quote.').waitFor({ timeout: 5_000 });
  await page.getByRole('textbox', { name: 'Keys (KEYS)' }).fill('');
  await code.press('Escape');
  assert.equal(await page.getByRole('group', { name: 'Lua script' }).count(), 0);
  assert.ok(await command().evaluate((el) => el === document.activeElement), 'Escape returns to the command line');
  // Other commands keep redis-cli's answer to an open quote.
  await run('SET "unbalanced');
  assert.equal(await log().locator('.out.error').last().innerText(), 'Invalid argument(s)');
});

test('a pasted multi-line EVAL is one command; the lines around it run on their own', async () => {
  await command().focus();
  await page.evaluate(() => {
    const data = new DataTransfer();
    data.setData('text/plain', 'SET pasted 7\r\nEVAL "local a = redis.call(\'GET\', KEYS[1])\nlocal b = 2\nreturn a + b" 1 pasted\nPING\n');
    document.querySelector('input.command').dispatchEvent(
      new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }),
    );
  });
  const text = await waitLog(/> PING\s+PONG/);
  assert.match(
    text,
    /> SET pasted 7\s+OK\s+127\.0\.0\.1:6379> EVAL "local a = redis\.call\('GET', KEYS\[1\]\)\nlocal b = 2\nreturn a \+ b" 1 pasted\s+\(integer\) 9\s+127\.0\.0\.1:6379> PING\s+PONG/,
  );
});

test('redis.log lines reach the browser console by level', async () => {
  await run('EVAL "redis.log(redis.LOG_WARNING, \'careful\') redis.log(redis.LOG_NOTICE, \'fyi\') return 1" 0');
  await waitLog(/\(integer\) 1/);
  const deadline = Date.now() + 5_000;
  while (!logged.some(([, t]) => t.includes('fyi')) && Date.now() < deadline) await page.waitForTimeout(50);
  assert.ok(logged.some(([type, t]) => type === 'warning' && t === 'kvlab # careful'), JSON.stringify(logged));
  assert.ok(logged.some(([type, t]) => type === 'log' && t === 'kvlab * fyi'), JSON.stringify(logged));
});

/** Reloads and waits for the console. */
async function reload() {
  await page.reload();
  await command().waitFor({ timeout: 20_000 });
}

test('returning visitor: loaded and evaluated scripts are there after a reload; SCRIPT FLUSH forgets them', async () => {
  await run("SCRIPT LOAD \"return 'kept'\"");
  await waitLog(/"831718c21eb8cace8e6f31e7782a9d8e38ed5600"/);
  await run("EVAL \"return 'evaled'\" 0");
  await waitLog(/"evaled"/);
  await command().focus();
  await page.evaluate(() => {
    const data = new DataTransfer();
    data.setData('text/plain', "EVAL \"local v = 'multi'\nreturn v\" 0\n");
    document.querySelector('input.command').dispatchEvent(
      new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }),
    );
  });
  await waitLog(/"multi"/);
  // The replies are on screen only once committed: reload at once.
  await reload();
  assert.equal(await log().getByText('kept').count(), 0, 'a fresh log');
  // The history kept the multi-line script whole: ↑ opens it in the editor.
  await command().press('ArrowUp');
  const code = page.getByRole('group', { name: 'Lua script' }).getByRole('textbox', { name: 'Lua script' });
  await code.waitFor({ timeout: 5_000 });
  assert.equal(await code.inputValue(), "local v = 'multi'\nreturn v");
  await page.getByRole('button', { name: 'Lua script' }).click();
  await run('EVALSHA 831718c21eb8cace8e6f31e7782a9d8e38ed5600 0');
  await run('EVALSHA 5030cd4f77c2127230df57b0e8e55bcef63222ef 0');
  await run('SCRIPT EXISTS 831718c21eb8cace8e6f31e7782a9d8e38ed5600 5030cd4f77c2127230df57b0e8e55bcef63222ef ffffffffffffffffffffffffffffffffffffffff');
  const text = await waitLog(/SCRIPT EXISTS[^\n]*\n1\) \(integer\) 1\s+2\) \(integer\) 1\s+3\) \(integer\) 0/);
  assert.match(text, /EVALSHA 831718c21eb8cace8e6f31e7782a9d8e38ed5600 0\s+"kept"/);
  assert.match(text, /EVALSHA 5030cd4f77c2127230df57b0e8e55bcef63222ef 0\s+"evaled"/);
  // Forgotten in storage too.
  await run('SCRIPT FLUSH');
  await waitLog(/SCRIPT FLUSH\s+OK/);
  await reload();
  await run('EVALSHA 831718c21eb8cace8e6f31e7782a9d8e38ed5600 0');
  await waitLog(/\(error\) NOSCRIPT No matching script\. Please use EVAL\./);
  // A script loaded after the flush is kept again.
  await run("SCRIPT LOAD \"return 'kept'\"");
  await waitLog(/"831718c21eb8cace8e6f31e7782a9d8e38ed5600"/);
  await reload();
  await run('EVALSHA 831718c21eb8cace8e6f31e7782a9d8e38ed5600 0');
  await waitLog(/"kept"/);
});

test('returning visitor with the service worker installed: EVALSHA works after the reload', async () => {
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 20_000 });
  await run('SCRIPT LOAD "return redis.call(\'INCR\', KEYS[1])"');
  const text = await waitLog(/"[0-9a-f]{40}"\s*$/);
  const got = /"([0-9a-f]{40})"\s*$/.exec(text)[1];
  await reload();
  assert.ok(await page.evaluate(() => navigator.serviceWorker.controller !== null), 'served by the worker');
  await run(`EVALSHA ${got} 1 visits`);
  await run(`EVALSHA ${got} 1 visits`);
  await waitLog(new RegExp(`EVALSHA ${got} 1 visits\\s+\\(integer\\) 1\\s+127\\.0\\.0\\.1:6379> EVALSHA ${got} 1 visits\\s+\\(integer\\) 2`));
  assert.deepEqual(browser.errors, []);
});

test('returning visitor: a FUNCTION LOADed library is data — FCALL works after a reload, FUNCTION DELETE lasts', async () => {
  await run(
    'FUNCTION LOAD "#!lua name=visits\\nredis.register_function(\'hit\', function(keys) return redis.call(\'INCR\', keys[1]) end)"',
  );
  await waitLog(/FUNCTION LOAD[^\n]*\n"visits"/);
  await run('FCALL hit 1 fcount');
  await waitLog(/FCALL hit 1 fcount\s+\(integer\) 1/);
  await reload();
  await run('FCALL hit 1 fcount');
  await waitLog(/FCALL hit 1 fcount\s+\(integer\) 2/);
  await run('FUNCTION DELETE visits');
  await waitLog(/FUNCTION DELETE visits\s+OK/);
  await reload();
  await run('FCALL hit 1 fcount');
  await waitLog(/FCALL hit 1 fcount\s+\(error\) ERR Function not found/);
});

test('a runaway script never freezes the page: another pane gets BUSY, SCRIPT KILL and Ctrl+C stop it', async () => {
  await page.setViewportSize({ width: 1366, height: 850 });
  await page.getByRole('button', { name: '+ Client' }).click();
  const one = page.getByRole('region', { name: 'client 1' });
  const two = page.getByRole('region', { name: 'client 2' });
  const box = (p) => p.getByRole('textbox', { name: /^(Command|命令)$/ });
  const type = async (p, line) => {
    await box(p).fill(line);
    await box(p).press('Enter');
  };
  const waitIn = async (p, re, timeout = 10_000) => {
    const deadline = Date.now() + timeout;
    for (;;) {
      const text = await p.getByRole('log').innerText();
      if (re.test(text)) return text;
      if (Date.now() > deadline) assert.fail(`no ${re} in:\n${text}`);
      await page.waitForTimeout(50);
    }
  };
  await box(two).waitFor();
  await type(one, 'CONFIG SET busy-reply-threshold 300');
  await waitIn(one, /CONFIG SET busy-reply-threshold 300\s+OK/);
  await type(one, 'EVAL "while true do end" 0');
  await one.locator('.pane-status.blocked').waitFor();
  // The page keeps answering while the script runs.
  const t0 = Date.now();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  assert.ok(Date.now() - t0 < 1_000, `a frame took ${Date.now() - t0} ms`);
  // Past busy-reply-threshold another client gets redis-server's BUSY…
  await type(two, 'PING');
  await waitIn(two, /PING\s+\(error\) BUSY Redis is busy running a script\. You can only call SCRIPT KILL or SHUTDOWN NOSAVE\./);
  // …and SCRIPT KILL stops the script, whose caller gets redis-server's error.
  await type(two, 'SCRIPT KILL');
  await waitIn(two, /SCRIPT KILL\s+OK/);
  await waitIn(
    one,
    /\(error\) ERR Script killed by user with SCRIPT KILL\.\.\. script: 694a5fe1ddb97a4c6a1bf299d9537c7d3d0f84e7, on @user_script:1\./,
  );
  await one.locator('.pane-status.blocked').waitFor({ state: 'detached' });
  // Ctrl+C in the script's own pane asks it to stop the same way.
  await type(one, 'EVAL "while true do end" 0');
  await one.locator('.pane-status.blocked').waitFor();
  await box(one).press('Control+c');
  await waitIn(one, /\^C \(asked the script to stop, as SCRIPT KILL does: its error reply follows\)/);
  await one.locator('.pane-status.blocked').waitFor({ state: 'detached' });
  await type(two, 'PING');
  await waitIn(two, /SCRIPT KILL\s+OK[\s\S]*PING\s+PONG/);
});
