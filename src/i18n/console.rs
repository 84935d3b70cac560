//! The console's texts for Ctrl+C, reset, completion, `--raw` and tracking's
//! invalidations ([`ConsoleStrings`]),
//! reached through [`Lang::console`](super::Lang::console).

use super::lang::Lang;

/// The console's texts for Ctrl+C, reset, completion and `--raw`.
#[derive(Debug)]
pub struct ConsoleStrings {
    /// The note after Ctrl+C stopped a blocked command.
    pub interrupted_block: &'static str,
    /// The note after Ctrl+C asked the pane's running script to stop (as SCRIPT KILL).
    pub interrupted_script: &'static str,
    /// The note after Ctrl+C on a script that wrote, which nothing may stop.
    pub unkillable_script: &'static str,
    /// The note after Ctrl+C ended the subscriptions.
    pub interrupted_subscribe: &'static str,
    /// The note after Ctrl+C stopped `MONITOR`.
    pub interrupted_monitor: &'static str,
    /// The status line of a pane running `MONITOR`.
    pub monitoring: &'static str,
    /// The button that stops waiting.
    pub stop: &'static str,
    /// Its tooltip.
    pub stop_title: &'static str,
    /// The pane's reconnect button (accessible name and tooltip).
    pub reset: &'static str,
    /// The `--raw` switch's tooltip.
    pub raw_title: &'static str,
    /// Under the line when a reply's text was shown as `\xHH` escapes.
    pub raw_hint: &'static str,
    /// The button in that hint.
    pub raw_on: &'static str,
    /// The completion list's accessible name.
    pub completions: &'static str,
    /// After the shown candidates: how many more (`{n}`).
    pub more: &'static str,
    /// Welcome banner: what Tab does.
    pub key_complete: &'static str,
    /// Welcome banner: what Ctrl+C does.
    pub key_stop: &'static str,
    /// The label of an invalidation a tracking client received (`CLIENT TRACKING`).
    pub invalidated: &'static str,
    /// The label of a flush invalidation (every cached key at once).
    pub invalidated_all: &'static str,
    /// The tooltip of both labels.
    pub invalidated_title: &'static str,
}

/// English console texts.
pub const CONSOLE_EN: ConsoleStrings = ConsoleStrings {
    interrupted_block: "(interrupted: the command no longer waits)",
    interrupted_script: "(asked the script to stop, as SCRIPT KILL does: its error reply follows)",
    unkillable_script: "(the script has written, so it cannot be stopped: Redis answers UNKILLABLE; wait for its end)",
    interrupted_subscribe: "(interrupted: unsubscribed from everything)",
    interrupted_monitor: "(interrupted: MONITOR stopped)",
    monitoring: "monitoring: every command the server runs appears here",
    stop: "Stop",
    stop_title: "Stop waiting (Ctrl+C)",
    reset: "Reconnect as a new client, output cleared",
    raw_title: "Show replies as text, like redis-cli --raw",
    raw_hint: "Text shown as \\x bytes. To read it as text:",
    raw_on: "turn on --raw",
    completions: "Completions",
    more: "… {n} more: type more letters",
    key_complete: "complete",
    key_stop: "stop waiting",
    invalidated: "cache invalidated",
    invalidated_all: "whole cache invalidated (flush)",
    invalidated_title: "CLIENT TRACKING: keys this client read have changed, so copies it cached are stale",
};

/// Chinese console texts.
pub const CONSOLE_ZH: ConsoleStrings = ConsoleStrings {
    interrupted_block: "（已中断：命令不再等待）",
    interrupted_script: "（已请求脚本停止，同 SCRIPT KILL：随后显示它的错误回复）",
    unkillable_script: "（脚本已执行写命令，无法停止：Redis 会回复 UNKILLABLE；请等待它结束）",
    interrupted_subscribe: "（已中断：已退订全部频道）",
    interrupted_monitor: "（已中断：MONITOR 已停止）",
    monitoring: "监视中：服务器执行的每条命令都会显示在这里",
    stop: "停止",
    stop_title: "停止等待（Ctrl+C）",
    reset: "作为新客户端重新连接并清屏",
    raw_title: "按原文显示回复，同 redis-cli --raw",
    raw_hint: "文本显示为 \\x 字节。显示为原文：",
    raw_on: "打开 --raw",
    completions: "补全候选",
    more: "……另有 {n} 项，请继续输入",
    key_complete: "补全",
    key_stop: "停止等待",
    invalidated: "缓存失效",
    invalidated_all: "缓存全部失效（数据库被清空）",
    invalidated_title: "CLIENT TRACKING：本客户端读过的键已被修改，它缓存的副本已过期",
};

impl Lang {
    /// The console's texts (issue 23) in this language.
    pub fn console(self) -> &'static ConsoleStrings {
        match self {
            Lang::En => &CONSOLE_EN,
            Lang::Zh => &CONSOLE_ZH,
        }
    }
}
