// BroadcastChannel glue for src/ui/services/tabs.rs: one channel per workspace, carrying the
// framed messages of src/tabs.rs as Uint8Arrays. Never throws.

/** Opens the workspace's channel; `onmessage(bytes)` gets each message another tab posts.
 * Returns the channel, or null where BroadcastChannel is missing. */
export function tabs_open(workspace, onmessage) {
  if (typeof BroadcastChannel === 'undefined') return null;
  try {
    const ch = new BroadcastChannel('kvlab-ws-' + workspace);
    ch.onmessage = (e) => {
      if (e.data instanceof Uint8Array) onmessage(e.data);
    };
    return ch;
  } catch {
    return null;
  }
}

/** Posts a copy of `bytes` (a view into the wasm memory) to the other tabs. */
export function tabs_post(ch, bytes) {
  try {
    ch.postMessage(bytes.slice());
  } catch {
    // closed channel: the page is going away
  }
}

/** Calls `f` when the page is being unloaded. */
export function tabs_on_leave(f) {
  try {
    addEventListener('pagehide', () => f());
  } catch {
    // no window
  }
}

/** A random tab id (53 bits). */
export function tabs_random_id() {
  return Math.floor(Math.random() * 9007199254740991) + 1;
}
