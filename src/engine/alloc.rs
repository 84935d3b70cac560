//! Allocation facts the engine reports but cannot see: the sizes jemalloc (Redis's
//! allocator) hands out, which `MEMORY USAGE` counts in (`core::objsize`), and what the
//! host tells of its own process ([`HostFacts`]: the allocator it links, its resident
//! size). Nothing here depends on the rest of the engine.

/// The usable size jemalloc 5.3 gives a request of `n` bytes (64-bit, 16-byte quantum):
/// 8, 16, then multiples of 16 up to 64, then four size classes per doubling.
pub fn jemalloc_size(n: u64) -> u64 {
    let up = |n: u64, step: u64| n.div_ceil(step) * step;
    match n {
        0..=8 => 8,
        9..=16 => 16,
        17..=64 => up(n, 16),
        _ => {
            let k = 63 - (n - 1).leading_zeros();
            up(n, 1 << (k - 2))
        }
    }
}

/// The header an sds of `len` bytes gets (`sdsReqType`; type 5 only for 1 to 31 bytes).
pub fn sds_header(len: usize) -> u64 {
    match len {
        1..=31 => 1,
        0 | 32..=255 => 3,
        256..=65_535 => 5,
        _ if len as u64 <= u32::MAX as u64 => 9,
        _ => 17,
    }
}

/// What the engine cannot know about the process it runs in, told by the host (for
/// `INFO memory`): the allocator the binary links and how to read its resident size.
#[derive(Debug, Clone, Copy)]
pub struct HostFacts {
    /// `mem_allocator`: the allocator's name (Redis says `jemalloc-5.3.0` or `libc`).
    pub allocator: &'static str,
    /// `used_memory_rss`: the process's resident bytes now, if the host can tell
    /// (natively from `/proc`; in the browser the wasm memory's size). Without it INFO
    /// reports the estimate `used_memory` there too.
    pub resident: Option<fn() -> Option<u64>>,
}

impl Default for HostFacts {
    /// The browser build knows its own: Rust's wasm32 allocator is dlmalloc, and the
    /// memory a tab holds for the engine is the wasm memory, which never shrinks. A native
    /// library user gets the system allocator and no resident figure until it says more
    /// ([`Engine::set_host_facts`](crate::engine::Engine::set_host_facts)).
    fn default() -> HostFacts {
        #[cfg(target_arch = "wasm32")]
        {
            HostFacts {
                allocator: "dlmalloc",
                resident: Some(wasm_memory_bytes),
            }
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            HostFacts {
                allocator: "libc",
                resident: None,
            }
        }
    }
}

/// The size of the wasm module's memory, in bytes (64 KiB pages).
#[cfg(target_arch = "wasm32")]
fn wasm_memory_bytes() -> Option<u64> {
    Some(core::arch::wasm32::memory_size::<0>() as u64 * 65_536)
}

impl HostFacts {
    /// The resident size the host reports, else `estimate`.
    pub fn resident_or(&self, estimate: u64) -> u64 {
        self.resident.and_then(|f| f()).unwrap_or(estimate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jemalloc_classes() {
        let cases = [
            (1, 8),
            (8, 8),
            (9, 16),
            (17, 32),
            (33, 48),
            (64, 64),
            (65, 80),
            (129, 160),
            (257, 320),
            (4096, 4096),
            (4097, 5120),
            (14337, 16384),
            (16385, 20480),
        ];
        for (n, want) in cases {
            assert_eq!(jemalloc_size(n), want, "{n}");
        }
    }
}
