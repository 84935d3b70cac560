//! The engine service on the browser's clock. The service itself — the single door
//! through which the app reaches an engine — is host code, [`crate::app::engine`]; this
//! file adds only what needs the browser: an engine on `Date.now()`, seeded from
//! `Math.random()`.

pub use crate::app::engine::{EngineService, Observer, ObserverId, Outcome};
use crate::engine::{Engine, FnClock};

impl EngineService {
    /// A fresh engine on the browser's clock (`Date.now()`, and `performance.now()` to time
    /// commands), seeded from `Math.random()`.
    pub fn boot() -> EngineService {
        let performance = web_sys::window().and_then(|w| w.performance());
        let clock = FnClock(
            js_sys::Date::now,
            Some(move || {
                performance
                    .as_ref()
                    .map_or_else(js_sys::Date::now, |p| p.now())
            }),
        );
        let seed = (js_sys::Math::random() * 9_007_199_254_740_992.0) as u64;
        EngineService::new(Engine::new(Box::new(clock), seed))
    }
}
