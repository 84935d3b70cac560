// End-to-end test of the key tree, the value view's facts, the first screen and the
// page's accessibility (issue 23), on the release build in dist/:
//
// * tree labels are not clipped on a 1x screen; rows show length and MEMORY USAGE (equal to
//   the console's), the hash slot only in cluster mode;
// * a key the server removes shows as expired or evicted, not as a DEL nobody ran;
// * the tree is one Tab stop with the WAI-ARIA tree keys; Escape from the share box and
//   the workspace manager returns the focus to their buttons; the command box shows a
//   focus ring; the page has an h1;
// * the first screen offers the login and tags walkthroughs; cluster mode sits in Settings;
// * the geo map draws the world outline and fits its panel;
// * axe-core finds no serious or critical violation on any main screen, in both themes and
//   both languages.
//
//   node --test tests/e2e/a11y.test.mjs      (after `trunk build --release`)
//
// Screenshots (1x and 2x, en and zh-CN, light and dark) go to KVLAB_SHOTS (default /tmp)
// as tree-*.png.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { open } from './lib.mjs';

const shots = process.env.KVLAB_SHOTS ?? '/tmp';
const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
let app, page;

before(async () => {
  await mkdir(shots, { recursive: true });
  app = await open({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  page = app.page;
});

after(async () => {
  await app?.close();
});

const box = () => page.getByRole('region', { name: /^(client|客户端) 1$/ }).getByRole('textbox', { name: /^(Command|命令)$/ });
const tree = () => page.getByRole('tree');
const value = () => page.getByRole('region', { name: /^(Value|值)$/ });
const item = (name) => tree().getByRole('treeitem', { name, exact: true });

/** Opens a fresh workspace (its own IndexedDB database) in English, dark. */
async function fresh(ws, { lang = 'en', theme = 'dark' } = {}) {
  await page.goto(`${app.url}?ws=${ws}`);
  await page.evaluate(([l, t]) => {
    localStorage.setItem('kvlab.lang', l);
    localStorage.setItem('kvlab.theme', t);
  }, [lang, theme]);
  await page.reload();
  await box().waitFor({ timeout: 15_000 });
}

/** Runs a line in client 1 and waits for its reply. */
async function run(line) {
  const count = () => page.evaluate(() => document.querySelector('[role=log]').querySelectorAll('.entry .out').length);
  const before = await count();
  await box().fill(line);
  await box().press('Enter');
  await page.waitForFunction(
    ([n]) => document.querySelector('[role=log]').querySelectorAll('.entry .out').length > n,
    [before],
  );
}

/** The console's last reply, as text. */
async function lastReply() {
  const text = await page.getByRole('region', { name: /^(client|客户端) 1$/ }).getByRole('log').innerText();
  return text.trim().split('\n').at(-1);
}

const SEED = [
  'SET login:last "ann 2026-12-01"',
  'SET big hello',
  'HSET "last login times" ann 1 bob 2 cy 3',
  'RPUSH queue:jobs a b c d',
  'SADD tags:ruby 1 2 3',
  'ZADD board 10 ann 20 bob',
  'XADD events 1-1 kind login',
  'PFADD visitors a b c',
  'GEOADD cities 13.361389 38.115556 Palermo 15.087269 37.502669 Catania 2.3522 48.8566 Paris',
];

async function seed() {
  for (const line of SEED) await run(line);
  await item('last login times').waitFor();
}

/** Serious and critical axe-core violations on the page as it is. */
async function axe(where) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  });
  return found.map((f) => `${where}: ${f}`);
}

