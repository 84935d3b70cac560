// The workspace manager (src/ui/components/workspaces.rs) in headless Chromium: create,
// open, write, rename, reset, delete, sizes shown, data kept apart, JSON import, Chinese
// labels, and a phone-sized screen. Screenshots go to $KVLAB_SHOTS when it is set.
//
//   node --test tests/e2e/workspaces.test.mjs   (after `trunk build --release`)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serveDist, launch, openWorkspace, workspaceReady as ready, runLine as run, writesSettled as settled, openManager as manager } from './lib.mjs';

let server;
before(async () => {
  server = await serveDist();
});
after(async () => {
  await new Promise((ok) => server.close(ok));
});

const shots = process.env.KVLAB_SHOTS;
const shot = async (page, name) => shots && page.screenshot({ path: join(shots, `${name}.png`) });

const open = (page, ws) => openWorkspace(page, server.url, ws);

async function closeManager(page) {
  await page.locator('.ws-close').click();
  await page.locator('.ws-dialog').waitFor({ state: 'detached' });
}

const row = (page, name) => page.locator(`.ws-row[data-ws="${name}"]`);

async function names(page) {
  await page.waitForFunction(() => !/…/.test(document.querySelector('.ws-message')?.textContent ?? ''));
  return page.locator('.ws-list .ws-row').evaluateAll((rs) => rs.map((r) => r.dataset.ws));
}

test('create, open, write, rename, reset and delete workspaces; sizes; separate data', async () => {
  const b = await launch();
  const { page, errors } = b;
  try {
    await open(page, 'alpha');
    assert.equal(await run(page, 'SET a 1'), 'OK');
    assert.equal(await run(page, 'RPUSH list x y z'), '(integer) 3');
    await settled(page);

    // The list shows the current workspace, marked, with its stored size and keys.
    await page.locator('.ws-button').focus();
    await page.keyboard.press('Enter');
    const dlg = page.locator('.ws-dialog');
    await dlg.waitFor();
    assert.equal(await dlg.getAttribute('role'), 'dialog');
    assert.equal(await page.evaluate(() => document.activeElement?.className), 'ws-dialog');
    await page.keyboard.press('Escape');
    await dlg.waitFor({ state: 'detached' });
    await manager(page);
    await row(page, 'alpha').waitFor();
    assert.equal(await row(page, 'alpha').getAttribute('aria-current'), 'true');
    await page.waitForFunction(() => Number(document.querySelector('.ws-row[data-ws="alpha"] .ws-size')?.dataset.bytes) > 0);
    assert.match(await row(page, 'alpha').locator('.ws-keys').innerText(), /^2 keys$/i);

    // A bad name is refused with a reason; a good one is created and listed.
    await page.locator('#ws-new').fill('embed-x');
    assert.match(await page.locator('.ws-hint.error').innerText(), /tutorial embeds/);
    await page.locator('#ws-new').fill('no spaces');
    assert.match(await page.locator('.ws-hint.error').innerText(), /letters, digits/);
    await page.locator('#ws-new').fill('beta');
    await page.locator('#ws-new').press('Enter');
    await row(page, 'beta').waitFor();
    assert.deepEqual(await names(page), ['alpha', 'beta']);
    await shot(page, 'manager-en');

    // Open beta: its own, empty dataset.
    await row(page, 'beta').locator('.ws-open').click();
    await ready(page, 'beta');
    assert.equal(await run(page, 'GET a'), '(nil)');
    assert.equal(await run(page, 'SET b 2'), 'OK');
    await settled(page);

    // Rename the current workspace: its data moves, the page follows it.
    await manager(page);
    await row(page, 'beta').locator('.ws-rename').click();
    await page.locator('.ws-rename-input').fill('gamma');
    await page.locator('.ws-confirm .ws-yes').click();
    await ready(page, 'gamma');
    assert.match(page.url(), /\?ws=gamma$/);
    assert.equal(await run(page, 'GET b'), '"2"');
    await manager(page);
    await row(page, 'gamma').waitFor();
    assert.deepEqual(await names(page), ['alpha', 'gamma']);

    // Rename a workspace that is not open here.
    await row(page, 'alpha').locator('.ws-rename').click();
    await page.locator('.ws-rename-input').fill('alpha2');
    await page.locator('.ws-confirm .ws-yes').click();
    await row(page, 'alpha2').waitFor();
    assert.deepEqual(await names(page), ['alpha2', 'gamma']);

    // Reset the current one: a real FLUSHALL, shown in the console.
    await row(page, 'gamma').locator('.ws-reset').click();
    assert.match(await page.locator('.ws-confirm').innerText(), /Empty workspace “gamma”/);
    await page.locator('.ws-confirm .ws-yes').click();
    await page.getByRole('log').getByText('FLUSHALL').waitFor();
    await closeManager(page);
    assert.equal(await run(page, 'DBSIZE'), '(integer) 0');
    await settled(page);

    // The renamed one kept its data.
    await open(page, 'alpha2');
    assert.equal(await run(page, 'GET a'), '"1"');
    assert.equal(await run(page, 'LLEN list'), '(integer) 3');

    // Delete another workspace, then the current one (the page goes to `default`).
    await manager(page);
    await row(page, 'gamma').locator('.ws-delete').click();
    await page.locator('.ws-confirm .ws-yes').click();
    await row(page, 'gamma').waitFor({ state: 'detached' });
    await row(page, 'alpha2').locator('.ws-delete').click();
    await page.locator('.ws-confirm .ws-yes').click();
    await ready(page, 'default');
    await manager(page);
    await row(page, 'default').waitFor();
    assert.ok(!(await names(page)).includes('alpha2'));
    assert.deepEqual(errors, []);
  } finally {
    await b.close();
  }
});

