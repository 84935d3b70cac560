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
import { open } from './lib.mjs';

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

test('no errors in the page', () => {
  assert.deepEqual(pageErrors, []);
});
