// Splits a release build's app wasm in two (issue #5: the first load): called by
// scripts/postbuild.mjs in trunk's staging directory, before the service worker's file
// list is made.
//
// 1. Builds tools/wasm-split (once; cargo skips it when it is up to date).
// 2. Instruments the app's wasm, serves a copy of the build with it, boots the app in
//    headless Chromium (Debian's, as the tests use) with an empty profile, waits until the
//    console is up and its timers have run, switches the language there and back (every
//    component renders), and reads which functions ran: start-up's profile (the union of
//    a few boots).
// 3. Splits the original module with that profile: the primary replaces the app's wasm,
//    the secondary becomes kvlab-web-cold-<hash>.wasm, and index.html names it in
//    <meta name="kvlab-split">, where src/ui/split.js finds it.
//
// Anything the profile missed still works (a stub loads the secondary on first call), so
// the profile decides only what the first load carries. KVLAB_NO_SPLIT=1 skips all this;
// KVLAB_SPLIT_KEEP=1 keeps the work directory (the profile and both modules) and names it.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Builds tools/wasm-split in the repository at `source` (offline; cargo skips it when it
 * is up to date) and returns the tool's path. Its own tests build it this way too. */
export function buildTool(source) {
  execFileSync(
    'cargo',
    ['build', '--release', '--quiet', '--offline', '--manifest-path', join(source, 'tools', 'wasm-split', 'Cargo.toml'), '--target-dir', join(source, 'target', 'tools')],
    { stdio: 'inherit' },
  );
  return join(source, 'target', 'tools', 'release', 'kvlab-wasm-split');
}

/** Splits the build in `staging` (rooted at `source`); returns index.html's new text. */
export async function splitBuild({ staging, source, html }) {
  const wasmName = (await readdir(staging)).find((f) => /^kvlab-web-.*_bg\.wasm$/.test(f));
  if (!wasmName) throw new Error('split.mjs: no kvlab-web wasm in the build');
  const tool = buildTool(source);

  const work = await mkdtemp(join(tmpdir(), 'kvlab-split-'));
  try {
    const original = join(work, 'original.wasm');
    await cp(join(staging, wasmName), original);
    const site = join(work, 'site');
    await cp(staging, site, { recursive: true });
    await writeFile(join(site, 'index.html'), html);
    execFileSync(tool, ['instrument', original, join(site, wasmName)], { stdio: 'inherit' });

    let hot;
    try {
      hot = await profile(site);
    } catch (e) {
      e.message = `split.mjs: profiling start-up in headless Chromium failed (bash scripts/setup.sh installs Chromium and playwright-core; KVLAB_NO_SPLIT=1 builds one unsplit module): ${e.message}`;
      throw e;
    }
    const prof = join(work, 'profile');
    await writeFile(prof, hot.join('\n') + '\n');
    const [primary, secondary] = [join(work, 'primary.wasm'), join(work, 'secondary.wasm')];
    execFileSync(tool, ['split', original, prof, primary, secondary], { stdio: 'inherit' });

    const cold = await readFile(secondary);
    const coldName = `kvlab-web-cold-${createHash('sha256').update(cold).digest('hex').slice(0, 16)}.wasm`;
    const primaryBytes = await readFile(primary);
    await writeFile(join(staging, wasmName), primaryBytes);
    await writeFile(join(staging, coldName), cold);
    // trunk's <link rel="preload"> of the wasm carries the original's digest.
    const digest = `sha384-${createHash('sha384').update(primaryBytes).digest('base64')}`;
    const preload = new RegExp(`(<link[^>]*href="\\./${wasmName.replace(/[.]/g, '\\.')}"[^>]*integrity=")[^"]*"`);
    if (!preload.test(html)) throw new Error(`split.mjs: no preload link with a digest for ${wasmName} in index.html`);
    return html
      .replace(preload, `$1${digest}"`)
      .replace('</head>', `  <meta name="kvlab-split" content="./${coldName}" />\n</head>`);
  } finally {
    if (process.env.KVLAB_SPLIT_KEEP === '1') console.log(`split.mjs: kept ${work}`);
    else await rm(work, { recursive: true, force: true });
  }
}

/** Boots the build in `site` RUNS times and returns the numbers of the functions any
 * start-up ran: which timers, callbacks and code paths a boot takes varies from run to
 * run, and a function start-up needs but the profile missed costs a synchronous load
 * (bench/web.mjs counts how many boots of a build still need one). */
async function profile(site) {
  // lib.mjs reads KVLAB_DIST when it is first imported.
  process.env.KVLAB_DIST = site;
  const { open } = await import('../tests/e2e/lib.mjs');
  const RUNS = 6;
  const all = new Set();
  const added = [];
  for (let i = 0; i < RUNS; i++) {
    const before = all.size;
    for (const f of await profileOnce(open)) all.add(f);
    added.push(all.size - before);
  }
  console.log(`split.mjs: start-up profile of ${all.size} functions (each run added ${added.join(', ')})`);
  return [...all].sort((a, b) => a - b);
}

async function profileOnce(open) {
  const app = await open();
  try {
    const { page } = app;
    await page.addInitScript(() =>
      addEventListener('TrunkApplicationStarted', (e) => {
        window.__kvlabWasm = e.detail.wasm;
      }),
    );
    await page.goto(app.url);
    const box = page.getByRole('textbox', { name: 'Command', exact: true }).first();
    await box.waitFor({ timeout: 30_000 });
    // Timers that start-up arms run a few times: the engine's tick, saving, the status bar.
    await page.waitForTimeout(1000);
    // Then every component renders at once, twice: the language and the theme switched
    // in one task, there and back. A component asked to render twice before Yew's
    // scheduler runs drops the first request (a `RenderRunner`), which a quiet boot does
    // only sometimes: that drop is what the stacks of boots that had to load the rest at
    // once showed.
    for (let i = 0; i < 2; i++) {
      await page.evaluate(() => {
        // The language switch, not the workspace button before it (also `.lang`, for its
        // look): opening the workspace dialog is not start-up.
        document.querySelector('header button.lang:not(.ws-button)').click();
        document.querySelector('header button.theme').click();
      });
      await page.waitForTimeout(300);
    }
    const hot = await page.evaluate(() =>
      Object.entries(window.__kvlabWasm)
        .filter(([name, g]) => name.startsWith('__kvlab_prof_') && g.value !== 0)
        .map(([name]) => Number(name.slice('__kvlab_prof_'.length))),
    );
    if (app.errors.length) throw new Error(`split.mjs: the instrumented app failed: ${app.errors.join('; ')}`);
    if (hot.length === 0) throw new Error('split.mjs: the profile is empty');
    return hot;
  } finally {
    await app.close();
  }
}
