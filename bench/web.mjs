// Web app benchmark in headless Chromium (system binary, playwright-core from tests/e2e).
//
//   trunk build --release && node bench/web.mjs [--keys 100000] [--runs 5]
//
// Measures, on the release build in dist/ served from 127.0.0.1:
//   interactive   navigation start → the command box exists and a PING typed there is answered
//   revisit       the same after a reload once the service worker controls the page
//   load keys     Enter on an MSET of N keys → reply and tree painted (engine + index rebuild)
//   tree          with N keys: switching tree ↔ flat list → next paint (rows rebuilt, rendered)
//   filter        with N keys: typing a glob in the filter → next paint
//   reply         with N keys: Enter on `GET user:1` → the reply painted (keydown → the frame
//                 after the log changed; median of --runs)
//   transfer      gzip -9 sizes (what a server with gzip sends) split into wasm, JS, CSS,
//                 HTML: the console's first load; the secondary wasm module of a split build
//                 (scripts/split.mjs), which the page requests once the console is
//                 interactive (when it asked for it, and when it was in, are measured in the
//                 page); and the rest of dist/ (loaded when used)
//   sync loads    of --boots fresh boots of a split build, how many called a function of
//                 the secondary module before it was in (the profile missed it) and so
//                 loaded it with a synchronous request
// Aims (issue #5): interactive < 1 s, tree < 300 ms, reply within one frame (16 ms),
// transfer < 300 KB gzip.

