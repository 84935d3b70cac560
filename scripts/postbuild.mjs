// Trunk post-build hook (see Trunk.toml): finishes a build in trunk's staging directory.
//
// 1. Content-Security-Policy without inline script: trunk starts the wasm with an inline
//    <script type="module">; this moves it into boot-<hash>.js and loads that instead, so
//    index.html's CSP can say script-src 'self' (plus 'wasm-unsafe-eval' for WebAssembly).
// 2. Split: for release builds, the app's wasm is split into what start-up runs and the
//    rest, which loads after the console is interactive (scripts/split.mjs).
// 3. Offline: for release builds, writes sw.js from www/sw.js with the list of every file
//    of the build and a build id (a hash of all of them), and marks index.html with
//    <meta name="kvlab-build"> so www/pwa.js registers the worker. Debug builds (trunk
//    serve) get neither, so development never runs stale cached code.
//
// Environment (set by trunk): TRUNK_STAGING_DIR, TRUNK_PROFILE, TRUNK_SOURCE_DIR.
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { splitBuild } from './split.mjs';

const staging = process.env.TRUNK_STAGING_DIR;
const source = process.env.TRUNK_SOURCE_DIR ?? process.cwd();
const release = process.env.TRUNK_PROFILE === 'release';
if (!staging) {
  console.error('postbuild.mjs: TRUNK_STAGING_DIR is not set (run by trunk as a post_build hook)');
  process.exit(1);
}

const hash = (data) => createHash('sha256').update(data).digest('hex');
const indexPath = join(staging, 'index.html');
let html = await readFile(indexPath, 'utf8');

// 1. Inline module scripts → files.
html = await replaceAsync(html, /<script type="module"([^>]*)>([\s\S]*?)<\/script>/g, async (whole, attrs, body) => {
  if (/\bsrc=/.test(attrs) || !body.trim()) return whole;
  const name = `boot-${hash(body).slice(0, 16)}.js`;
  await writeFile(join(staging, name), body.trim() + '\n');
  const rest = attrs.replace(/\s*(nonce|integrity)="[^"]*"/g, '');
  return `<script type="module" src="./${name}"${rest}></script>`;
});
if (/<script(?![^>]*\bsrc=)[^>]*>\s*\S/.test(html)) {
  console.error('postbuild.mjs: index.html still has an inline script; the CSP would block it');
  process.exit(1);
}

// 2. Split the app's wasm.
if (release && process.env.KVLAB_NO_SPLIT !== '1') {
  html = await splitBuild({ staging, source, html });
}

// 3. Service worker for release builds.
if (release) {
  const files = (await walk(staging))
    .map((f) => relative(staging, f).split(sep).join('/'))
    .filter((f) => f !== 'sw.js' && !f.startsWith('.'))
    .sort();
  const digest = createHash('sha256');
  for (const f of files) {
    digest.update(f);
    digest.update(f === 'index.html' ? html : await readFile(join(staging, f)));
  }
  const build = digest.digest('hex').slice(0, 16);
  html = html.replace('</head>', `  <meta name="kvlab-build" content="${build}" />\n</head>`);
  const template = await readFile(join(source, 'www', 'sw.js'), 'utf8');
  const list = JSON.stringify(['./', ...files.map((f) => `./${f}`)], null, 2);
  await writeFile(join(staging, 'sw.js'), template.replace("'__KVLAB_BUILD__'", JSON.stringify(build)).replace('__KVLAB_FILES__', list));
  console.log(`postbuild.mjs: build ${build}, ${files.length} files precached by sw.js`);
}
await writeFile(indexPath, html);

async function walk(dir) {
  const out = [];
  for (const entry of await readdir(dir)) {
    const p = join(dir, entry);
    if ((await stat(p)).isDirectory()) out.push(...(await walk(p)));
    else out.push(p);
  }
  return out;
}

async function replaceAsync(text, re, fn) {
  const parts = [];
  let last = 0;
  for (const m of text.matchAll(re)) {
    parts.push(text.slice(last, m.index), await fn(...m));
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  return parts.join('');
}
