// The script debugger (issue 19): the editor's Debug button runs the script under the
// debugger; Step (F10 or the button) stops before each line, with the line highlighted,
// KEYS, ARGV and the locals in a table and each redis.call with its reply; Continue (F8)
// runs it to its end and the pane's log shows the reply exactly as EVAL prints it; Stop
// (Esc) ends it there, keeping what it wrote, and the pane works on. The script's reply was
// recorded from redis-server 7.0.15:
//
//   redis-cli --no-raw -p 6399 EVAL "local n = redis.call('INCRBY', KEYS[1], ARGV[1])
//   local doubled = n * 2
//   redis.call('SET', 'last', doubled)
//   return {n, doubled}" 1 dbg:counter 5
//   1) (integer) 5
//   2) (integer) 10
//
//   node --test tests/e2e/debugger.test.mjs     (after `trunk build --release`)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { open } from './lib.mjs';

const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
let browser, page;

before(async () => {
  browser = await open();
  page = browser.page;
  await page.goto(`${browser.url}?ws=e2e-debugger`);
  await command().waitFor({ timeout: 20_000 });
});

after(async () => {
  await browser?.close();
});

const LINES = [
  "local n = redis.call('INCRBY', KEYS[1], ARGV[1])",
  'local doubled = n * 2',
  "redis.call('SET', 'last', doubled)",
  'return {n, doubled}',
];
const SCRIPT = LINES.join('\n');

const command = () => page.getByRole('textbox', { name: 'Command', exact: true });
const log = () => page.getByRole('log');
const debuggerView = () => page.getByRole('group', { name: 'Script debugger' });

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Waits until the log's text matches `re`; returns the text. */
async function waitLog(re, timeout = 10_000) {
  await page.waitForFunction((src) => new RegExp(src).test(document.querySelector('[role="log"]')?.innerText ?? ''), re.source, {
    timeout,
  });
  return log().innerText();
}

/** Where the debugger stands: the highlighted line (number and text), the locals, the calls. */
async function where() {
  const d = debuggerView();
  await d.waitFor({ timeout: 5_000 });
  const current = d.locator('li[aria-current="step"]');
  assert.equal(await current.count(), 1, 'one line is highlighted');
  const all = await d.locator('.debug-line').allInnerTexts();
  const line = (await d.locator('.debug-line').evaluateAll((els) => els.findIndex((e) => e.getAttribute('aria-current') === 'step'))) + 1;
  const rows = await d.getByRole('table', { name: 'Locals' }).locator('tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.children].map((c) => c.innerText.trim()).join('=')),
  );
  const calls = await d.getByRole('region', { name: 'Calls' }).locator('li').evaluateAll((lis) =>
    lis.map((li) => [...li.children].map((c) => c.innerText.trim()).join(' | ')),
  );
  return {
    line,
    text: (await current.locator('code').innerText()).replace(/\u200b/g, ''),
    lines: all.length,
    status: await d.getByRole('status').innerText(),
    rows,
    calls,
  };
}

async function openEditor() {
  if ((await page.getByRole('group', { name: 'Lua script' }).count()) === 0) {
    await page.getByRole('button', { name: 'Lua script' }).click();
  }
  return page.getByRole('group', { name: 'Lua script' });
}

test('Debug steps through the script: the line, the locals and each call, then Continue prints the reply', async () => {
  const editor = await openEditor();
  const code = editor.getByRole('textbox', { name: 'Lua script' });
  await code.fill('');
  for (const [i, l] of LINES.entries()) {
    if (i) await code.press('Enter');
    await code.pressSequentially(l);
  }
  assert.equal(await code.inputValue(), SCRIPT);
  await editor.getByRole('textbox', { name: 'Keys (KEYS)' }).fill('dbg:counter');
  await editor.getByRole('textbox', { name: 'Arguments (ARGV)' }).fill('5');
  await editor.getByRole('button', { name: 'Debug', exact: true }).click();

  let at = await where();
  assert.equal(at.lines, 4);
  assert.deepEqual([at.line, at.text, at.status], [1, LINES[0], 'Stopped before line 1']);
  assert.deepEqual(at.rows, ['KEYS[1]="dbg:counter"', 'ARGV[1]="5"']);
  assert.deepEqual(at.calls, []);
  assert.ok(await debuggerView().evaluate((el) => el.contains(document.activeElement)), 'the debugger has the focus');
  // The EVAL line is echoed as EVAL would be; its reply has not come yet.
  const echo = `EVAL "${SCRIPT}" 1 dbg:counter 5`;
  assert.ok((await log().innerText()).includes(echo));

  // Accessible names for everything in it.
  await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document.querySelector('.debugger'), { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')} ${n.failureSummary}`).join(' | ')}`);
  });
  assert.deepEqual(found, []);

  await page.keyboard.press('F10');
  await page.waitForFunction(() => document.querySelector('.debugger li[aria-current="step"] .debug-ln')?.textContent === '2');
  at = await where();
  assert.deepEqual([at.line, at.text], [2, LINES[1]]);
  assert.deepEqual(at.rows, ['KEYS[1]="dbg:counter"', 'ARGV[1]="5"', 'n=5']);
  assert.deepEqual(at.calls, ['line 1 | INCRBY dbg:counter 5 | (integer) 5']);

  await debuggerView().getByRole('button', { name: 'Step', exact: true }).click();
  await page.waitForFunction(() => document.querySelector('.debugger li[aria-current="step"] .debug-ln')?.textContent === '3');
  at = await where();
  assert.deepEqual([at.line, at.text], [3, LINES[2]]);
  assert.deepEqual(at.rows.slice(2), ['n=5', 'doubled=10']);

  await page.keyboard.press('F10');
  await page.waitForFunction(() => document.querySelector('.debugger li[aria-current="step"] .debug-ln')?.textContent === '4');
  at = await where();
  assert.deepEqual([at.line, at.text], [4, LINES[3]]);
  assert.deepEqual(at.calls, ['line 1 | INCRBY dbg:counter 5 | (integer) 5', 'line 3 | SET last 10 | OK']);

  await page.keyboard.press('F8');
  await debuggerView().waitFor({ state: 'detached', timeout: 5_000 });
  const text = await waitLog(/1\) \(integer\) 5\s+2\) \(integer\) 10/);
  assert.match(text, new RegExp(`${escape(echo)}\\s+1\\) \\(integer\\) 5\\s+2\\) \\(integer\\) 10`));
  // The editor is back, with the script.
  assert.equal(await (await openEditor()).getByRole('textbox', { name: 'Lua script' }).inputValue(), SCRIPT);
});

test('Stop (Esc) ends the script where it is, keeps its write, and the pane works on', async () => {
  const editor = await openEditor();
  await editor.getByRole('button', { name: 'Debug', exact: true }).click();
  await where();
  await page.keyboard.press('F10');
  await page.waitForFunction(() => document.querySelector('.debugger li[aria-current="step"] .debug-ln')?.textContent === '2');
  assert.deepEqual((await where()).calls, ['line 1 | INCRBY dbg:counter 5 | (integer) 10']);
  await page.keyboard.press('Escape');
  await debuggerView().waitFor({ state: 'detached', timeout: 5_000 });
  await waitLog(/\(error\) ERR script aborted for user request script: [0-9a-f]{40}, on @user_script:2\./);
  await command().fill('GET dbg:counter');
  await command().press('Enter');
  await waitLog(/> GET dbg:counter\s+"10"/);
  await command().fill('GET last');
  await command().press('Enter');
  await waitLog(/> GET last\s+"10"/);
});
