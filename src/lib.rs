//! # kvlab
//!
//! A Redis-compatible data-structure engine for learning key-value design. It runs in the
//! browser as WebAssembly and natively behind a RESP server.
//!
//! # Layout
//! - [`engine`]: Redis 7.0 semantics over in-memory data; no web or I/O dependencies, builds
//!   for the host and for `wasm32-unknown-unknown`.
//! - [`server`] (native only): the RESP server that `redis-cli`, `redis-benchmark` and client
//!   libraries talk to.
//! - `persist` (wasm only): the effect log and snapshots in IndexedDB, workspaces, fallbacks.
//! - `ui` (wasm only): the Yew web app: a redis-cli style console over an in-page engine.
//! - `src/bin/`: thin binaries (`kvlab-server`, `kvlab-web`).

pub mod engine;
#[cfg(target_arch = "wasm32")]
pub mod persist;
#[cfg(not(target_arch = "wasm32"))]
pub mod server;
#[cfg(target_arch = "wasm32")]
pub mod ui;
