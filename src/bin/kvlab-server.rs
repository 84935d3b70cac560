//! `kvlab-server`: serves the engine over RESP on TCP, like `redis-server`.
//!
//! `kvlab-server [--bind ADDR] [--port PORT] [--seed N]`; see `kvlab::server`.

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    use kvlab::server::{Invocation, Options, USAGE};
    match Options::from_args(std::env::args().skip(1)) {
        Ok(Invocation::Help) => println!("{USAGE}"),
        Ok(Invocation::Serve(mut opts)) => {
            opts.allocator = ALLOCATOR_NAME;
            opts.release_freed = Some(release_freed);
            if let Err(e) = kvlab::server::run(&opts) {
                eprintln!("kvlab-server: {e}");
                std::process::exit(1);
            }
        }
        Err(msg) => {
            eprintln!("kvlab-server: {msg}\n{USAGE}");
            std::process::exit(2);
        }
    }
}

/// There is no TCP server in the browser build.
#[cfg(target_arch = "wasm32")]
fn main() {}

/// mimalloc instead of the system allocator: every command allocates and frees a handful of
/// small buffers (arguments, replies), and glibc's malloc made that a fifth of the server's
/// CPU time under `redis-benchmark`. Redis links jemalloc for the same reason.
#[cfg(not(target_arch = "wasm32"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Has mimalloc return the pages it holds free to the system now rather than at its next
/// allocations: purges what its `purge_delay` deferred and frees empty segments.
#[cfg(not(target_arch = "wasm32"))]
#[allow(unsafe_code)]
fn release_freed() {
    // The mimalloc crate links libmimalloc, which defines this C function; its wrapper
    // crate only declares it behind a feature that needs another download.
    extern "C" {
        fn mi_collect(force: bool);
    }
    // SAFETY: `mi_collect` takes a plain bool, may be called at any time from any thread,
    // and only touches the calling thread's heap and the allocator's own state.
    unsafe { mi_collect(false) }
}

/// [`ALLOCATOR`]'s name, as `INFO memory` reports it in `mem_allocator`.
#[cfg(not(target_arch = "wasm32"))]
const ALLOCATOR_NAME: &str = "mimalloc";
