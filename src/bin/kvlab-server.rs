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
            opts.disable_thp = Some(disable_thp);
            set_purge_delay();
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

// The mimalloc crate links libmimalloc, which defines these C functions; its wrapper
// crate only declares them behind a feature that needs another download.
#[cfg(not(target_arch = "wasm32"))]
#[allow(unsafe_code)]
extern "C" {
    fn mi_collect(force: bool);
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// `mi_option_purge_delay` in mimalloc 3's `mi_option_t` (mimalloc.h).
#[cfg(not(target_arch = "wasm32"))]
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

/// How long mimalloc keeps a freed page before returning it, in milliseconds. Its default
/// (1,000) left a varying part of what a load freed resident when the load ended; with
/// [`release_freed`] after every 100 ms tick, freed pages go back within 0.2 s.
#[cfg(not(target_arch = "wasm32"))]
const PURGE_DELAY_MS: std::ffi::c_long = 100;

/// Sets the purge delay above, once at start.
#[cfg(not(target_arch = "wasm32"))]
#[allow(unsafe_code)]
fn set_purge_delay() {
    // SAFETY: mi_option_set takes two integers and is called here before any other
    // thread exists (it is not thread safe).
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
}

/// Turns transparent huge pages off for the process (Linux; elsewhere nothing). With
/// them, the kernel's khugepaged later fills a partly used 2 MB region, and resident
/// memory grows for no data.
#[cfg(not(target_arch = "wasm32"))]
#[allow(unsafe_code)]
fn disable_thp() {
    #[cfg(target_os = "linux")]
    {
        extern "C" {
            fn prctl(option: std::ffi::c_int, ...) -> std::ffi::c_int;
        }
        /// `PR_SET_THP_DISABLE` (linux/prctl.h).
        const PR_SET_THP_DISABLE: std::ffi::c_int = 41;
        let (on, zero): (std::ffi::c_ulong, std::ffi::c_ulong) = (1, 0);
        // SAFETY: PR_SET_THP_DISABLE reads its integer arguments only and changes a flag
        // of this process; a failure (an old kernel) leaves THP as it was.
        let _ = unsafe { prctl(PR_SET_THP_DISABLE, on, zero, zero, zero) };
    }
}

/// Has mimalloc return the pages it holds free to the system now rather than at its next
/// allocations: purges what its `purge_delay` deferred and frees empty segments.
#[cfg(not(target_arch = "wasm32"))]
#[allow(unsafe_code)]
fn release_freed() {
    // SAFETY: `mi_collect` takes a plain bool, may be called at any time from any thread,
    // and only touches the calling thread's heap and the allocator's own state.
    unsafe { mi_collect(false) }
}

/// [`ALLOCATOR`]'s name, as `INFO memory` reports it in `mem_allocator`.
#[cfg(not(target_arch = "wasm32"))]
const ALLOCATOR_NAME: &str = "mimalloc";
