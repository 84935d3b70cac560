//! [`Lang`], the app's two languages, and the way to each one's tables.

use super::strings::{self, Strings};

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
    #[cfg(target_arch = "wasm32")]
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
            Lang::En => &strings::EN,
            Lang::Zh => &strings::ZH,
        }
    }
}
