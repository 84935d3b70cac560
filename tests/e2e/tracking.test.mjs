// End-to-end test of client-side caching in the console: a pane with CLIENT TRACKING on
// shows, labelled, the invalidations it receives when another pane writes a key it read,
// after its own write's reply, and for a flush; in both languages.
//
//   node --test tests/e2e/tracking.test.mjs      (after `trunk build --release`)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open } from './lib.mjs';

let app, page;

before(async () => {
  app = await open();
  page = app.page;
  await page.goto(app.url);
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

async function waitFor(locator, re, timeout = 5_000) {
  const end = Date.now() + timeout;
  for (;;) {
    const texts = await locator.allInnerTexts();
    if (texts.some((t) => re.test(t))) return texts;
    if (Date.now() > end) assert.fail(`${re} not in:\n${texts.join('\n---\n')}`);
    await page.waitForTimeout(50);
  }
}

test('a tracking pane shows the invalidations it receives, labelled', async () => {
  await page.getByRole('button', { name: '+ Client' }).click();
  const one = pane('client 1');
  const two = pane('client 2');
  await box(two).waitFor();
  for (const line of ['HELLO 3', 'CLIENT TRACKING on', 'GET cached']) await run(one, line);
  await waitFor(one.getByRole('log'), /GET cached\s+\(nil\)/);

  const marks = one.locator('.invalidation');
  await run(two, 'SET cached 1');
  let texts = await waitFor(marks, /-> invalidate: 'cached'/);
  assert.match(texts.at(-1), /^cache invalidated\s+-> invalidate: 'cached'$/);
  assert.match(await marks.last().getAttribute('title'), /CLIENT TRACKING/);

  // Its own write: the reply, then the invalidation below it.
  await run(one, 'GET mine');
  await run(one, 'SET mine 2');
  texts = await waitFor(marks, /-> invalidate: 'mine'/);
  assert.match(await one.getByRole('log').innerText(), /SET mine 2\s+OK\s+cache invalidated\s+-> invalidate: 'mine'/);

  // A flush: the whole cache at once.
  await run(two, 'FLUSHALL');
  // Waits for the whole entry: on a busy machine its label can paint a frame before the push.
  texts = await waitFor(marks, /whole cache invalidated[\s\S]*1\) "invalidate"\s+2\) \(nil\)/);
  assert.match(texts.at(-1), /1\) "invalidate"\s+2\) \(nil\)/);
  assert.equal(await one.locator('.invalidation.flush').count(), 1);
});

test('the labels speak Chinese in zh-CN', async () => {
  await page.getByRole('button', { name: /Switch language to Chinese/ }).click();
  const one = pane('客户端 1');
  const two = pane('客户端 2');
  await box(one).waitFor();
  // What is shown already switches language too.
  await waitFor(one.locator('.invalidation.flush'), /^缓存全部失效/);
  await run(one, 'GET k');
  await run(two, 'SET k 1');
  const texts = await waitFor(one.locator('.invalidation'), /-> invalidate: 'k'/);
  assert.match(texts.at(-1), /^缓存失效\s+-> invalidate: 'k'$/);
});
