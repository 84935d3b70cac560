// Shared by the browser tests, bench/web.mjs and scripts/split.mjs (which profiles a
// release build's start-up): serve dist/ on 127.0.0.1 and start a headless Chromium (system
// binary, fresh profile) with playwright-core.
//
// Environment:
//   KVLAB_URL   test a running server instead (e.g. http://127.0.0.1:8080 from trunk serve)
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
  '.txt': 'text/plain; charset=utf-8',
  '.walk': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/**
 * A static file server for dist/ on a free 127.0.0.1 port; its address is `server.url`.
 * `rewrite(path, body)` may return a replacement body for a request (a test of a changed
 * build).
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
 * Starts Chromium with a fresh profile (no server). Returns { context, page, errors,
 * profile, close }; `errors` collects page errors, console errors and failed responses.
 * `serviceWorkers: 'block'` keeps the app's worker out, for a test that routes requests
 * (Playwright's routing does not see what a service worker answers).
 */
export async function launch({
  viewport = { width: 1280, height: 800 },
  locale = 'en-US',
  deviceScaleFactor = 1,
  serviceWorkers = 'allow',
} = {}) {
  const profile = await mkdtemp(join(tmpdir(), 'kvlab-e2e-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    locale,
    viewport,
    deviceScaleFactor,
    serviceWorkers,
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

/**
 * Serves dist/ (unless KVLAB_URL is set) and opens Chromium.
 * Returns { url, context, page, errors, close }.
 */
export async function open({
  viewport = { width: 1280, height: 800 },
  locale = 'en-US',
  deviceScaleFactor = 1,
  serviceWorkers = 'allow',
} = {}) {
  let server, url;
  if (process.env.KVLAB_URL) {
    url = process.env.KVLAB_URL;
  } else {
    server = await serveDist();
    url = server.url;
  }
  const browser = await launch({ viewport, locale, deviceScaleFactor, serviceWorkers });
  const { context, page, errors } = browser;
  // Nothing may come from another origin.
  page.on('request', (r) => {
    if (!r.url().startsWith(url) && !r.url().startsWith('data:')) errors.push(`foreign request ${r.url()}`);
  });
  const close = async () => {
    await browser.close();
    await new Promise((ok) => (server ? server.close(ok) : ok()));
  };
  return { url, context, page, errors, close };
}

/**
 * Before navigating: makes the page record in `window.__kvlabReady` the moment the
 * console's command box is mounted (its handlers are attached in the same step), in ms
 * after navigation start.
 */
export async function recordReady(page) {
  await page.addInitScript(() => {
    new MutationObserver((_, obs) => {
      if (document.querySelector('input.command')) {
        window.__kvlabReady = performance.now();
        obs.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  });
}

/** The command box of the page's first console (named in English or Chinese). */
export const commandBox = (page) => page.getByRole('textbox', { name: /^(Command|命令)$/ }).first();

/** Types `line` in `box` (the first console's by default), presses Enter and returns the
 * output it printed, once painted. */
export async function runLine(page, line, box = commandBox(page)) {
  const outs = page.getByRole('log').locator('.out');
  const before = await outs.count();
  await box.fill(line);
  await box.press('Enter');
  await outs.nth(before).waitFor();
  return outs.nth(before).innerText();
}

/** Opens workspace `ws` of the site at `base` and waits until persistence runs it and its
 * console is up. */
export async function openWorkspace(page, base, ws) {
  await page.goto(`${base}?ws=${encodeURIComponent(ws)}`);
  await workspaceReady(page, ws);
}

/** Waits until persistence runs workspace `ws` in `page` and its console is up. */
export async function workspaceReady(page, ws) {
  await page.waitForFunction((w) => document.documentElement.dataset.persistWorkspace === w, ws);
  await page.locator('.cmd-input, [aria-label="Command"], [aria-label="命令"]').first().waitFor();
}

/** Resolves once no write waits for IndexedDB. */
export const writesSettled = (page) =>
  page.waitForFunction(() => !document.documentElement.hasAttribute('data-persist-pending'));

/** Opens the workspace manager if it is closed; returns its dialog. */
export async function openManager(page) {
  if (!(await page.locator('.ws-dialog').isVisible())) await page.locator('.ws-button').click();
  await page.locator('.ws-dialog').waitFor();
  return page.locator('.ws-dialog');
}
