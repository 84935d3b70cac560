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
static ALLOCATOR: Mimalloc = Mimalloc;

// The mimalloc crate links libmimalloc, which defines these C functions; its wrapper
// crate only declares them behind a feature that needs another download.
#[cfg(not(target_arch = "wasm32"))]
#[allow(unsafe_code)]
extern "C" {
    fn mi_collect(force: bool);
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    fn mi_malloc(size: usize) -> *mut std::ffi::c_void;
    fn mi_zalloc(size: usize) -> *mut std::ffi::c_void;
    fn mi_realloc(p: *mut std::ffi::c_void, newsize: usize) -> *mut std::ffi::c_void;
}

/// The alignment mimalloc's plain `mi_malloc` gives every block at least that large
/// (`MI_MAX_ALIGN_SIZE`, 16 on 64-bit targets; mimalloc's own `mi_malloc_is_naturally_aligned`
/// relies on the same rule).
#[cfg(not(target_arch = "wasm32"))]
const MI_MAX_ALIGN_SIZE: usize = 16;

/// mimalloc, asked as Rust's own `System` allocator asks malloc: the plain `mi_malloc`
/// when its natural alignment suffices (nearly every allocation), the aligned entry points
/// otherwise. The mimalloc crate's `MiMalloc` always calls `mi_malloc_aligned`, whose
/// extra checks and slower path cost ~20 instructions for each of the ~4 allocations of a
/// GET (callgrind: 3% of the server's instructions per request).
#[cfg(not(target_arch = "wasm32"))]
struct Mimalloc;

/// True when a block of `size` bytes from the plain entry points (`mi_malloc`, `mi_zalloc`,
/// `mi_realloc`) is aligned enough for `align`.
#[cfg(not(target_arch = "wasm32"))]
#[inline]
fn naturally_aligned(size: usize, align: usize) -> bool {
    align <= MI_MAX_ALIGN_SIZE && align <= size
}

#[cfg(not(target_arch = "wasm32"))]
#[allow(unsafe_code)]
// SAFETY: every block comes from libmimalloc and goes back to it (`mi_free` through
// `MiMalloc::dealloc` frees blocks of either entry point); a plain `mi_malloc` block is
// only used where `naturally_aligned` holds, where mimalloc guarantees that alignment.
unsafe impl std::alloc::GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        if naturally_aligned(layout.size(), layout.align()) {
            // SAFETY: size is non-zero (at least the alignment).
            unsafe { mi_malloc(layout.size()).cast() }
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { mimalloc::MiMalloc.alloc(layout) }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        if naturally_aligned(layout.size(), layout.align()) {
            // SAFETY: as in `alloc`.
            unsafe { mi_zalloc(layout.size()).cast() }
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: `ptr` came from this allocator, so from libmimalloc.
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        if naturally_aligned(new_size, layout.align()) {
            // SAFETY: `ptr` is a live libmimalloc block; the new block is naturally
            // aligned to `layout.align()` as in `alloc`.
            unsafe { mi_realloc(ptr.cast(), new_size).cast() }
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) }
        }
    }
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
