//! The core beneath the commands: the state every command acts on and the machinery that
//! runs one. It names no command group: the command table and the blocking families are
//! handed to it as `&'static` references by [`crate::engine::Engine::new`].
//!
//! # Layout, bottom-up
//! - [`client`]: a connected client, its reply mode and its open transaction.
//! - [`state`]: the parsed configuration and the `INFO` counters.
//! - [`server`]: everything but the clients (databases, effects, watches, subscriptions,
//!   blocked clients, pause), and the signals a write sends.
//! - [`expire`]: lazy expiry and one round of the active cycle.
//! - [`memory`]: the memory estimate of `INFO memory`, `MEMORY USAGE` and eviction.
//! - [`evict`]: eviction's run before a command.
//! - [`monitor`]: `MONITOR` lines and argument redaction.
//! - [`publish`]: sending to clients under their output limits, `PUBLISH`, keyspace events.
//! - [`invalidate`]: client-side caching's messages (`CLIENT TRACKING`).
//! - [`ctx`]: what a handler sees ([`ctx::Ctx`]), and the handler type the table's rows name.
//! - [`engine`]: the [`engine::Engine`] and its host interface.
//! - [`waiters`]: [`waiters::Waiters`], the hook each blocking family implements.
//! - [`engine`]'s neighbours [`dispatch`] and [`blocked`] extend the [`engine::Engine`]: one
//!   command's run, and the one path that serves blocked clients.

pub mod blocked;
pub mod client;
pub mod ctx;
pub mod dispatch;
pub mod engine;
pub mod evict;
pub mod expire;
pub mod invalidate;
pub mod memory;
pub mod monitor;
pub mod objsize;
pub mod others;
pub mod persist;
pub mod publish;
pub mod server;
pub mod state;
pub mod waiters;