test('tree labels keep their descenders on a 1x screen, and rows show length and memory', async () => {
  await fresh('a11y-labels');
  await seed();
  for (const name of ['login', 'big', 'last login times', 'queue', 'tags']) {
    const geometry = await item(name).locator('.label').evaluate((el) => {
      const cs = getComputedStyle(el);
      return { scroll: el.scrollHeight, client: el.clientHeight, line: parseFloat(cs.lineHeight), font: parseFloat(cs.fontSize) };
    });
    assert.ok(geometry.scroll <= geometry.client, `${name}: ${JSON.stringify(geometry)}`);
    assert.ok(geometry.line >= 1.2 * geometry.font, `${name}: ${JSON.stringify(geometry)}`);
  }
  await tree().screenshot({ path: `${shots}/tree-labels-1x.png` });

  // No slot outside cluster mode; length as the type's command replies it; MEMORY USAGE.
  assert.equal(await tree().locator('.slot').count(), 0);
  const hash = item('last login times');
  assert.equal(await hash.locator('.len').innerText(), '3 items');
  assert.equal(await hash.locator('.len').getAttribute('title'), 'HLEN last login times → 3');
  assert.equal(await item('big').locator('.len').innerText(), '5 B');
  await run('MEMORY USAGE big');
  const usage = (await lastReply()).match(/\(integer\) (\d+)/)[1];
  // Shown as "64 B" (after "memory" for screen readers only).
  assert.match(await item('big').locator('.mem').innerText(), new RegExp(`(^|\\s)${usage} B$`));
  assert.match(await item('big').locator('.mem').getAttribute('title'), new RegExp(`^MEMORY USAGE big → ${usage} bytes$`));
  await item('queue').click();
  assert.equal(await item('queue:jobs').locator('.len').innerText(), '4 items');
  await item('tags').click();
  assert.equal(await item('tags:ruby').locator('.len').innerText(), '3 items');
  assert.equal(await item('board').locator('.len').innerText(), '2 items');
  assert.equal(await item('events').locator('.len').innerText(), '1 item');

  // Cluster mode is in Settings, not on the first view; on, each row names its slot.
  const toggle = page.getByRole('checkbox', { name: /Cluster mode/ });
  assert.equal(await toggle.isVisible(), false);
  await page.locator('.browser .advanced summary').click();
  await toggle.check();
  await run('CLUSTER KEYSLOT big');
  const slot = (await lastReply()).match(/\(integer\) (\d+)/)[1];
  assert.equal(await item('big').locator('.slot').innerText(), `slot ${slot}`);
  assert.equal(await item('big').locator('.slot').getAttribute('title'), `CLUSTER KEYSLOT big → ${slot}`);
  await item('big').click();
  assert.equal(await value().locator('.panel-head .slot').innerText(), `hash slot ${slot}`);
  await toggle.uncheck();
  await tree().locator('.slot').first().waitFor({ state: 'detached' });
  assert.equal(await value().locator('.panel-head .slot').count(), 0);
});

test('a key that expires or is evicted says so, not "changed by DEL"', async () => {
  await fresh('a11y-expiry');
  await run('SET soon x PX 1200');
  await item('soon').click();
  await value().locator('.gone-note').waitFor({ timeout: 5_000 });
  assert.match(await value().innerText(), /Expired: its TTL ran out/);
  assert.doesNotMatch(await value().innerText(), /changed by/);

  // volatile-ttl can only pick keys with a TTL: the viewed key is the one to go.
  await run('SET keep 1');
  await run('SET victim v EX 1000');
  await item('victim').click();
  await run('CONFIG SET maxmemory-policy volatile-ttl');
  await run('CONFIG SET maxmemory 1');
  await run('SET other 2');
  await value().locator('.gone-note').waitFor({ timeout: 5_000 });
  assert.match(await value().innerText(), /Evicted: memory was over maxmemory/);
  assert.doesNotMatch(await value().innerText(), /changed by/);
  await run('CONFIG SET maxmemory 0');

  // A DEL the learner types is still a DEL.
  await run('SET mine 1');
  await item('mine').click();
  await run('DEL mine');
  await value().getByText('changed by').waitFor();
  assert.match(await value().innerText(), /changed by\s+DEL/);
});

test('the key tree is one Tab stop with arrow keys, Home/End and Enter', async () => {
  await fresh('a11y-keys');
  await seed();
  assert.equal(await tree().locator('[role=treeitem][tabindex="0"]').count(), 1);
  await page.getByRole('textbox', { name: /Delimiter/ }).focus();
  await page.keyboard.press('Tab');
  // The focused row's key (its accessible name: the label after the hidden folder prefix).
  const focused = () => page.evaluate(() => document.activeElement.querySelector('.label')?.textContent.trim());
  // Rows: big, board, cities, events, last login times, login (folder), queue, tags, visitors.
  assert.equal(await focused(), 'big');
  await page.keyboard.press('ArrowDown');
  assert.equal(await focused(), 'board');
  await page.keyboard.press('End');
  assert.equal(await focused(), 'visitors');
  await page.keyboard.press('Home');
  assert.equal(await focused(), 'big');
  // Tab leaves the tree at once: one stop.
  assert.equal(await tree().locator('[role=treeitem][tabindex="0"]').count(), 1);
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowDown');
  assert.equal(await focused(), 'login');
  const folder = item('login');
  assert.equal(await folder.getAttribute('aria-expanded'), 'false');
  await page.keyboard.press('ArrowRight');
  await tree().locator('[role=treeitem][aria-expanded="true"]').waitFor();
  assert.equal(await focused(), 'login');
  await page.keyboard.press('ArrowRight');
  assert.equal(await focused(), 'login:last');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await focused(), 'login');
  await page.keyboard.press('ArrowLeft');
  await tree().locator('[role=treeitem][aria-expanded="true"]').waitFor({ state: 'detached' });
  await page.keyboard.press('ArrowUp');
  assert.equal(await focused(), 'last login times');
  await page.keyboard.press('Enter');
  await value().getByRole('heading', { name: 'last login times' }).waitFor();
  assert.equal(await item('last login times').getAttribute('aria-selected'), 'true');
  await page.keyboard.press('Tab');
  assert.notEqual(await page.evaluate(() => document.activeElement.getAttribute('role')), 'treeitem');
});

