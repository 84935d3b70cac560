//! Everything the views reach outside themselves: the engine and the browser's storage.
//!
//! - [`engine`]: [`EngineService`](engine::EngineService), the one door to an engine. All
//!   commands go through it, and after each it hands the engine's write effects to the
//!   registered observers (persistence subscribes there).
//! - [`storage`]: small settings in `localStorage` (history, theme, language).

pub mod engine;
pub mod storage;
