//! `kvlab-web`: the browser entry point that trunk builds. On other targets it does nothing.

fn main() {
    #[cfg(target_arch = "wasm32")]
    kvlab::ui::start();
}