test('a JSON export imports into the workspace; a malformed one imports nothing', async () => {
  const b = await launch();
  const { page, errors } = b;
  try {
    await open(page, 'imports');
    await run(page, 'SET keep mine');
    await manager(page);
    const now = Date.now();
    const json = JSON.stringify({
      format: 'kvlab-export',
      version: 1,
      exported_ms: now,
      keys: [
        { db: 0, key: 'keep', type: 'string', value: 'theirs' },
        { db: 0, key: 'h', type: 'hash', value: [['f', 'v']] },
        { db: 0, key: 'gone', type: 'string', expire_at_ms: now - 1000, value: 'x' },
        { db: 1, key: 'z', type: 'zset', value: [['m', 2.5]] },
      ],
    });
    await page.locator('.ws-import-file').setInputFiles({ name: 'x.json', mimeType: 'application/json', buffer: Buffer.from(json) });
    await page.waitForFunction(() => /Imported 2 keys/.test(document.querySelector('.ws-message')?.textContent));
    assert.match(await page.locator('.ws-message').innerText(), /1 already expired.*1 already here/);
    await closeManager(page);
    assert.equal(await run(page, 'GET keep'), '"mine"');
    assert.equal(await run(page, 'HGET h f'), '"v"');
    assert.equal(await run(page, 'SELECT 1'), 'OK');
    assert.equal(await run(page, 'ZSCORE z m'), '"2.5"');

    await manager(page);
    const bad = '{"format":"kvlab-export","version":1,"keys":[\n{"key":"q","type":"list","value":"x"}\n]}';
    await page.locator('.ws-import-file').setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from(bad) });
    await page.waitForFunction(() => /Nothing imported/.test(document.querySelector('.ws-message')?.textContent));
    assert.match(await page.locator('.ws-message').innerText(), /line 2, key "q": a list value must be an array/);
    await closeManager(page);
    assert.equal(await run(page, 'EXISTS q'), '(integer) 0');
    assert.deepEqual(errors, []);
  } finally {
    await b.close();
  }
});

test('the manager in Chinese and on a 360 px screen; the banner follows the language', async () => {
  const b = await launch({ viewport: { width: 360, height: 740 }, locale: 'zh-CN' });
  const { page, errors } = b;
  try {
    await open(page, 'phone');
    await run(page, 'SET k v');
    await settled(page);
    await manager(page);
    assert.equal(await page.locator('#ws-title').innerText(), '工作区');
    assert.equal(await page.locator('.ws-create button').innerText(), '新建');
    assert.equal(await row(page, 'phone').locator('.ws-badge').innerText(), '当前');
    assert.equal(await row(page, 'phone').locator('.ws-reset').innerText(), '重置');
    const box = await page.locator('.ws-dialog').boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= 360, `dialog fits: ${JSON.stringify(box)}`);
    const overflow = await page.evaluate(() => document.querySelector('.ws-dialog').scrollWidth > document.querySelector('.ws-dialog').clientWidth);
    assert.equal(overflow, false, 'nothing sticks out sideways');
    await row(page, 'phone').locator('.ws-delete').click();
    assert.match(await page.locator('.ws-confirm').innerText(), /删除工作区“phone”/);
    await shot(page, 'manager-zh-360');
    // Keyboard: Escape closes the confirmation, then the dialog.
    await page.keyboard.press('Escape');
    await page.locator('.ws-confirm').waitFor({ state: 'detached' });
    await page.keyboard.press('Escape');
    await page.locator('.ws-dialog').waitFor({ state: 'detached' });
    assert.deepEqual(errors, []);

    // The persistence banner in both languages (no IndexedDB in this page).
    await page.addInitScript(() => Object.defineProperty(window, 'indexedDB', { value: undefined, configurable: true }));
    await page.goto(`${server.url}?ws=mem`);
    await page.waitForFunction(() => document.documentElement.dataset.persist === 'memory');
    await page.waitForFunction(() => /浏览器存储不可用/.test(document.getElementById('persist-status')?.innerText));
    await page.locator('button.lang:not(.ws-button)').click();
    await page.waitForFunction(() => /Browser storage is unavailable/.test(document.getElementById('persist-status')?.innerText));
    assert.equal(await page.locator('#persist-status').getAttribute('lang'), 'en');
    await manager(page);
    await shot(page, 'manager-en-360');
  } finally {
    await b.close();
  }
});
