//! The engine service on the browser's clock. The service itself — the single door
//! through which the app reaches an engine — is host code, [`crate::app::engine`]; this
//! file adds only what needs the browser: an engine on `Date.now()`, seeded from
//! `Math.random()`, whose log (a script's `redis.log`) goes to the browser's console.

pub use crate::app::engine::{EngineService, Observer, ObserverId, Outcome};
use crate::engine::{Clock, Engine, SteadyClock};

/// The browser's clock: `Date.now()` for the wall time and, kept from going back, for
/// timing commands ([`SteadyClock`]): one cheap reading at a command's start and one at its
/// end. `bench/peer` runs its engine on it too.
pub fn browser_clock() -> impl Clock {
    SteadyClock::new(js_sys::Date::now)
}

impl EngineService {
    /// A fresh engine on the browser's clock ([`browser_clock`]), seeded from
    /// `Math.random()`.
    pub fn boot() -> EngineService {
        let clock = browser_clock();
        let seed = (js_sys::Math::random() * 9_007_199_254_740_992.0) as u64;
        let mut engine = Engine::new(Box::new(clock), seed);
        // Every pane is a local connection (127.0.0.1): DEBUG works in the console, as on
        // a redis-server started with `enable-debug-command local`.
        let _ = engine.configure("enable-debug-command", "local");
        let service = EngineService::new(engine);
        service.observe_log(std::rc::Rc::new(|lines: &[(i32, Vec<u8>)]| {
            for (level, line) in lines {
                console_line(*level, line);
            }
        }));
        service
    }
}

/// One line of the server's log in the browser's console, as Redis marks its levels
/// (`.` debug, `-` verbose, `*` notice, `#` warning): warnings with `console.warn`, debug
/// with `console.debug`, the rest with `console.log`.
fn console_line(level: i32, line: &[u8]) {
    let mark = match level {
        0 => '.',
        1 => '-',
        2 => '*',
        _ => '#',
    };
    let text =
        wasm_bindgen::JsValue::from_str(&format!("kvlab {mark} {}", String::from_utf8_lossy(line)));
    match level {
        3.. => web_sys::console::warn_1(&text),
        0 => web_sys::console::debug_1(&text),
        _ => web_sys::console::log_1(&text),
    }
}
