// Several tabs on one workspace (issue #6; src/tabs.rs, src/ui/services/tabs.rs,
// docs/persistence.md): the first tab runs the workspace (data-tab-role="leader"), a second
// forwards its commands to it and keeps a replica (data-tab-role="follower"). Driven through
// the console only, in headless Chromium, two pages of one browser profile.
//
//   node --test tests/e2e/tabs.test.mjs      (after `trunk build --release`)
//
// Environment: KVLAB_DIST, CHROMIUM as in lib.mjs; KVLAB_SHOTS for the screenshot.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, serveDist, runLine } from './lib.mjs';

const shots = process.env.KVLAB_SHOTS ?? '/tmp/kvlab-shots';
let server;

before(async () => {
  server = await serveDist();
});

after(async () => {
  await new Promise((ok) => server.close(ok));
});

/** The command box, named in the page's language. */
const box = (page) =>
  page.getByRole('textbox', { name: /^(Command|命令)$/ });

const role = (page) => page.evaluate(() => document.documentElement.dataset.tabRole);

/** Opens workspace `ws` in `page`; waits for its role (a follower: until its replica is synced). */
async function open(page, ws, expect) {
  await page.goto(`${server.url}?ws=${encodeURIComponent(ws)}`);
  await box(page).waitFor();
  await page.waitForFunction(
    (r) =>
      document.documentElement.dataset.tabRole === r &&
      (r !== 'follower' || document.documentElement.hasAttribute('data-tab-synced')),
    expect,
  );
}

/** Types `line`, presses Enter and returns the output it printed, once shown. */
const run = (page, line) => runLine(page, line, box(page));

/** Types `line` and presses Enter without waiting for output (a blocking command). */
async function type(page, line) {
  await box(page).fill(line);
  await box(page).press('Enter');
}

const logText = (page) => page.getByRole('log').innerText();

async function waitLog(page, re) {
  await page.waitForFunction(
    (src) => new RegExp(src).test(document.querySelector('[role=log]')?.innerText ?? ''),
    re.source,
  );
}

