// End-to-end tests of persistence (src/persist, docs/persistence.md): the release build in
// dist/ served over HTTP, driven in headless Chromium through the console only — the
// textbox named "Command" and the output (role=log) — so they outlive UI rewrites.
//
//   node --test tests/e2e/persist.test.mjs      (after `trunk build --release`)
//
// Each test gets its own browser profile (its own IndexedDB) and workspace. The crash test
// starts Chromium itself, connects over CDP, and SIGKILLs the whole browser process group
// right after the replies are painted (writes and a SCRIPT LOAD), then starts it again on the
// same profile.
//
// Environment: KVLAB_DIST, CHROMIUM as in console.test.mjs; KVLAB_CRASH_TRIALS (default 5).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, runLine, serveDist } from './lib.mjs';

const CHROME = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARGS = CHROMIUM_ARGS;

let server, base;
const profiles = [];

before(async () => {
  server = await serveDist();
  base = server.url;
});

after(async () => {
  await new Promise((ok) => server.close(ok));
  for (const p of profiles) await rm(p, { recursive: true, force: true });
});

async function newProfile() {
  const p = await mkdtemp(join(tmpdir(), 'kvlab-persist-'));
  profiles.push(p);
  return p;
}

/** A browser on `profile` (playwright's persistent context). */
async function launch(profile, initScript) {
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROME,
    args: ARGS,
    locale: 'en-US',
    // The tampering helpers below build functions from source inside the page, which the
    // app's CSP forbids (as it should); the test, not the app, needs the exemption.
    bypassCSP: true,
  });
  if (initScript) await context.addInitScript(initScript);
  const page = context.pages()[0] ?? (await context.newPage());
  return { context, page };
}

/** Opens workspace `ws` and waits until the console is ready (persistence opened). */
async function open(page, ws) {
  await page.goto(`${base}?ws=${encodeURIComponent(ws)}`);
  await page.getByRole('textbox', { name: 'Command', exact: true }).waitFor();
  await page.waitForFunction(() => document.documentElement.hasAttribute('data-persist'));
}

const run = (page, line) => runLine(page, line);

/** Resolves after the next frame has been painted. */
const painted = (page) =>
  page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0))));

const mode = (page) => page.evaluate(() => document.documentElement.dataset.persist);
const banner = (page) => page.evaluate(() => document.getElementById('persist-status')?.innerText ?? '');

/** Waits until every write has been committed (the appended counter stops moving). */
async function settled(page, appended) {
  await page.waitForFunction(
    (n) => Number(document.documentElement.dataset.persistAppended) >= n,
    appended,
  );
}

test('writes survive a reload', async () => {
  const { context, page } = await launch(await newProfile());
  await open(page, 'reload');
  assert.equal(await mode(page), 'saved');
  assert.equal(await run(page, 'SET greeting hello'), 'OK');
  assert.equal(await run(page, 'RPUSH l a b c'), '(integer) 3');
  assert.equal(await run(page, 'HSET h f v'), '(integer) 1');
  assert.equal(await run(page, 'ZADD z 1.5 m'), '(integer) 1');
  assert.equal(await run(page, 'SELECT 3'), 'OK');
  assert.equal(await run(page, 'SADD s x y'), '(integer) 2');
  assert.equal(await run(page, 'INCR n'), '(integer) 1');
  await page.reload();
  await page.waitForFunction(() => document.documentElement.hasAttribute('data-persist'));
  assert.equal(await run(page, 'GET greeting'), '"hello"');
  assert.equal(await run(page, 'LRANGE l 0 -1'), '1) "a"\n2) "b"\n3) "c"');
  assert.equal(await run(page, 'HGET h f'), '"v"');
  assert.equal(await run(page, 'ZSCORE z m'), '"1.5"');
  assert.equal(await run(page, 'SELECT 3'), 'OK');
  assert.equal(await run(page, 'SMEMBERS s').then((t) => t.split('\n').length), 2);
  assert.equal(await run(page, 'GET n'), '"1"');
  await context.close();
});

test('workspaces are separate datasets', async () => {
  const { context, page } = await launch(await newProfile());
  await open(page, 'one');
  await run(page, 'SET where one');
  await open(page, 'two');
  assert.equal(await run(page, 'GET where'), '(nil)');
  await run(page, 'SET where two');
  await open(page, 'one');
  assert.equal(await run(page, 'GET where'), '"one"');
  await context.close();
});

