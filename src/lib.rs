//! # kvlab
//!
//! A Redis-compatible data-structure engine for learning key-value design. It runs in the
//! browser as WebAssembly and natively behind a RESP server.
//!
//! # Layout
//! - [`engine`]: Redis 7.0 semantics over in-memory data; no web or I/O dependencies, builds
//!   for the host and for `wasm32-unknown-unknown`.
//! - `server` (native only): the RESP server that `redis-cli`, `redis-benchmark` and client
//!   libraries talk to.
//! - [`i18n`]: every text the app shows, in English and Chinese, as data rendered per
//!   language (host-compiled, so its rendering is tested by `cargo test`).
//! - [`walk`]: walkthroughs as data — the same problem in SQL and in KV; parsing and
//!   validation shared by the host check, the SQL worker and the app.
//! - [`sorting`]: stable sorting through one shared copy of the standard sort (a smaller
//!   wasm binary than a sort compiled per call site).
//! - [`tabs`]: several browser tabs on one workspace — the messages between the tab that runs
//!   it and the others, and their sequence rule.
//! - [`app`]: the web app as plain data — its state and reducer (which returns the browser
//!   work it needs as data), the console's hints, completion and `HELP`, the engine
//!   service, the URL routes and share links. Host code, tested by `cargo test`.
//! - `persist` (wasm only): the effect log and snapshots in IndexedDB, workspaces, fallbacks.
//! - `ui` (wasm only): the Yew web app — components, and the services that carry out what
//!   [`app`] asks for.
//! - `src/bin/`: thin binaries (`kvlab-server`, `kvlab-web`, and `kvlab-sql`, the SQLite
//!   worker of walkthroughs).

#![forbid(unsafe_code)]

pub mod app;
pub mod engine;
pub mod i18n;
#[cfg(target_arch = "wasm32")]
pub mod persist;
#[cfg(not(target_arch = "wasm32"))]
pub mod server;
pub mod sorting;
pub mod tabs;
#[cfg(target_arch = "wasm32")]
pub mod ui;
pub mod walk;