test('Escape closes the share box and the workspace manager and gives the focus back', async () => {
  await fresh('a11y-escape');
  await run('SET a 1');
  const share = page.getByRole('button', { name: 'Share' });
  await share.click();
  await page.locator('.share-box input').focus();
  await page.keyboard.press('Escape');
  await page.locator('.share-box').waitFor({ state: 'detached' });
  assert.equal(await page.evaluate(() => document.activeElement.className), 'share-toggle');

  const ws = page.locator('button.ws-button');
  await ws.click();
  await page.getByRole('dialog').waitFor();
  assert.notEqual(await page.evaluate(() => document.activeElement.className), 'lang ws-button');
  await page.keyboard.press('Escape');
  await page.getByRole('dialog').waitFor({ state: 'detached' });
  assert.equal(await page.evaluate(() => document.activeElement.className), 'lang ws-button');
});

test('the command box has a focus ring and the page an h1', async () => {
  await fresh('a11y-focus');
  await box().focus();
  const ring = await page.locator('.command-line').first().evaluate((el) => {
    const cs = getComputedStyle(el);
    return { style: cs.outlineStyle, width: parseFloat(cs.outlineWidth) };
  });
  assert.equal(ring.style, 'solid');
  assert.ok(ring.width >= 2, JSON.stringify(ring));
  assert.equal(await page.locator('h1').count(), 1);
  assert.match(await page.locator('h1').innerText(), /kvlab$/);
});

