// The split release build (scripts/split.mjs, tools/wasm-split, src/ui/split.rs): the first
// load carries the primary module only, the secondary arrives after the console is
// interactive, and a command that needs it before then still runs.
//
//   node --test tests/e2e/split.test.mjs     (after `trunk build --release`)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dist, open, recordReady } from './lib.mjs';

const html = await readFile(join(dist, 'index.html'), 'utf8');
const cold = html.match(/<meta name="kvlab-split" content="\.\/([^"]+)"/)?.[1];

const command = (page) => page.getByRole('textbox', { name: 'Command', exact: true }).first();

async function run(page, line) {
  await command(page).fill(line);
  await command(page).press('Enter');
}

/** Resolves when the log shows `text`. */
const shows = (page, text) =>
  page.waitForFunction((t) => (document.querySelector('[role="log"]')?.innerText ?? '').includes(t), text, {
    timeout: 15_000,
  });

test('a release build is split, and index.html names the secondary module', async () => {
  assert.ok(cold, 'index.html has <meta name="kvlab-split">');
  assert.match(cold, /^kvlab-web-cold-[0-9a-f]{16}\.wasm$/);
  const sw = await readFile(join(dist, 'sw.js'), 'utf8');
  assert.ok(sw.includes(`./${cold}`), 'the service worker precaches it');
});

test('the background load of the secondary module starts after the console is interactive', async (t) => {
  const app = await open();
  try {
    const { page } = app;
    await recordReady(page);
    await page.goto(app.url);
    await command(page).waitFor();
    // The background load is a fetch. A boot that met a function its build's start-up
    // profile missed loads the module at once instead, with a synchronous request, and
    // then fetches nothing: rare, and counted by bench/web.mjs rather than failed here.
    const loaded = (name) => {
      const r = performance.getEntriesByType('resource').find((e) => e.name.endsWith(name));
      return r && { start: r.startTime, by: r.initiatorType };
    };
    await page.waitForFunction(loaded, cold);
    const { start, by } = await page.evaluate(loaded, cold);
    const ready = await page.evaluate(() => window.__kvlabReady);
    if (by === 'fetch') {
      assert.ok(start >= ready, `secondary requested at ${start} ms, console ready at ${ready} ms`);
    } else {
      assert.equal(by, 'xmlhttprequest');
      t.diagnostic(`this boot loaded the secondary at once (synchronous request at ${start} ms)`);
    }
    // Commands start-up never ran work, and so does a walkthrough.
    await run(page, 'ZADD board 1 ann 2 bob');
    await run(page, 'ZRANGE board 0 -1 WITHSCORES');
    await shows(page, '4) "2"');
    assert.deepEqual(app.errors, []);
  } finally {
    await app.close();
  }
});

test('a command before the secondary module arrives loads it at once and runs', async () => {
  // Without the service worker: once it claims the page (its install can finish before the
  // background load starts), it answers the fetch from its cache, past the route that holds
  // the load back, and the commands then find the module already there.
  const app = await open({ serviceWorkers: 'block' });
  try {
    const { page } = app;
    // Hold the background load back for the whole test; let a synchronous request through.
    const requests = [];
    let release;
    const held = new Promise((ok) => (release = ok));
    await page.route(`**/${cold}`, async (route) => {
      requests.push(route.request().resourceType());
      if (route.request().resourceType() === 'fetch') await held;
      await route.continue();
    });
    await page.goto(app.url);
    await command(page).waitFor();
    await run(page, 'HSET user:1 name ann visits 3');
    await run(page, 'HINCRBY user:1 visits 1');
    await shows(page, '(integer) 4');
    // Routing sees the synchronous request most times but not every time (Chromium can
    // send it past the interception); the page's resource timing always records it.
    const loads = await page.evaluate(
      (name) => performance.getEntriesByType('resource').filter((r) => r.name.endsWith(name)).map((r) => r.initiatorType),
      cold,
    );
    assert.ok(
      requests.includes('xhr') || loads.includes('xmlhttprequest'),
      `a synchronous request fetched it (routed: ${requests}; loads: ${loads})`,
    );
    release();
    assert.deepEqual(
      app.errors.filter((e) => !/net::ERR_ABORTED/.test(e)),
      [],
    );
  } finally {
    await app.close();
  }
});