test('a key that expired while the page was closed is gone on return', async () => {
  const profile = await newProfile();
  let { context, page } = await launch(profile);
  await open(page, 'ttl');
  await run(page, 'SET short v PX 1500');
  await run(page, 'SET long v EX 1000');
  await run(page, 'SET forever v');
  await settled(page, 3);
  await context.close();
  await new Promise((ok) => setTimeout(ok, 2000));
  ({ context, page } = await launch(profile));
  await open(page, 'ttl');
  assert.equal(await run(page, 'EXISTS short long forever'), '(integer) 2');
  assert.equal(await run(page, 'DBSIZE'), '(integer) 2');
  const ttl = Number((await run(page, 'TTL long')).replace('(integer) ', ''));
  assert.ok(ttl > 990 && ttl <= 1000, `TTL ${ttl}`);
  await context.close();
});

test('without IndexedDB (private mode, blocked) the app works in memory and says so', async () => {
  const { context, page } = await launch(await newProfile(), () => {
    Object.defineProperty(window, 'indexedDB', { value: undefined, configurable: true });
  });
  await open(page, 'private');
  assert.equal(await mode(page), 'memory');
  assert.match(await banner(page), /works in memory and nothing\s+will be saved/);
  assert.equal(await run(page, 'SET k v'), 'OK');
  assert.equal(await run(page, 'GET k'), '"v"');
  await context.close();
});

// --- Tampering with the stored data from the page (same origin), then reloading. -------

/** Runs `fn(db)` on the workspace's IndexedDB database inside the page. */
function withDb(page, ws, fn) {
  return page.evaluate(
    async ([name, src]) => {
      const db = await new Promise((ok, fail) => {
        const r = indexedDB.open(name);
        r.onsuccess = () => ok(r.result);
        r.onerror = () => fail(r.error);
      });
      const f = new Function('db', `return (${src})(db)`);
      try {
        return await f(db);
      } finally {
        db.close();
      }
    },
    ['kvlab-ws-' + ws, fn.toString()],
  );
}

test('a corrupted log record is reported and everything before it is recovered', async () => {
  const { context, page } = await launch(await newProfile());
  await open(page, 'corrupt');
  for (const k of ['a', 'b', 'c']) {
    await run(page, `SET ${k} ${k}`);
    await settled(page, ['a', 'b', 'c'].indexOf(k) + 1);
  }
  // Flip a byte in the middle of the last record.
  const seq = await withDb(page, 'corrupt', async (db) => {
    const tx = db.transaction('log', 'readwrite');
    const store = tx.objectStore('log');
    const keys = await new Promise((ok) => (store.getAllKeys().onsuccess = (e) => ok(e.target.result)));
    const last = keys[keys.length - 1];
    const bytes = await new Promise((ok) => (store.get(last).onsuccess = (e) => ok(e.target.result)));
    bytes[Math.floor(bytes.length / 2)] ^= 0xff;
    store.put(bytes, last);
    await new Promise((ok) => (tx.oncomplete = ok));
    return last;
  });
  await page.reload();
  await page.waitForFunction(() => document.documentElement.hasAttribute('data-persist'));
  assert.match(await banner(page), new RegExp(`log record ${seq} is corrupt`));
  assert.equal(await run(page, 'MGET a b c'), '1) "a"\n2) "b"\n3) (nil)');
  // The damaged record was set aside and new writes are kept after it.
  assert.equal(await run(page, 'SET d d'), 'OK');
  await settled(page, 1);
  const quarantined = await withDb(page, 'corrupt', (db) =>
    new Promise((ok) => (db.transaction('quarantine').objectStore('quarantine').count().onsuccess = (e) => ok(e.target.result))),
  );
  assert.equal(quarantined, 1);
  await page.reload();
  await page.waitForFunction(() => document.documentElement.hasAttribute('data-persist'));
  assert.equal(await banner(page), '');
  assert.equal(await run(page, 'MGET a b c d'), '1) "a"\n2) "b"\n3) (nil)\n4) "d"');
  await context.close();
});

/** CRC-32 as zlib computes it. */
const CRC_SRC = `(b) => { let c = ~0; for (const x of b) { c ^= x; for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; } return ~c >>> 0; }`;

test('a version 0 snapshot is migrated on load', async () => {
  const { context, page } = await launch(await newProfile());
  await open(page, 'migrate');
  await withDb(page, 'migrate', new Function('db', `
    const crc = ${CRC_SRC};
    const out = [];
    const u32 = (n) => [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255];
    const i64 = (n) => { const b = new Uint8Array(8); new DataView(b.buffer).setBigInt64(0, BigInt(n), true); return [...b]; };
    const head = [...new TextEncoder().encode('KVLS'), 0, 0, ...i64(Date.now()), ...i64(0)];
    out.push(...head, ...u32(crc(head)));
    const str = (s) => { const b = new TextEncoder().encode(s); return [b.length, ...b]; };
    // Version 0: no encoding flags. A string and an intset.
    const chunk = [2, 0, ...str('old'), 0, 0, ...str('12345'), 0, ...str('nums'), 2, 0, 2, ...str('1'), ...str('2')];
    out.push(...u32(chunk.length), ...u32(crc(chunk)), ...chunk, 0, 0, 0, 0);
    return new Promise((ok) => {
      const tx = db.transaction(['meta'], 'readwrite');
      tx.objectStore('meta').put(new Uint8Array(out), 'snapshot');
      tx.oncomplete = () => ok();
    });
  `));
  await page.reload();
  await page.waitForFunction(() => document.documentElement.hasAttribute('data-persist'));
  assert.equal(await banner(page), '');
  assert.equal(await run(page, 'GET old'), '"12345"');
  assert.equal(await run(page, 'OBJECT ENCODING old'), '"int"');
  assert.equal(await run(page, 'OBJECT ENCODING nums'), '"intset"');
  await context.close();
});

