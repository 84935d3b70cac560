//! The script debugger's texts ([`DebugStrings`]), reached through
//! [`Lang::debug`](super::Lang::debug).

use super::lang::Lang;

/// The script debugger's texts.
#[derive(Debug)]
pub struct DebugStrings {
    /// The editor's Debug button.
    pub debug: &'static str,
    /// Its tooltip.
    pub debug_title: &'static str,
    /// The debugger's accessible name (a group).
    pub debugger: &'static str,
    /// The script's listing, with its line numbers.
    pub source: &'static str,
    /// Status: stopped before a line: the text before its number.
    pub stopped_at: &'static str,
    /// The text after its number.
    pub stopped_after: &'static str,
    /// Status: the script runs (after Continue, or a long step).
    pub running: &'static str,
    /// The Step button.
    pub step: &'static str,
    /// Its tooltip.
    pub step_title: &'static str,
    /// The Continue button.
    pub cont: &'static str,
    /// Its tooltip.
    pub cont_title: &'static str,
    /// The Stop button.
    pub stop: &'static str,
    /// Its tooltip.
    pub stop_title: &'static str,
    /// The locals table's caption.
    pub locals: &'static str,
    /// Its first column's header.
    pub name: &'static str,
    /// Its second column's header.
    pub value: &'static str,
    /// The calls list, its caption.
    pub calls: &'static str,
    /// No call yet.
    pub no_calls: &'static str,
    /// "line" before a call's line number.
    pub line: &'static str,
}

/// English texts.
pub const DEBUG_EN: DebugStrings = DebugStrings {
    debug: "Debug",
    debug_title: "Step through the script line by line (EVAL under the debugger)",
    debugger: "Script debugger",
    source: "Script",
    stopped_at: "Stopped before line ",
    stopped_after: "",
    running: "Running…",
    step: "Step",
    step_title: "Run the current line and stop before the next (F10)",
    cont: "Continue",
    cont_title: "Run the script on to its end (F8)",
    stop: "Stop",
    stop_title: "Stop the script where it is (Shift+F5 or Esc)",
    locals: "Locals",
    name: "Name",
    value: "Value",
    calls: "Calls",
    no_calls: "No redis.call yet",
    line: "line",
};

/// Chinese texts.
pub const DEBUG_ZH: DebugStrings = DebugStrings {
    debug: "调试",
    debug_title: "逐行执行脚本（在调试器中运行 EVAL）",
    debugger: "脚本调试器",
    source: "脚本",
    stopped_at: "停在第 ",
    stopped_after: " 行之前",
    running: "运行中…",
    step: "单步",
    step_title: "执行当前行，停在下一行之前（F10）",
    cont: "继续",
    cont_title: "把脚本一直运行到结束（F8）",
    stop: "停止",
    stop_title: "就地停止脚本（Shift+F5 或 Esc）",
    locals: "局部变量",
    name: "名称",
    value: "值",
    calls: "调用",
    no_calls: "还没有 redis.call",
    line: "行",
};

impl Lang {
    /// The script debugger's texts in this language.
    pub fn debug(self) -> &'static DebugStrings {
        match self {
            Lang::En => &DEBUG_EN,
            Lang::Zh => &DEBUG_ZH,
        }
    }
}
