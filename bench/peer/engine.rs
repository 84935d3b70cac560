//! kvlab's engine alone, exported to JavaScript for `bench/peer.mjs`: the browser
//! benchmark against ioredis-mock, the in-browser peer. It runs in the page as the app's
//! engine does (the browser's clock), with none of the app around it, so the benchmark
//! measures the engine and the call from JavaScript, as ioredis-mock's figures measure
//! its own.
//!
//! Built by `bench/peer.mjs` (`cargo build --release --target wasm32-unknown-unknown
//! --bin kvlab-bench-peer`, then `wasm-bindgen --target web`); natively it does nothing.

#[cfg(target_arch = "wasm32")]
mod peer {
    use kvlab::engine::{ClientId, Engine, FnClock, Reply};
    use wasm_bindgen::prelude::*;

    /// One engine and one client on it.
    #[wasm_bindgen]
    pub struct BenchEngine {
        engine: Engine,
        client: ClientId,
    }

    /// A reply as JavaScript sees one from a client library: strings, numbers, null,
    /// arrays; an error as an `Error` object.
    fn to_js(r: Reply) -> JsValue {
        match r {
            Reply::Status(s) => JsValue::from_str(&s),
            Reply::Error(e) => js_sys::Error::new(&e).into(),
            Reply::Integer(n) => JsValue::from_f64(n as f64),
            Reply::Bulk(b) | Reply::Verbatim(_, b) => {
                JsValue::from_str(&String::from_utf8_lossy(&b))
            }
            Reply::Nil | Reply::NilArray => JsValue::NULL,
            Reply::Array(items) | Reply::Set(items) => items
                .into_iter()
                .map(to_js)
                .collect::<js_sys::Array>()
                .into(),
            Reply::Map(pairs) => pairs
                .into_iter()
                .flat_map(|(k, v)| [to_js(k), to_js(v)])
                .collect::<js_sys::Array>()
                .into(),
            Reply::Double(d) => JsValue::from_f64(d),
            other => JsValue::from_str(&format!("{other:?}")),
        }
    }

    #[wasm_bindgen]
    impl BenchEngine {
        /// A fresh engine on the browser's clock.
        #[wasm_bindgen(constructor)]
        #[allow(clippy::new_without_default)]
        pub fn new() -> BenchEngine {
            let clock = FnClock(js_sys::Date::now, None::<fn() -> f64>);
            let mut engine = Engine::new(Box::new(clock), 1);
            let client = engine.connect();
            BenchEngine { engine, client }
        }

        /// Runs one command, its words as strings; returns the reply. The effects the
        /// command recorded (what the app hands its persistence) are taken and dropped, as
        /// the app takes them after each command: left in the engine they would pile up,
        /// a copy of every write's arguments.
        pub fn call(&mut self, argv: Vec<String>) -> JsValue {
            let argv = argv.into_iter().map(String::into_bytes).collect();
            let reply = self.engine.execute(self.client, argv);
            drop(self.engine.take_effects());
            to_js(reply)
        }
    }
}

fn main() {}
