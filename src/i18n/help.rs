//! The console's `HELP` built-in texts (`app::console`).

use super::Lang;

/// The console's `HELP` built-in (redis-cli's own texts, and their Chinese).
#[derive(Debug)]
pub struct HelpStrings {
    /// A help block's labels: summary, complexity, since, group.
    pub labels: [&'static str; 4],
    /// `HELP` with no topic.
    pub intro: &'static str,
    /// `HELP` of an unknown topic (`{}`: the topic).
    pub no_help: &'static str,
}

const HELP_EN: HelpStrings = HelpStrings {
    labels: ["summary:", "complexity:", "since:", "group:"],
    intro: "redis-cli 7.0.15 (kvlab)\nTo get help about Redis commands type:\n      \"help @<group>\" to get a list of commands in <group>\n      \"help <command>\" for help on <command>\n      \"help <tab>\" to get a list of possible help topics\n      \"clear\" or Ctrl+L to clear the screen",
    no_help: "No help for '{}'. Try \"help @<group>\", e.g. help @list",
};

const HELP_ZH: HelpStrings = HelpStrings {
    labels: ["概要：", "复杂度：", "起始版本：", "分组："],
    intro: "redis-cli 7.0.15 (kvlab)\n获取 Redis 命令的帮助：\n      \"help @<分组>\" 列出 <分组> 中的命令\n      \"help <命令>\" 查看 <命令> 的帮助\n      \"help <Tab>\" 补全可用的帮助主题\n      \"clear\" 或 Ctrl+L 清屏",
    no_help: "没有 '{}' 的帮助。试试 \"help @<分组>\"，例如 help @list",
};

impl Lang {
    /// The `HELP` built-in's texts in this language.
    pub fn help(self) -> &'static HelpStrings {
        match self {
            Lang::En => &HELP_EN,
            Lang::Zh => &HELP_ZH,
        }
    }
}