test('data from a newer version is refused with a clear message and left untouched', async () => {
  const { context, page } = await launch(await newProfile());
  await open(page, 'newer');
  await run(page, 'SET k v');
  await settled(page, 1);
  const stored = await withDb(page, 'newer', async (db) => {
    const tx = db.transaction('log', 'readwrite');
    const store = tx.objectStore('log');
    const keys = await new Promise((ok) => (store.getAllKeys().onsuccess = (e) => ok(e.target.result)));
    const bytes = await new Promise((ok) => (store.get(keys[0]).onsuccess = (e) => ok(e.target.result)));
    bytes[2] = 99; // version byte
    store.put(bytes, keys[0]);
    await new Promise((ok) => (tx.oncomplete = ok));
    return Array.from(bytes);
  });
  await page.reload();
  await page.waitForFunction(() => document.documentElement.hasAttribute('data-persist'));
  assert.equal(await mode(page), 'refused');
  assert.match(await banner(page), /newer kvlab \(format version 99/);
  assert.equal(await run(page, 'SET other v'), 'OK');
  await painted(page);
  const after = await withDb(page, 'newer', async (db) => {
    const store = db.transaction('log').objectStore('log');
    const all = await new Promise((ok) => (store.getAll().onsuccess = (e) => ok(e.target.result)));
    return all.map((b) => Array.from(b));
  });
  assert.deepEqual(after, [stored]);
  await context.close();
});

// Two tabs of one workspace: tests/e2e/tabs.test.mjs.

// --- Crash: SIGKILL the browser right after the replies are painted. --------------------

/** Starts Chromium on `profile` as our own child (its own process group) and connects. */
async function startOwnBrowser(profile) {
  const child = spawn(CHROME, [...ARGS, `--user-data-dir=${profile}`, '--remote-debugging-port=0', 'about:blank'], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const ws = await new Promise((ok, fail) => {
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      const m = err.match(/DevTools listening on (ws:\/\/\S+)/);
      if (m) ok(m[1]);
    });
    child.on('exit', (code) => fail(new Error(`chromium exited (${code}): ${err}`)));
  });
  const browser = await chromium.connectOverCDP(ws);
  const context = browser.contexts()[0];
  const page = context.pages()[0] ?? (await context.newPage());
  return { child, browser, page };
}

function killGroup(child) {
  const gone = new Promise((ok) => child.once('exit', ok));
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
  return gone;
}

test('writes survive SIGKILL of the browser right after their replies are painted', async () => {
  const trials = Number(process.env.KVLAB_CRASH_TRIALS ?? 5);
  const profile = await newProfile();
  for (let t = 0; t < trials; t++) {
    let { child, page } = await startOwnBrowser(profile);
    await open(page, 'crash');
    for (let i = 0; i < 5; i++) {
      assert.equal(await run(page, `SET t${t}k${i} v${i}`), 'OK');
    }
    assert.equal(await run(page, `INCR counter`), `(integer) ${t + 1}`);
    // A cached script is kept like a write (a learner's scripts survive a reload).
    const script = `return ${t} + 100`;
    const sha = createHash('sha1').update(script).digest('hex');
    assert.equal(await run(page, `SCRIPT LOAD "${script}"`), `"${sha}"`);
    await painted(page);
    await killGroup(child);
    ({ child, page } = await startOwnBrowser(profile));
    await open(page, 'crash');
    const keys = Array.from({ length: 5 }, (_, i) => `t${t}k${i}`).join(' ');
    assert.equal(
      await run(page, `MGET ${keys}`),
      Array.from({ length: 5 }, (_, i) => `${i + 1}) "v${i}"`).join('\n'),
      `trial ${t}`,
    );
    assert.equal(await run(page, 'GET counter'), `"${t + 1}"`, `trial ${t}`);
    assert.equal(await run(page, `EVALSHA ${sha} 0`), `(integer) ${t + 100}`, `trial ${t}`);
    await killGroup(child);
  }
});
