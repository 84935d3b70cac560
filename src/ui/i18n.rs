//! User-interface strings in English and Simplified Chinese.
//!
//! Every visible or accessible text of the UI lives here, once per language, so the two
//! stay in step: a missing field is a compile error. Redis's own replies (`(error) ERR …`,
//! `Invalid argument(s)`) are never translated — they are what a real `redis-cli` prints.

/// A UI language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// English.
    En,
    /// Simplified Chinese (zh-CN).
    Zh,
}

impl Lang {
    /// Picks the language from a BCP 47 tag such as `navigator.language`: any `zh…` tag
    /// gives Chinese, everything else English.
    pub fn from_tag(tag: &str) -> Lang {
        if tag.get(..2).is_some_and(|p| p.eq_ignore_ascii_case("zh")) {
            Lang::Zh
        } else {
            Lang::En
        }
    }

    /// The language the browser asks for (`navigator.language`), English if unknown.
    pub fn detect() -> Lang {
        web_sys::window()
            .and_then(|w| w.navigator().language())
            .map(|tag| Lang::from_tag(&tag))
            .unwrap_or(Lang::En)
    }

    /// The other language, for the switch button.
    pub fn other(self) -> Lang {
        match self {
            Lang::En => Lang::Zh,
            Lang::Zh => Lang::En,
        }
    }

    /// The tag for `<html lang>`.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh-CN",
        }
    }

    /// The strings of this language.
    pub fn strings(self) -> &'static Strings {
        match self {
            Lang::En => &EN,
            Lang::Zh => &ZH,
        }
    }
}

/// The UI texts of one language.
#[derive(Debug, PartialEq, Eq)]
pub struct Strings {
    /// The language's own name, shown on the switch button of the other language.
    pub name: &'static str,
    /// Document title.
    pub title: &'static str,
    /// Line under the logo.
    pub tagline: &'static str,
    /// Accessible name of the command textbox.
    pub command: &'static str,
    /// Accessible name of the output log.
    pub output: &'static str,
    /// Accessible name of the language switch button.
    pub switch_language: &'static str,
    /// First line of the welcome banner.
    pub welcome: &'static str,
    /// Second line of the welcome banner: something to type.
    pub try_it: &'static str,
    /// Key help: history.
    pub key_history: &'static str,
    /// Key help: clearing the screen.
    pub key_clear: &'static str,
    /// Key help: running a command.
    pub key_run: &'static str,
    /// Status bar: where the engine runs.
    pub engine_status: &'static str,
    /// Status bar: the word after a key count of one.
    pub key: &'static str,
    /// Status bar: the word after any other key count.
    pub keys: &'static str,
}

const EN: Strings = Strings {
    name: "English",
    title: "kvlab — Redis in your browser",
    tagline: "Redis data structures, running in this page",
    command: "Command",
    output: "Output",
    switch_language: "Switch language to Chinese",
    welcome:
        "A Redis 7.0 compatible engine, compiled to WebAssembly and running locally in this page.",
    try_it: "Try:",
    key_history: "history",
    key_clear: "clear",
    key_run: "run",
    engine_status: "engine: in this page",
    key: "key",
    keys: "keys",
};

const ZH: Strings = Strings {
    name: "中文",
    title: "kvlab — 浏览器里的 Redis",
    tagline: "在本页面中运行的 Redis 数据结构",
    command: "命令",
    output: "输出",
    switch_language: "切换为英文界面",
    welcome: "一个兼容 Redis 7.0 的引擎，编译为 WebAssembly，完全在本页面中运行。",
    try_it: "试试：",
    key_history: "历史",
    key_clear: "清屏",
    key_run: "执行",
    engine_status: "引擎：在本页面中",
    key: "个键",
    keys: "个键",
};