test('the first screen offers the login and tags walkthroughs', async () => {
  await fresh('a11y-start');
  const cards = value().locator('.start-card');
  assert.equal(await cards.count(), 2);
  assert.match(await value().locator('.start').innerText(), /New here\? Start with a walkthrough[\s\S]*Login system[\s\S]*Tag system/);
  await page.screenshot({ path: `${shots}/tree-first-screen.png` });
  await cards.filter({ hasText: 'Tag system' }).click();
  await page.waitForURL(/#\/walk\/tags$/);
  await page.getByRole('heading', { level: 1, name: 'Tag system' }).waitFor({ timeout: 15_000 });
  await page.goBack();
  await value().locator('.start-card', { hasText: 'Login system' }).click();
  await page.waitForURL(/#\/walk\/login$/);
  await page.getByRole('heading', { level: 1, name: 'Login system' }).waitFor({ timeout: 15_000 });
});

test('the geo map draws the world outline and fits its panel', async () => {
  await fresh('a11y-geo');
  await seed();
  await item('cities').click();
  await value().getByRole('button', { name: 'Map' }).click();
  const map = value().locator('svg.geo');
  await map.and(page.locator('[data-outline=true]')).waitFor({ timeout: 10_000 });
  assert.ok((await map.locator('path.land').getAttribute('d')).length > 5000);
  assert.equal(await map.locator('circle').count(), 3);
  const fit = await map.evaluate((svg) => {
    const r = svg.getBoundingClientRect();
    const panel = svg.closest('.value').getBoundingClientRect();
    return { w: r.width, h: r.height, left: r.left, right: r.right, pl: panel.left, pr: panel.right, ph: panel.height };
  });
  assert.ok(Math.abs(fit.w / fit.h - 2) < 0.02, JSON.stringify(fit));
  assert.ok(fit.left >= fit.pl && fit.right <= fit.pr, JSON.stringify(fit));
  assert.ok(fit.h < fit.ph, JSON.stringify(fit));
  await value().screenshot({ path: `${shots}/tree-geo-map.png` });
});

test('axe-core: no serious or critical violations on any main screen, both themes and languages', async () => {
  const found = [];
  for (const theme of ['dark', 'light']) {
    for (const lang of ['en', 'zh-CN']) {
      const en = lang === 'en';
      await fresh(`a11y-axe-${theme}-${lang}`, { lang, theme });
      found.push(...(await axe(`${theme} ${lang} first screen`)));
      await seed();
      await run('HELP SET');
      found.push(...(await axe(`${theme} ${lang} console`)));
      // The script editor, with a highlighted script in it and in the log.
      await run('EVAL "local n = 1 -- one" 0');
      await page.locator('.pane-head .raw-toggle').nth(1).click();
      await page.locator('.script-editor textarea').fill("-- a comment\nlocal n = redis.call('INCR', KEYS[1])\nreturn {n, 2.5, ARGV[1]}");
      found.push(...(await axe(`${theme} ${lang} script editor`)));
      // The script debugger, stopped before the first line (Esc stops it).
      await page.locator('.script-actions .debug-button').click();
      await page.locator('.debugger li[aria-current="step"]').waitFor();
      found.push(...(await axe(`${theme} ${lang} script debugger`)));
      await page.keyboard.press('Escape');
      await page.locator('.debugger').waitFor({ state: 'detached' });
      await page.locator('.pane-head .raw-toggle').nth(1).click();
      await item('login').click();
      await item('queue').click();
      await item('tags').click();
      for (const key of ['big', 'last login times', 'queue:jobs', 'tags:ruby', 'board', 'events', 'visitors', 'cities']) {
        await item(key).click();
        await value().getByRole('heading', { name: key }).waitFor();
        if (key === 'cities') {
          await value().getByRole('button', { name: en ? 'Map' : '地图' }).click();
          await value().locator('svg.geo[data-outline=true]').waitFor({ timeout: 10_000 });
        }
        found.push(...(await axe(`${theme} ${lang} value of ${key}`)));
      }

      await page.getByRole('button', { name: en ? 'Share' : '分享' }).click();
      await page.locator('.share-box').waitFor();
      found.push(...(await axe(`${theme} ${lang} share box`)));
      await page.keyboard.press('Escape');

      await page.locator('button.ws-button').click();
      await page.getByRole('dialog').waitFor();
      await page.waitForTimeout(300);
      found.push(...(await axe(`${theme} ${lang} workspaces`)));
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });

      await page.locator('a.nav-walk').click();
      await page.locator('.walk-card').first().waitFor({ timeout: 15_000 });
      found.push(...(await axe(`${theme} ${lang} walkthrough list`)));
      await page.goto(`${app.url}?ws=a11y-axe-${theme}-${lang}#/walk/login`);
      await page.locator('.walk[data-busy="false"]').waitFor({ timeout: 30_000 });
      found.push(...(await axe(`${theme} ${lang} walkthrough login`)));
    }
  }
  assert.equal(found.length, 0, `axe-core found:\n${found.join('\n')}`);
});

test('screenshots of the main screen at 1x and 2x, en and zh-CN, light and dark', async () => {
  for (const scale of [1, 2]) {
    const shot = await open({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: scale });
    try {
      const p = shot.page;
      for (const lang of ['en', 'zh-CN']) {
        for (const theme of ['light', 'dark']) {
          await p.goto(`${shot.url}?ws=shots-${lang}-${theme}`);
          await p.evaluate(([l, t]) => {
            localStorage.setItem('kvlab.lang', l);
            localStorage.setItem('kvlab.theme', t);
          }, [lang, theme]);
          await p.reload();
          const cmd = p.getByRole('textbox', { name: /^(Command|命令)$/ }).first();
          await cmd.waitFor({ timeout: 15_000 });
          for (const line of [...SEED, 'EXPIRE big 300']) {
            await cmd.fill(line);
            await cmd.press('Enter');
          }
          const t = p.getByRole('tree');
          await t.getByRole('treeitem', { name: 'login', exact: true }).click();
          await t.getByRole('treeitem', { name: 'queue', exact: true }).click();
          await t.getByRole('treeitem', { name: 'last login times', exact: true }).click();
          await p.locator('.value .panel-head h2.key-name').waitFor();
          await p.screenshot({ path: `${shots}/tree-${lang}-${theme}-${scale}x.png` });
        }
      }
    } finally {
      await shot.close();
    }
  }
});
