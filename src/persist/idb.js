// IndexedDB glue for src/persist (imported by idb.rs through wasm-bindgen). Every function
// returns a Promise and never throws synchronously. One IndexedDB database per workspace,
// named PREFIX + workspace, with three object stores:
//   meta        "snapshot" -> Uint8Array (engine::snapshot format)
//               "script:<sha1>" -> Uint8Array (a cached Lua script's body, SCRIPT LOAD/EVAL)
//   log         seq (number) -> Uint8Array (one log record each)
//   quarantine  seq (number) -> Uint8Array (records found corrupt, kept for inspection)

const PREFIX = 'kvlab-ws-';

function req(r) {
  return new Promise((ok, fail) => {
    r.onsuccess = () => ok(r.result);
    r.onerror = () => fail(r.error);
  });
}

function done(tx) {
  return new Promise((ok, fail) => {
    tx.oncomplete = () => ok();
    tx.onerror = () => fail(tx.error);
    tx.onabort = () => fail(tx.error ?? new DOMException('transaction aborted', 'AbortError'));
  });
}

/** Opens (creating if needed) the database of `workspace`. Rejects when IndexedDB is
 * missing or refused (private mode, blocked by settings). */
export async function kv_open(workspace) {
  if (typeof indexedDB === 'undefined' || indexedDB === null) {
    throw new Error('IndexedDB is not available');
  }
  const r = indexedDB.open(PREFIX + workspace, 1);
  r.onupgradeneeded = () => {
    const db = r.result;
    for (const s of ['meta', 'log', 'quarantine']) {
      if (!db.objectStoreNames.contains(s)) db.createObjectStore(s);
    }
  };
  const db = await req(r);
  // Another tab deleting or upgrading this workspace: let it, we are done with it.
  db.onversionchange = () => db.close();
  return db;
}

/** The keys of the stored scripts in `meta`: "script:" and a SHA-1. */
const SCRIPTS = () => IDBKeyRange.bound('script:', 'script:\uffff');

/** Everything stored: [snapshot or null, log keys, log values, script bodies], in key
 * order. */
export async function kv_load(db) {
  const tx = db.transaction(['meta', 'log'], 'readonly');
  const [snap, keys, values, scripts] = await Promise.all([
    req(tx.objectStore('meta').get('snapshot')),
    req(tx.objectStore('log').getAllKeys()),
    req(tx.objectStore('log').getAll()),
    req(tx.objectStore('meta').getAll(SCRIPTS())),
  ]);
  return [snap ?? null, keys, values, scripts];
}

/** Appends one log record (unless `seq` < 0) and stores script changes — forgets every
 * stored script first if `flush`, then puts `shas[i]` -> `bodies[i]` — in one transaction;
 * resolves once it has committed durably. */
export function kv_write(db, seq, bytes, flush, shas, bodies) {
  try {
    const tx = db.transaction(['meta', 'log'], 'readwrite', { durability: 'strict' });
    if (seq >= 0) tx.objectStore('log').put(bytes.slice(), seq);
    const meta = tx.objectStore('meta');
    if (flush) meta.delete(SCRIPTS());
    shas.forEach((sha, i) => meta.put(bodies[i], 'script:' + sha));
    return done(tx);
  } catch (e) {
    return Promise.reject(e);
  }
}

/** Appends one log record; resolves once the transaction has committed durably. */
export function kv_append(db, seq, bytes) {
  try {
    const tx = db.transaction('log', 'readwrite', { durability: 'strict' });
    // `bytes` is a view into the wasm memory: store a copy of just these bytes (structured
    // clone of a view would copy its whole buffer, i.e. all of the wasm memory).
    tx.objectStore('log').put(bytes.slice(), seq);
    return done(tx);
  } catch (e) {
    return Promise.reject(e);
  }
}

/** Replaces the snapshot and drops the log records it includes (seq <= upto), in one
 * transaction: either the new snapshot and the shorter log, or neither. `bad` lists
 * [seq, bytes] pairs to move into quarantine. */
export function kv_compact(db, snapshot, upto, bad) {
  try {
    const tx = db.transaction(['meta', 'log', 'quarantine'], 'readwrite', { durability: 'strict' });
    tx.objectStore('meta').put(snapshot.slice(), 'snapshot');
    for (const [seq, bytes] of bad) tx.objectStore('quarantine').put(bytes.slice(), seq);
    tx.objectStore('log').delete(IDBKeyRange.upperBound(upto));
    return done(tx);
  } catch (e) {
    return Promise.reject(e);
  }
}

/** Stored bytes of an open workspace (snapshot, log and scripts). */
export async function kv_size(db) {
  const [snap, , values, scripts] = await kv_load(db);
  let n = snap ? snap.byteLength : 0;
  for (const v of values) n += v.byteLength;
  for (const v of scripts) n += v.byteLength;
  return n;
}

/** Takes the workspace's lock if no other tab holds it. Resolves to a function that
 * releases it and returns a Promise of the release (call it when leaving the workspace),
 * or null when another tab holds it. Without the Web Locks API: a function that does
 * nothing. */
