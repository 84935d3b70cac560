// Memory per element in the browser: the growth of kvlab's wasm memory in headless Chromium
// for the loads of bench/memory.py (issue 20), to read beside that script's native figures.
//
//   node bench/memory.mjs [--scale 1]
//
// Builds the engine alone for the browser as bench/peer.mjs does (the kvlab-bench-peer
// binary: the engine and one client, no app around it), then for each workload opens a
// fresh page (a wasm memory never shrinks, so each load gets its own), records
// `memory.buffer.byteLength`, runs the load through bench/peer/kvlab.mjs (packed words in,
// a RESP reply out, as bench/peer.mjs calls the engine), and reports the
// growth per element, with the engine's own INFO used_memory per element beside it. The
// memory grows in 64 KB pages and dlmalloc keeps what it frees, so the figure is what the
// tab holds after the load, peaks included.

import { execFileSync } from 'node:child_process';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const SCALE = arg('scale', 1);
const site = join(root, 'target', 'bench-memory');
const run = (cmd, args) => execFileSync(cmd, args, { stdio: 'inherit', cwd: root });

console.log('building the engine for the browser (release)…');
run('cargo', ['build', '--release', '--quiet', '--target', 'wasm32-unknown-unknown', '--bin', 'kvlab-bench-peer']);
await mkdir(site, { recursive: true });
run('wasm-bindgen', ['--target', 'web', '--out-dir', join(site, 'pkg'),
  join(root, 'target', 'wasm32-unknown-unknown', 'release', 'kvlab-bench-peer.wasm')]);
await cp(join(root, 'bench', 'peer', 'kvlab.mjs'), join(site, 'kvlab.mjs'));
await writeFile(join(site, 'index.html'), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>kvlab memory</title>\n');

process.env.KVLAB_DIST = site;
const { serveDist, launch } = await import('../tests/e2e/lib.mjs');
const server = await serveDist();
const browser = await launch();
const { context, errors } = browser;

const workloads = [
  { name: 'strings', label: '1M strings key:N -> 10 bytes', n: Math.round(1_000_000 * SCALE), per: 1 },
  { name: 'hashes', label: '100k hashes x 10 fields (per field)', n: Math.round(100_000 * SCALE), per: 10 },
  { name: 'zset', label: 'one zset, 500k members', n: Math.round(500_000 * SCALE), per: 1 },
  { name: 'lists', label: 'one list, 1M elements', n: Math.round(1_000_000 * SCALE), per: 1 },
  { name: 'smalllists', label: '100k lists x 10 (per element)', n: Math.round(100_000 * SCALE), per: 10 },
];

console.log(`\n${'workload'.padEnd(38)} ${'wasm B/el'.padStart(10)} ${'used_memory B/el'.padStart(17)}`);
for (const w of workloads) {
  const page = await context.newPage();
  await page.goto(server.url);
  const r = await page.evaluate(async ({ name, n }) => {
    const kv = await import('./pkg/kvlab-bench-peer.js');
    const wasm = await kv.default();
    const { Kvlab } = await import('./kvlab.mjs');
    const engine = new Kvlab(wasm, kv.BenchEngine);
    const used = () => Number(/used_memory:(\d+)/.exec(engine.call(['INFO', 'memory']))[1]);
    const before = wasm.memory.buffer.byteLength;
    const usedBefore = used();
    const v = 'x'.repeat(10);
    for (let i = 0; i < n; i++) {
      if (name === 'strings') engine.call(['SET', `key:${i}`, v]);
      else if (name === 'hashes') {
        const argv = ['HSET', `h:${i}`];
        for (let f = 0; f < 10; f++) argv.push(`f${f}`, `v${f}`);
        engine.call(argv);
      } else if (name === 'zset') engine.call(['ZADD', 'z', String((i * 7919) % 1_000_003), `member:${i}`]);
      else if (name === 'lists') engine.call(['RPUSH', 'l', `item:${i}`]);
      else {
        const argv = ['RPUSH', `l:${i}`];
        for (let e = 0; e < 10; e++) argv.push(`e${e}`);
        engine.call(argv);
      }
    }
    return { grown: wasm.memory.buffer.byteLength - before, used: used() - usedBefore };
  }, w);
  const elements = w.n * w.per;
  console.log(`${w.label.padEnd(38)} ${(r.grown / elements).toFixed(1).padStart(10)} ${(r.used / elements).toFixed(1).padStart(17)}`);
  await page.close();
}
if (errors.length) console.log('\npage errors:', errors.join('\n'));
await browser.close();
await new Promise((ok) => server.close(ok));