import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { open, dist, recordReady } from '../tests/e2e/lib.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('keys', 100_000);
const RUNS = arg('runs', 5);
const BOOTS = arg('boots', 20);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(1)} ms`;

// gzip -9 sizes of dist/ split by kind. `first` counts what the console's first load
// fetches: index.html and the files it names (scripts, styles, preloaded wasm, icon,
// manifest), plus anything those scripts import. `later` is the rest of the build
// (the SQL worker and walkthrough files, loaded when a walkthrough opens; the examples;
// sw.js), which the service worker also precaches in the background for offline use.
async function transfer() {
  const kinds = () => ({ wasm: 0, js: 0, css: 0, html: 0, other: 0 });
  const first = kinds();
  const later = kinds();
  const gz = async (f) => gzipSync(await readFile(join(dist, f)), { level: 9 }).length;
  const html = await readFile(join(dist, 'index.html'), 'utf8');
  const cold = html.match(/<meta name="kvlab-split" content="\.\/([^"]+)"/)?.[1];
  const after = kinds();
  const named = new Set(['index.html']);
  const queue = [...html.matchAll(/(?:src|href)="\.?\/?([^"#?:]+)"/g)].map((m) => m[1]);
  while (queue.length) {
    const f = queue.shift();
    if (named.has(f)) continue;
    named.add(f);
    if (f.endsWith('.js')) {
      const body = await readFile(join(dist, f), 'utf8').catch(() => '');
      const dir = f.includes('/') ? f.slice(0, f.lastIndexOf('/') + 1) : '';
      for (const m of body.matchAll(/(?:import|from)\s*\(?\s*['"]\.\/([^'"]+)['"]/g)) queue.push(dir + m[1]);
      for (const m of body.matchAll(/module_or_path:\s*['"]\.\/([^'"]+)['"]/g)) queue.push(dir + m[1]);
    }
  }
  for (const f of await walk('')) {
    const ext = extname(f).slice(1);
    const kind = ext in first ? ext : 'other';
    (named.has(f) ? first : f === cold ? after : later)[kind] += await gz(f);
  }
  for (const s of [first, after, later]) s.total = Object.values(s).reduce((a, b) => a + b, 0);
  return { first, after, later, cold };
}

async function walk(dir) {
  const out = [];
  for (const e of await readdir(join(dist, dir), { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue;
    const f = dir + e.name;
    if (e.isDirectory()) out.push(...(await walk(f + '/')));
    else out.push(f);
  }
  return out;
}

const app = await open({ viewport: { width: 1280, height: 800 } });
const { page } = app;
const results = {};

// 1. Time to an interactive console: when the command box is mounted (its handlers are
// attached in the same step), then checked by running PING.
await recordReady(page);
await page.goto(app.url);
const box = page.getByRole('textbox', { name: 'Command', exact: true }).first();
await box.fill('PING');
await box.press('Enter');
await page.getByRole('log').getByText('PONG', { exact: true }).waitFor();
results.interactive = await page.evaluate(() => window.__kvlabReady);
results.pong = await page.evaluate(() => performance.now());
// A split build's secondary module: when the page asked for it and when it was in.
results.cold = await page.evaluate(() => {
  const meta = document.querySelector('meta[name="kvlab-split"]');
  const name = meta && new URL(meta.content, document.baseURI).href;
  const entry = name && performance.getEntriesByName(name)[0];
  return entry ? { start: entry.startTime, end: entry.responseEnd } : null;
});

// A helper in the page: resolve at the first animation frame after the DOM changed.
await page.evaluate(() => {
  window.__kvlabWatch = (root, start) =>
    new Promise((ok) => {
      const obs = new MutationObserver(() => {
        obs.disconnect();
        const dom = performance.now() - start;
        window.__kvlabDom = dom;
        requestAnimationFrame(() => setTimeout(() => ok(performance.now() - start), 0));
      });
      obs.observe(root, { childList: true, subtree: true, characterData: true, attributes: true });
    });
});

// 2. Load N keys with one MSET, typed into the console.
const words = ['MSET'];
for (let i = 0; i < N; i++) words.push(`user:${i}`, 'v');
await box.fill(words.join(' '));
results.load = await page.evaluate(async () => {
  const input = document.querySelector('input.command');
  // The tree's box (it takes role=tree once it has items).
  const tree = document.querySelector('.browser .tree');
  const start = performance.now();
  const done = window.__kvlabWatch(tree, start);
  input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
  return done;
});
await box.press('Control+l');
await page.getByRole('tree').getByRole('treeitem', { name: 'user', exact: true }).waitFor();

// 3. Tree render with N keys: flat list (N rows) and back to the tree; open the folder.
const click = (selector) =>
  page.evaluate(async (selector) => {
    const el = document.evaluate(selector, document, null, 9, null).singleNodeValue;
    // The tree's box (it takes role=tree once it has items).
  const tree = document.querySelector('.browser .tree');
    const start = performance.now();
    const done = window.__kvlabWatch(tree, start);
    el.click();
    return done;
  }, selector);
results.flat = await click("//button[text()='List']");
results.tree = await click("//button[text()='Tree']");
results.open = await click("//div[@role='treeitem' and contains(@class,'folder') and span[@class='label']='user']");
results.close = await click("//div[@role='treeitem' and contains(@class,'folder') and span[@class='label']='user']");
results.open2 = await click("//div[@role='treeitem' and contains(@class,'folder') and span[@class='label']='user']");

// 4. Filter: typing a glob.
results.filter = await page.evaluate(async () => {
  const input = document.querySelector('input.filter');
  // The tree's box (it takes role=tree once it has items).
  const tree = document.querySelector('.browser .tree');
  const start = performance.now();
  const done = window.__kvlabWatch(tree, start);
  input.value = 'user:12*';
  input.dispatchEvent(new InputEvent('input', { bubbles: true }));
  return done;
});

// 5. Enter → reply painted, with N keys loaded.
const replies = [];
const doms = [];
for (let i = 0; i < RUNS; i++) {
  await box.fill(`GET user:${i}`);
  replies.push(
    await page.evaluate(async () => {
      const input = document.querySelector('input.command');
      const log = document.querySelector('[role=log]');
      const start = performance.now();
      const done = window.__kvlabWatch(log, start);
      input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
      return done;
    }),
  );
  doms.push(await page.evaluate(() => window.__kvlabDom));
}
results.reply = median(replies);
results.replyDom = median(doms);
const sizes = await transfer();
await app.close();

// A returning visit: once the service worker controls the page, a reload to an
// interactive console (every file from the worker's cache; a split build also compiles
// its secondary module before start-up). Median of --runs fresh browsers.
const revisits = [];
for (let i = 0; i < RUNS; i++) {
  const visit = await open();
  await recordReady(visit.page);
  await visit.page.goto(visit.url);
  await visit.page.getByRole('textbox', { name: 'Command', exact: true }).first().waitFor();
  await visit.page.waitForFunction(() => navigator.serviceWorker?.controller, null, { timeout: 20_000 });
  await visit.page.reload();
  await visit.page.getByRole('textbox', { name: 'Command', exact: true }).first().waitFor();
  revisits.push(await visit.page.evaluate(() => window.__kvlabReady));
  await visit.close();
}
results.revisit = median(revisits);

// Boots of a split build that needed the secondary module before it was in.
let syncBoots = 0;
if (sizes.cold) {
  for (let i = 0; i < BOOTS; i++) {
    const boot = await open();
    let sync = false;
    boot.page.on('request', (r) => {
      if (r.url().endsWith(sizes.cold) && r.resourceType() === 'xhr') sync = true;
    });
    await boot.page.goto(boot.url);
    await boot.page.getByRole('textbox', { name: 'Command', exact: true }).first().waitFor();
    await boot.page.waitForTimeout(1000);
    await boot.close();
    if (sync) syncBoots++;
  }
}

console.log(`kvlab web benchmark (${N} keys, headless Chromium, release build)`);
console.log(`  interactive console        ${ms(results.interactive)} after navigation start (aim < 1000 ms)`);
console.log(`  returning visit            ${ms(results.revisit)} to an interactive console, median of ${RUNS} (${revisits.map((r) => r.toFixed(1)).join(', ')}; service worker)`);
console.log(`  first PING answered        ${ms(results.pong)} after navigation start (includes the test driver typing)`);
console.log(`  MSET ${N} keys → painted  ${ms(results.load)}`);
console.log(`  tree → flat list (${N})   ${ms(results.flat)}`);
console.log(`  flat list → tree           ${ms(results.tree)} (aim < 300 ms)`);
console.log(`  open folder of ${N}       ${ms(results.open)} (close ${ms(results.close)}, open again ${ms(results.open2)})`);
console.log(`  filter user:12*            ${ms(results.filter)}`);
console.log(`  GET → reply in the DOM     ${ms(results.replyDom)} median of ${RUNS} (${doms.map((r) => r.toFixed(1)).join(', ')})`);
console.log(`  GET → reply painted        ${ms(results.reply)} median of ${RUNS} (${replies.map((r) => r.toFixed(1)).join(', ')}; aim one frame, 16 ms)`);
const kb = (b) => `${(b / 1024).toFixed(1)} KB`;
const split = (x) => `wasm ${kb(x.wasm)}, JS ${kb(x.js)}, CSS ${kb(x.css)}, HTML ${kb(x.html)}, other ${kb(x.other)}`;
console.log(`  first load (gzip -9)       ${kb(sizes.first.total)}: ${split(sizes.first)} (aim < 300 KB)`);
if (sizes.cold) {
  const when = results.cold
    ? `asked for ${ms(results.cold.start)} and in ${ms(results.cold.end)} after navigation start`
    : 'not requested before the first PING was answered';
  console.log(`  after interactive (gzip -9) ${kb(sizes.after.total)}: the secondary wasm, ${when}`);
  console.log(`  boots loading it at once   ${syncBoots} of ${BOOTS} (a start-up function the profile missed)`);
} else {
  console.log('  after interactive          nothing: this build is not split (KVLAB_NO_SPLIT=1?)');
}
console.log(`  loaded when used (gzip -9) ${kb(sizes.later.total)}: ${split(sizes.later)}`);
if (app.errors.length) console.log('page errors:', app.errors);