export function kv_lock(workspace) {
  if (typeof navigator === 'undefined' || !navigator.locks) return Promise.resolve(() => Promise.resolve());
  // A lock this tab was granted while waiting (kv_wait_lock): it is this tab's now.
  const handed = handover.get(workspace);
  if (handed) {
    handover.delete(workspace);
    return Promise.resolve(handed);
  }
  return new Promise((ok) => {
    const request = navigator.locks
      .request(PREFIX + workspace, { ifAvailable: true }, (lock) => {
        if (lock === null) {
          ok(null);
          return undefined;
        }
        // Held until released; releasing resolves once the lock is free for others.
        return new Promise((release) => ok(() => (release(), request)));
      })
      .catch(() => ok(() => Promise.resolve()));
  });
}

/** Locks granted to kv_wait_lock and not yet taken by kv_lock, by workspace. */
const handover = new Map();

/** Waits in the queue for the workspace's lock (another tab holds it). Resolves to true once
 * this tab holds it — the next kv_lock of the workspace then returns its release function —
 * or false without the Web Locks API. */
export function kv_wait_lock(workspace) {
  if (typeof navigator === 'undefined' || !navigator.locks) return Promise.resolve(false);
  return new Promise((ok) => {
    const request = navigator.locks
      .request(PREFIX + workspace, (lock) => {
        if (lock === null) {
          ok(false);
          return undefined;
        }
        return new Promise((release) => {
          handover.set(workspace, () => (release(), request));
          ok(true);
        });
      })
      .catch(() => ok(false));
  });
}

/** Closes a database connection. */
export function kv_close(db) {
  try {
    db.close();
  } catch {
    // already closed
  }
}

/** Names of the stored workspaces (where the browser can list databases). */
export async function kv_list() {
  if (typeof indexedDB === 'undefined' || !indexedDB || !indexedDB.databases) return [];
  const all = await indexedDB.databases();
  return all.map((d) => d.name).filter((n) => n && n.startsWith(PREFIX)).map((n) => n.slice(PREFIX.length));
}

/** Deletes a workspace's database. */
export function kv_delete(workspace) {
  try {
    return req(indexedDB.deleteDatabase(PREFIX + workspace)).then(() => undefined);
  } catch (e) {
    return Promise.reject(e);
  }
}

/** The error's DOMException name (QuotaExceededError, …) or its message. */
export function kv_error_name(e) {
  if (e && typeof e === 'object' && 'name' in e) return String(e.name);
  return String(e);
}

// Workspace management (the workspace manager in the UI). Each operation on a workspace
// other than the page's own takes that workspace's Web Lock first, so a workspace open in
// another tab is never renamed, reset or deleted under it (the error is named
// "WorkspaceBusy"). The page leaves its own workspace (releasing the lock) before it calls
// these on it.

function busy() {
  return new DOMException('the workspace is open in another tab', 'WorkspaceBusy');
}

async function withLock(workspace, fn) {
  const release = await kv_lock(workspace);
  if (release === null) throw busy();
  try {
    return await fn();
  } finally {
    await release();
  }
}

async function exists(workspace) {
  return (await kv_list()).includes(workspace);
}

/** Stored bytes of a workspace by name (opens and closes its database). */
export async function kv_size_of(workspace) {
  if (!(await exists(workspace))) return 0;
  const db = await kv_open(workspace);
  try {
    return await kv_size(db);
  } finally {
    db.close();
  }
}

/** Creates an empty workspace (its database). Rejects with "WorkspaceExists" if it exists. */
export async function kv_create(workspace) {
  if (await exists(workspace)) throw new DOMException('a workspace of this name exists', 'WorkspaceExists');
  (await kv_open(workspace)).close();
}

/** Renames `from` to `to`: copies every record into the new database in one transaction,
 * then deletes the old one. If anything fails before the copy has committed, the new
 * database is removed and the old one is untouched; the old one is deleted only after. */
export async function kv_rename(from, to) {
  if (await exists(to)) throw new DOMException('a workspace of this name exists', 'WorkspaceExists');
  await withLock(from, () =>
    withLock(to, async () => {
      const src = await kv_open(from);
      let dst;
      try {
        const stores = ['meta', 'log', 'quarantine'];
        const rtx = src.transaction(stores, 'readonly');
        const data = await Promise.all(
          stores.map((s) =>
            Promise.all([req(rtx.objectStore(s).getAllKeys()), req(rtx.objectStore(s).getAll())]),
          ),
        );
        dst = await kv_open(to);
        const wtx = dst.transaction(stores, 'readwrite', { durability: 'strict' });
        stores.forEach((s, i) => {
          const [keys, values] = data[i];
          keys.forEach((k, j) => wtx.objectStore(s).put(values[j], k));
        });
        await done(wtx);
      } catch (e) {
        if (dst) dst.close();
        await kv_delete(to).catch(() => {});
        throw e;
      } finally {
        src.close();
      }
      dst.close();
      await kv_delete(from);
    }),
  );
}

/** Empties a workspace (it stays listed). */
export async function kv_reset(workspace) {
  await withLock(workspace, async () => {
    const db = await kv_open(workspace);
    try {
      const tx = db.transaction(['meta', 'log', 'quarantine'], 'readwrite', { durability: 'strict' });
      for (const s of ['meta', 'log', 'quarantine']) tx.objectStore(s).clear();
      await done(tx);
    } finally {
      db.close();
    }
  });
}

/** Deletes a workspace, unless another tab has it open. */
export async function kv_remove(workspace) {
  await withLock(workspace, () => kv_delete(workspace));
}

/** Offers `bytes` as a file download named `name`. */
export function kv_download(name, bytes, type) {
  const url = URL.createObjectURL(new Blob([bytes.slice()], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
