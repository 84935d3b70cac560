// Shared by the end-to-end tests: a static server for dist/ and a fresh headless Chromium.
//
//   KVLAB_DIST  directory to serve (default: <repo>/dist)
//   CHROMIUM    browser binary (default: /usr/bin/chromium)
import { createServer } from 'node:http';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = fileURLToPath(new URL('.', import.meta.url));
export const dist = resolve(process.env.KVLAB_DIST ?? join(here, '..', '..', 'dist'));

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.toml': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/**
 * Serves dist/ on a free 127.0.0.1 port. `rewrite(path, body)` may return a replacement
 * body (a string or Buffer) for a request, for tests that need a changed build.
 */
export async function serveDist({ rewrite } = {}) {
  await stat(join(dist, 'index.html')).catch(() => {
    throw new Error(`${dist}/index.html not found: run \`trunk build --release\` first`);
  });
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      let file = normalize(join(dist, path));
      if (file !== dist && !file.startsWith(dist + sep)) throw new Error('outside dist');
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      let body = await readFile(file);
      const changed = rewrite?.(file.slice(dist.length).replaceAll(sep, '/'), body);
      if (changed !== undefined) body = changed;
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'cache-control': 'no-cache',
      });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  server.url = `http://127.0.0.1:${server.address().port}/`;
  return server;
}

/** The Chromium flags every test uses (headless, no network chatter). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Launches Chromium with a fresh profile. Returns `{ context, page, errors, close }`;
 * `errors` collects page errors, console errors and failed responses.
 */
export async function launch({ locale = 'en-US', viewport = { width: 1100, height: 720 } } = {}) {
  const profile = await mkdtemp(join(tmpdir(), 'kvlab-e2e-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    locale,
    viewport,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('response', (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
  const close = async () => {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  };
  return { context, page, errors, profile, close };
}
