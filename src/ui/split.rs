//! The second half of the app's wasm, loaded after the console is interactive.
//!
//! A release build is split in two by `tools/wasm-split` (run from trunk's post-build
//! hook, `scripts/split.mjs`), guided by a profile of the functions start-up runs: the
//! page loads the *primary* module, with those functions, and this module loads the
//! *secondary* one, with the rest, in the background once the app is on screen. A call to a
//! function of the secondary before it is in goes through a stub that calls
//! `ensure`, which loads it synchronously, so nothing depends on the
//! profile being complete; it only decides what the first load carries.
//!
//! A page a service worker controls (the installed app, or any visit after the first)
//! has every file in its cache; there `split.js` compiles the secondary before the app
//! starts, so a stub called during start-up never needs the network (a synchronous
//! request would bypass the worker and fail offline).
//!
//! Development builds are not split: every function here then returns at once.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/ui/split.js")]
extern "C" {
    fn split_load(exports: JsValue) -> js_sys::Promise;
    fn split_load_now(exports: JsValue);
}

/// Loads the secondary module now (synchronously) unless it is in. The stubs of
/// `tools/wasm-split` call it through the app's export `kvlab_split_ensure`
/// (`src/bin/kvlab-web.rs`; only the app exports it, so the SQL worker, which links this
/// crate too, does not import this module's JS), and it and what it calls directly stay
/// in the primary module.
pub fn ensure() {
    split_load_now(wasm_bindgen::exports());
}

/// Once the app is on screen (an effect of the root component): starts loading the
/// secondary module in the background.
pub fn load_in_background() {
    // In an unsplit build split.js finds no module named and returns at once. The promise
    // never rejects: split.js logs a failure, and a stub would try again.
    let _ = split_load(wasm_bindgen::exports());
}
