//! `kvlab-web`: the browser entry point that trunk builds. On other targets it does nothing.

fn main() {
    #[cfg(target_arch = "wasm32")]
    kvlab::ui::start();
}

/// Called by the stubs of a split release build: loads the rest of the app's wasm (see
/// `kvlab::ui::split` and `tools/wasm-split`).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn kvlab_split_ensure() {
    kvlab::ui::split::ensure();
}
