//! kvlab's engine alone, exported to JavaScript for `bench/peer.mjs`: the browser
//! benchmark against ioredis-mock, the in-browser peer. It runs in the page as the app's
//! engine does (the browser's clock, effects recorded as for persistence), with none of
//! the app around it, so the benchmark measures the engine and the call from JavaScript,
//! as ioredis-mock's figures measure its own. `bench/peer/kvlab.mjs` is the JavaScript
//! side of the call: words in, a client library's reply out.
//!
//! Built by `bench/peer.mjs` twice (`cargo build --target wasm32-unknown-unknown --bin
//! kvlab-bench-peer`, then `wasm-bindgen --target web`): at the `web` profile with
//! `wasm-opt -Oz`, as the app ships its engine, and at the release profile for comparison;
//! natively it does nothing.

#[cfg(target_arch = "wasm32")]
mod peer {
    use kvlab::engine::{ClientId, Engine};
    use kvlab::ui::services::engine::browser_clock;
    use wasm_bindgen::prelude::*;

    /// One engine and one client on it, and the two buffers of its packed calls
    /// ([`BenchEngine::run`]).
    #[wasm_bindgen]
    pub struct BenchEngine {
        engine: Engine,
        client: ClientId,
        input: Vec<u8>,
        output: Vec<u8>,
    }

    #[wasm_bindgen]
    impl BenchEngine {
        /// A fresh engine on the browser's clock.
        #[wasm_bindgen(constructor)]
        #[allow(clippy::new_without_default)]
        pub fn new() -> BenchEngine {
            let mut engine = Engine::new(Box::new(browser_clock()), 1);
            let client = engine.connect();
            BenchEngine {
                engine,
                client,
                input: Vec::new(),
                output: Vec::new(),
            }
        }

        /// The address of the input buffer, grown to hold at least `bytes` bytes, where
        /// JavaScript packs a command for [`BenchEngine::run`]. It stays where it is until
        /// the next call of `input` (wasm memory may still grow and detach a view of it).
        pub fn input(&mut self, bytes: usize) -> *mut u8 {
            if self.input.len() < bytes {
                self.input.resize(bytes.next_power_of_two(), 0);
            }
            self.input.as_mut_ptr()
        }

        /// Runs the command packed in the input buffer — `argc` words, each a 4-byte
        /// little-endian length and its bytes — and encodes its reply, and anything queued
        /// for the client after it, in RESP2 into the output buffer; returns the length
        /// (at [`BenchEngine::output`]). A packing that runs past the buffer is refused
        /// with an error reply, never read beyond it. The effects the command recorded
        /// are taken and dropped, as the app hands them to its persistence after each
        /// command: left in the engine they would pile up, a copy of every write.
        pub fn run(&mut self, argc: usize) -> usize {
            self.output.clear();
            let mut argv = Vec::with_capacity(argc);
            if words(&self.input, argc, |w| argv.push(w.to_vec())).is_none() {
                self.output.extend_from_slice(PAST_BUFFER);
                return self.output.len();
            }
            self.engine.submit_into(self.client, argv, &mut self.output);
            let out = &mut self.output;
            self.engine
                .drain_pushes(self.client, |r| r.write_resp(2, out));
            drop(self.engine.take_effects());
            self.output.len()
        }

        /// The address of the output buffer that [`BenchEngine::run`] filled.
        pub fn output(&self) -> *const u8 {
            self.output.as_ptr()
        }

        /// The crossing alone, for the benchmark's floor: reads the packing as
        /// [`BenchEngine::run`] does (bounds-checked, without copying the words) and
        /// replies with the last word as a RESP2 bulk string, without the engine. A call
        /// through here costs what any store in wasm, called once per command from
        /// JavaScript this way, pays before doing any work.
        pub fn echo(&mut self, argc: usize) -> usize {
            self.output.clear();
            let mut last: &[u8] = &[];
            if words(&self.input, argc, |w| last = w).is_none() {
                self.output.extend_from_slice(PAST_BUFFER);
                return self.output.len();
            }
            self.output.push(b'$');
            self.output
                .extend_from_slice(itoa::Buffer::new().format(last.len()).as_bytes());
            self.output.extend_from_slice(b"\r\n");
            self.output.extend_from_slice(last);
            self.output.extend_from_slice(b"\r\n");
            self.output.len()
        }
    }

    /// The reply to a packing that runs past its buffer.
    const PAST_BUFFER: &[u8] = b"-ERR packed command runs past its buffer\r\n";

    /// Hands `each` the `argc` words packed in `input` (each a 4-byte little-endian length
    /// and its bytes), in order; `None` if the packing runs past the buffer.
    fn words<'a>(input: &'a [u8], argc: usize, mut each: impl FnMut(&'a [u8])) -> Option<()> {
        let mut rest = input;
        for _ in 0..argc {
            let (len, tail) = rest.split_first_chunk::<4>()?;
            let (word, tail) = tail.split_at_checked(u32::from_le_bytes(*len) as usize)?;
            each(word);
            rest = tail;
        }
        Some(())
    }
}

fn main() {}
