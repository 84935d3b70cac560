// The offline web app: manifest and installability, the service worker, the app working
// with the network off after one visit, "reload to update" for a new build, and the
// Content-Security-Policy (no inline script, no other origins).
//
//   node --test tests/e2e/pwa.test.mjs     (after `trunk build --release`)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch } from './lib.mjs';

let server, browser, page;
let variant = 1;

before(async () => {
  // Variant 2 stands for a new release: another build id in index.html and sw.js.
  server = await serveDist({
    rewrite: (path, body) => {
      if (variant === 1) return undefined;
      if (path === '/sw.js' || path === '/index.html' || path === '/') {
        return body.toString().replace(/(kvlab-build" content="|const BUILD = ")[0-9a-f]+/, '$1feedfacefeedface');
      }
      return undefined;
    },
  });
  browser = await launch();
  page = browser.page;
});

after(async () => {
  await browser?.close();
  await new Promise((ok) => (server ? server.close(ok) : ok()));
});

const command = () => page.getByRole('textbox', { name: 'Command', exact: true });

async function run(line) {
  await command().fill(line);
  await command().press('Enter');
}

test('the page loads under its CSP with no inline script and no violations', async () => {
  const violations = [];
  await page.exposeFunction('reportViolation', (v) => violations.push(v));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      window.reportViolation(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  await page.goto(server.url);
  await command().waitFor({ timeout: 20_000 });
  const inline = await page.evaluate(() => [...document.scripts].filter((s) => !s.src && s.textContent.trim()).length);
  assert.equal(inline, 0, 'inline scripts');
  const csp = await page.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content ?? '');
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'/);
  assert.doesNotMatch(csp, /unsafe-inline'[^;]*;?\s*$|script-src[^;]*unsafe-inline/);
  await run('SET k v');
  await page.getByRole('log').getByText('OK', { exact: true }).first().waitFor({ timeout: 10_000 });
  assert.deepEqual(violations, []);
  assert.deepEqual(browser.errors, []);
});

test('manifest and icons meet Chromium\'s installability criteria', async () => {
  const manifest = await page.evaluate(async () => {
    const href = document.querySelector('link[rel="manifest"]').href;
    return (await fetch(href)).json();
  });
  assert.equal(manifest.display, 'standalone');
  assert.ok(manifest.icons.some((i) => i.sizes === '192x192'));
  assert.ok(manifest.icons.some((i) => i.sizes === '512x512'));
  await page.evaluate(() => navigator.serviceWorker.ready);
  const cdp = await page.context().newCDPSession(page);
  const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
  assert.deepEqual(installabilityErrors, []);
  const { errors } = await cdp.send('Page.getAppManifest');
  assert.deepEqual(errors, []);
});

test('after one visit the console and a walkthrough work with the network off', async () => {
  await page.evaluate(() => navigator.serviceWorker.ready);
  // Wait until the worker controls the page and every file is cached.
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 20_000 });
  await page.context().setOffline(true);
  try {
    await page.reload();
    await command().waitFor({ timeout: 20_000 });
    await run('RPUSH offline a b c');
    await run('LRANGE offline 0 -1');
    await page.waitForFunction(() => /3\) "c"/.test(document.querySelector('[role="log"]')?.innerText ?? ''), null, {
      timeout: 10_000,
    });
    // A walkthrough too: its files and the SQL worker come from the cache.
    await page.goto(`${server.url}#/walk/login`);
    await page.locator('.walk[data-done="0"][data-busy="false"]').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Run step' }).click();
    await page.locator('.walk[data-done="1"]').waitFor({ timeout: 30_000 });
    await page.goto(`${server.url}?back=1#/`);
    await command().waitFor({ timeout: 20_000 });
  } finally {
    await page.context().setOffline(false);
  }
});

test('a new build is offered with "reload to update", then served whole', async () => {
  const before = await page.evaluate(() => document.querySelector('meta[name="kvlab-build"]').content);
  assert.notEqual(before, 'feedfacefeedface');
  variant = 2;
  await page.evaluate(() => window.__kvlabServiceWorker.update());
  const bar = page.getByRole('status').filter({ hasText: 'new version' });
  await bar.waitFor({ timeout: 20_000 });
  // Until accepted, the old build keeps serving.
  assert.equal(await page.evaluate(() => document.querySelector('meta[name="kvlab-build"]').content), before);
  await Promise.all([page.waitForNavigation({ timeout: 20_000 }), bar.getByRole('button', { name: 'Reload to update' }).click()]);
  await command().waitFor({ timeout: 20_000 });
  assert.equal(await page.evaluate(() => document.querySelector('meta[name="kvlab-build"]').content), 'feedfacefeedface');
});

test('HELP in Chinese works with the network off: its texts are precached', async () => {
  // The texts (i18n/help.zh-CN.json) are outside the wasm and fetched only in Chinese mode.
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 20_000 });
  await page.context().setOffline(true);
  try {
    await page.reload();
    await command().waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Switch language to Chinese' }).click();
    const zhBox = page.getByRole('textbox', { name: '命令', exact: true });
    await zhBox.fill('HELP SET');
    await zhBox.press('Enter');
    await page.waitForFunction(() => /在键中存入字符串/.test(document.querySelector('[role="log"]')?.innerText ?? ''), null, {
      timeout: 10_000,
    });
    await page.getByRole('button', { name: '切换为英文界面' }).click();
    await command().waitFor({ timeout: 5_000 });
  } finally {
    await page.context().setOffline(false);
  }
});
