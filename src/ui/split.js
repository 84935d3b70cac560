// Loader for the second half of the app's wasm (src/ui/split.rs, tools/wasm-split).
//
// A release build's index.html names the secondary module in
// <meta name="kvlab-split" content="./kvlab-web-cold-….wasm">. The module imports the
// primary's memory, tables, globals and functions (everything under the import module
// `primary`, which the primary exports) and, when instantiated, fills the function-table
// slots of the primary's stubs and marks itself loaded. So loading it is: fetch, compile,
// instantiate with the primary's exports. Without the meta tag (development builds) there
// is nothing to load and every function here returns at once.

let compiled = null; // WebAssembly.Module, once compiled
let instance = null; // its instance, once loaded
let pending = null; // the background load's promise
let loading = false; // inside split_load_now

function url() {
  const meta = document.querySelector('meta[name="kvlab-split"]');
  return meta ? new URL(meta.content, document.baseURI).href : null;
}

async function compile(at) {
  const response = await fetch(at);
  if (!response.ok) throw new Error(`kvlab: ${at}: HTTP ${response.status}`);
  return WebAssembly.compile(await response.arrayBuffer());
}

// A page a service worker controls (the installed app, any visit after the first) has the
// module in the worker's cache. Such a page compiles it before the app starts: this
// module's top-level await holds back the wasm-bindgen glue that imports it. Then a stub
// called during start-up instantiates it at once, instead of making a synchronous request
// that would bypass the worker and fail offline. A first visit starts at once and loads
// the module in the background after mounting (split_load).
if (url() && navigator.serviceWorker?.controller) {
  try {
    compiled = await compile(url());
  } catch (e) {
    console.warn('kvlab: loading the rest of the app:', e);
  }
}

function instantiate(module, exports) {
  if (!instance) instance = new WebAssembly.Instance(module, { primary: exports });
}

/** Loads the secondary module in the background. The promise resolves when it is in, or
 * when loading failed (logged; a later stub call or load tries again): it never rejects. */
export function split_load(exports) {
  return load(exports).catch((e) => console.warn('kvlab: loading the rest of the app:', e));
}

function load(exports) {
  const at = url();
  if (!at || instance) return Promise.resolve();
  pending ??= (async () => {
    // After this task: the browser paints the app first.
    await new Promise((ok) => setTimeout(ok, 0));
    compiled ??= await compile(at);
    instantiate(compiled, exports);
  })();
  pending.catch(() => {
    pending = null; // let a later call try again
  });
  return pending;
}

/** Loads it now, synchronously: a stub was called before the background load finished.
 * Compiles what the background load fetched if it can, otherwise fetches with a
 * synchronous request. Throws if the module cannot be had. */
export function split_load_now(exports) {
  if (instance) return;
  // The loader's own functions stay in the primary (tools/wasm-split keeps what
  // kvlab_split_ensure calls directly); reaching a stub from here would loop.
  if (loading) throw new Error('kvlab: the loader called a function of the module it is loading');
  loading = true;
  try {
    load_now(exports);
  } finally {
    loading = false;
  }
}

function load_now(exports) {
  if (!compiled) {
    const at = url();
    if (!at) throw new Error('kvlab: a split function was called, but the build names no secondary module');
    const xhr = new XMLHttpRequest();
    xhr.open('GET', at, false);
    // Synchronous requests cannot ask for an ArrayBuffer; this charset keeps bytes intact.
    xhr.overrideMimeType('text/plain; charset=x-user-defined');
    xhr.send();
    if (xhr.status !== 200) throw new Error(`kvlab: ${at}: HTTP ${xhr.status}`);
    const text = xhr.responseText;
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
    compiled = new WebAssembly.Module(bytes);
  }
  instantiate(compiled, exports);
}
