// How much of the app's wasm a first session needs: a measurement for issue #5's
// first-load aim, not part of the build or of CI.
//
//   WASM_SPLIT=/path/to/wasm-split node bench/split.mjs
//
// Binaryen's wasm-split splits a module into a primary module and a secondary one that
// can load later, guided by a profile of the functions a run called. This script
//   1. instruments the release wasm in dist/ (`wasm-split --instrument`),
//   2. serves a copy of dist/ with it and, in headless Chromium, boots the app and runs a
//      first session: the commands below, typed in the console, then each key opened in
//      the browser (and, as a second profile, start-up alone),
//   3. reads the profile out of the module (`__write_profile`) and splits the original
//      module with it,
//   4. prints the gzip -9 size of the original, the primary and the secondary module.
//
// Nothing here ships: the app has no loader for a secondary module (wasm-bindgen has
// none), and no package registry we install from has a wasm-split that reads this module
// (Debian's binaryen 108 stops at `table.fill`; npm's binaryen has no wasm-split), so
// WASM_SPLIT is a wasm-split built from Binaryen's source (checked with the main branch
// of 2026-11, which needs `--disable-compact-imports` for browsers of today).

import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const split = process.env.WASM_SPLIT;
if (!split) {
  console.error('set WASM_SPLIT to a wasm-split binary (see the top of this file)');
  process.exit(2);
}
const dist = resolve(process.env.KVLAB_DIST ?? 'dist');
const work = await mkdtemp(join(tmpdir(), 'kvlab-split-'));
const site = join(work, 'dist');
await cp(dist, site, { recursive: true });
const wasmName = (await readdir(site)).find((f) => /^kvlab-web-.*_bg\.wasm$/.test(f));
if (!wasmName) throw new Error(`no kvlab-web wasm in ${dist}: run \`trunk build --release\``);
const original = join(work, 'original.wasm');
await cp(join(site, wasmName), original);
const features = ['-all', '--disable-compact-imports'];
const run = (args) => execFileSync(split, [...features, ...args], { stdio: 'inherit' });
run(['--instrument', original, '-o', join(site, wasmName)]);

// lib.mjs reads KVLAB_DIST when it is imported.
process.env.KVLAB_DIST = site;
const { open } = await import('../tests/e2e/lib.mjs');

const SESSION = [
  'SET greeting hello', 'GET greeting', 'INCR counter', 'LPUSH jobs a b c', 'LRANGE jobs 0 -1',
  'SADD tags ruby web', 'SMEMBERS tags', 'ZADD board 1 ann 2 bob',
  'ZRANGE board 0 -1 WITHSCORES', 'HSET user:1 name ann', 'HGETALL user:1',
  'EXPIRE greeting 100', 'TTL greeting', 'KEYS *', 'DEL counter', 'HELP SET',
];
const OPENED = ['greeting', 'jobs', 'tags', 'board', 'user'];

/** Boots the app, runs `lines` and opens `keys`, and returns the module's profile. */
async function profile(lines, keys) {
  const app = await open();
  try {
    const { page } = app;
    await page.addInitScript(() =>
      addEventListener('TrunkApplicationStarted', (e) => {
        window.kvlabWasm = e.detail.wasm;
      }),
    );
    await page.goto(app.url);
    const box = page.getByRole('region', { name: 'client 1' }).getByRole('textbox', { name: 'Command' });
    await box.waitFor({ timeout: 15_000 });
    for (const line of lines) {
      await box.fill(line);
      await box.press('Enter');
      await page.waitForTimeout(50);
    }
    for (const name of keys) {
      await page.getByRole('treeitem', { name }).first().click();
      await page.waitForTimeout(100);
    }
    await page.waitForTimeout(300);
    const bytes = await page.evaluate(() => {
      const w = window.kvlabWasm;
      // Fresh pages past the allocator's heap: the profile is written there.
      const pages = 16;
      const at = w.memory.grow(pages) * 65536;
      const n = w.__write_profile(at, pages * 65536);
      return Array.from(new Uint8Array(w.memory.buffer, at, n));
    });
    if (app.errors.length) throw new Error(`page errors: ${app.errors.join('; ')}`);
    return Buffer.from(bytes);
  } finally {
    await app.close();
  }
}

const gz = async (f) => gzipSync(await readFile(f), { level: 9 }).length;
// KB of 1024 bytes, as bench/web.mjs counts them.
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
console.log(`original module: ${kb(await gz(original))} gzip`);
for (const [label, lines, keys] of [
  ['start-up only', [], []],
  [`first session (${SESSION.length} commands, ${OPENED.length} keys opened)`, SESSION, OPENED],
]) {
  const prof = join(work, 'profile');
  await writeFile(prof, await profile(lines, keys));
  const [p, s] = [join(work, 'primary.wasm'), join(work, 'secondary.wasm')];
  run(['--export-prefix=%', `--profile=${prof}`, original, '-o1', p, '-o2', s]);
  console.log(`${label}: primary ${kb(await gz(p))}, secondary ${kb(await gz(s))} gzip`);
}
await rm(work, { recursive: true, force: true });
