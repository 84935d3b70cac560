// IndexedDB glue for src/persist (imported by idb.rs through wasm-bindgen). Every function
// returns a Promise and never throws synchronously. One IndexedDB database per workspace,
// named PREFIX + workspace, with three object stores:
//   meta        "snapshot" -> Uint8Array (engine::snapshot format)
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

/** Everything stored: [snapshot or null, log keys, log values], in key order. */
export async function kv_load(db) {
  const tx = db.transaction(['meta', 'log'], 'readonly');
  const [snap, keys, values] = await Promise.all([
    req(tx.objectStore('meta').get('snapshot')),
    req(tx.objectStore('log').getAllKeys()),
    req(tx.objectStore('log').getAll()),
  ]);
  return [snap ?? null, keys, values];
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

/** Stored bytes of an open workspace (snapshot plus log). */
export async function kv_size(db) {
  const [snap, , values] = await kv_load(db);
  let n = snap ? snap.byteLength : 0;
  for (const v of values) n += v.byteLength;
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