test('two tabs interleaving writes lose nothing, show the same data, and keep it after a reload', async () => {
  const { context, page: a, errors, close } = await launch();
  try {
    await open(a, 'inter', 'leader');
    const b = await context.newPage();
    await open(b, 'inter', 'follower');
    assert.match(await b.locator('.tab-role').innerText(), /Connected to the owner tab/);
    // Alternating, each reply checked: the tabs share one counter and one list.
    for (let i = 0; i < 50; i++) {
      const tab = i % 2 ? b : a;
      assert.equal(await run(tab, 'INCR n'), `(integer) ${i + 1}`);
      assert.equal(await run(tab, `RPUSH l ${i}`), `(integer) ${i + 1}`);
    }
    // At the same time in both tabs.
    const burst = async (tab) => {
      for (let i = 0; i < 25; i++) await run(tab, 'INCR m');
    };
    const t0 = Date.now();
    await Promise.all([burst(a), burst(b)]);
    const burstMs = Date.now() - t0;
    assert.equal(await run(a, 'GET m'), '"50"');
    assert.equal(await run(b, 'GET m'), '"50"');
    const list = Array.from({ length: 50 }, (_, i) => `${String(i + 1).padStart(2)}) "${i}"`).join('\n');
    assert.equal(await run(a, 'LRANGE l 0 -1'), list);
    assert.equal(await run(b, 'LRANGE l 0 -1'), list);
    // The follower's views show the replica: the same keys in the keyspace browser, and
    // a value view that follows writes made in the other tab.
    const tree = (p) => p.getByRole('tree');
    for (const p of [a, b]) {
      for (const k of ['n', 'l', 'm']) await tree(p).getByRole('treeitem', { name: k, exact: true }).waitFor();
    }
    await tree(b).getByRole('treeitem', { name: 'n', exact: true }).click();
    await run(a, 'SET n 1000');
    await b.getByRole('region', { name: 'Value' }).getByText('1000').first().waitFor();
    await run(a, 'SELECT 2');
    await run(a, 'SET only2 x');
    // A follower pane has its own session: its database is still 0.
    assert.equal(await run(b, 'EXISTS only2'), '(integer) 0');
    assert.equal(await run(b, 'SELECT 2'), 'OK');
    assert.equal(await run(b, 'GET only2'), '"x"');
    assert.match(await logText(b), /6379\[2\]> GET only2/);
    // Forwarded round trip (read: no commit to wait for; write: one commit).
    assert.equal(await run(b, 'SELECT 0'), 'OK');
    const rt = async (page, line) => {
      const s = Date.now();
      for (let i = 0; i < 20; i++) await run(page, line);
      return (Date.now() - s) / 20;
    };
    const readMs = await rt(b, 'GET only2');
    const writeMs = await rt(b, 'INCR c');
    // The same through the leader's own pane, for comparison (typing and painting included).
    const localMs = await rt(a, 'INCR c2');
    console.log(
      `command round trip incl. typing and painting: follower read ${readMs.toFixed(1)} ms, ` +
        `follower write ${writeMs.toFixed(1)} ms, leader's own pane write ${localMs.toFixed(1)} ms; ` +
        `2×25 concurrent INCR ${burstMs} ms`,
    );
    await a.screenshot({ path: `${shots}/tabs-leader.png` });
    await b.screenshot({ path: `${shots}/tabs-follower.png` });
    // Both tabs reload: everything acknowledged is there.
    await a.reload();
    await b.reload();
    await a.getByRole('textbox', { name: 'Command', exact: true }).waitFor();
    await b.getByRole('textbox', { name: 'Command', exact: true }).waitFor();
    for (const p of [a, b]) {
      // Either may run the workspace now; a follower waits for its replica.
      await p.waitForFunction(
        () =>
          document.documentElement.dataset.tabRole === 'leader' ||
          document.documentElement.hasAttribute('data-tab-synced'),
      );
      assert.equal(await run(p, 'GET n'), '"1000"');
      assert.equal(await run(p, 'GET m'), '"50"');
      assert.equal(await run(p, 'LLEN l'), '(integer) 50');
      assert.equal(await run(p, 'GET c'), '"20"');
    }
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('pub/sub and blocking commands work between tabs as between panes', async () => {
  const { context, page: a, errors, close } = await launch();
  try {
    await open(a, 'pubsub', 'leader');
    const b = await context.newPage();
    await open(b, 'pubsub', 'follower');
    // SUBSCRIBE in the follower, PUBLISH in the leader.
    assert.match(await run(b, 'SUBSCRIBE news'), /1\) "subscribe"\n2\) "news"\n3\) \(integer\) 1/);
    assert.equal(await run(a, 'PUBLISH news hello'), '(integer) 1');
    await waitLog(b, /1\) "message"\n2\) "news"\n3\) "hello"/);
    // And the other way round.
    assert.match(await run(a, 'SUBSCRIBE back'), /"subscribe"/);
    const c = await context.newPage();
    await open(c, 'pubsub', 'follower');
    assert.equal(await run(c, 'PUBLISH back hi'), '(integer) 1');
    await waitLog(a, /1\) "message"\n2\) "back"\n3\) "hi"/);
    // BLPOP in a follower, woken by LPUSH in the leader.
    await type(c, 'BLPOP q 0');
    // The follower's pane shows its session on the leader: blocked, with no timeout.
    await c.locator('.pane-status.blocked').waitFor();
    assert.equal(await run(a, 'UNSUBSCRIBE'), '1) "unsubscribe"\n2) "back"\n3) (integer) 0');
    assert.equal(await run(a, 'LPUSH q job'), '(integer) 1');
    await waitLog(c, /1\) "q"\n2\) "job"/);
    // A timeout runs on the leader's clock and reaches the follower.
    await type(c, 'BLPOP empty 0.3');
    await waitLog(c, /\(nil\)/);
    // MULTI is the follower pane's own transaction.
    assert.equal(await run(c, 'MULTI'), 'OK');
    assert.equal(await run(c, 'INCR t'), 'QUEUED');
    assert.equal(await run(a, 'GET t'), '(nil)');
    assert.equal(await run(c, 'EXEC'), '1) (integer) 1');
    assert.equal(await run(a, 'GET t'), '"1"');
    // Ctrl+C in a follower stops the wait on the leader and keeps the client: its
    // database and id stay, and a later LPUSH is not taken by the cancelled BLPOP.
    assert.equal(await run(c, 'SELECT 3'), 'OK');
    const id = await run(c, 'CLIENT ID');
    await type(c, 'BLPOP later 0');
    await c.locator('.pane-status.blocked').waitFor();
    await box(c).press('Control+c');
    await c.locator('.pane-status.blocked').waitFor({ state: 'detached', timeout: 5_000 });
    assert.equal(await run(c, 'CLIENT ID'), id);
    assert.equal(await run(a, 'SELECT 3'), 'OK');
    assert.equal(await run(a, 'LPUSH later v'), '(integer) 1');
    assert.equal(await run(c, 'LLEN later'), '(integer) 1');
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('when the leader tab closes another takes over, says so, and its writes are saved', async () => {
  const { context, page: a, errors, close } = await launch();
  try {
    await open(a, 'failover', 'leader');
    const b = await context.newPage();
    await open(b, 'failover', 'follower');
    assert.equal(await run(b, 'SET before 1'), 'OK');
    assert.match(await run(b, 'SUBSCRIBE ch'), /"subscribe"/);
    await a.close();
    await b.waitForFunction(() => document.documentElement.dataset.tabRole === 'leader');
    assert.equal(await b.evaluate(() => document.documentElement.dataset.persist), 'saved');
    await waitLog(b, /this tab runs it now\. This client was reconnected/);
    // A new session: no longer subscribed, database 0, and the data is all there.
    assert.equal(await run(b, 'GET before'), '"1"');
    assert.equal(await run(b, 'SET after 2'), 'OK');
    await b.screenshot({ path: `${shots}/tabs-failover.png` });
    // A new tab follows the new leader.
    const c = await context.newPage();
    await open(c, 'failover', 'follower');
    assert.equal(await run(c, 'MGET before after'), '1) "1"\n2) "2"');
    await c.close();
    await b.reload();
    await open(b, 'failover', 'leader');
    assert.equal(await run(b, 'MGET before after'), '1) "1"\n2) "2"');
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('the reconnect message follows the UI language', async () => {
  const { context, page: a, close } = await launch({ locale: 'zh-CN' });
  try {
    await open(a, 'zh', 'leader');
    const b = await context.newPage();
    await open(b, 'zh', 'follower');
    assert.match(await b.locator('.tab-role').innerText(), /已连接到主标签页/);
    assert.equal(await run(b, 'SET k v'), 'OK');
    await a.close();
    await waitLog(b, /现在由本标签页运行。此客户端已重新连接/);
  } finally {
    await close();
  }
});
