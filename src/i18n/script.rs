//! The script editor's texts ([`ScriptStrings`]), reached through
//! [`Lang::script`](super::Lang::script).

use super::lang::Lang;

/// The script editor's texts.
#[derive(Debug)]
pub struct ScriptStrings {
    /// The pane's button that opens the editor.
    pub open: &'static str,
    /// Its tooltip.
    pub open_title: &'static str,
    /// The editor's accessible name (a group), and the script box's.
    pub editor: &'static str,
    /// The label of the keys line.
    pub keys: &'static str,
    /// Its accessible name.
    pub keys_label: &'static str,
    /// Its placeholder.
    pub keys_placeholder: &'static str,
    /// The label of the arguments line.
    pub args: &'static str,
    /// Its accessible name.
    pub args_label: &'static str,
    /// Its placeholder.
    pub args_placeholder: &'static str,
    /// The placeholder of the empty script box.
    pub placeholder: &'static str,
    /// What the keys do in the editor.
    pub keys_help: &'static str,
    /// The button that runs `SCRIPT LOAD`'s tooltip.
    pub load_title: &'static str,
    /// The button that runs `EVAL`'s tooltip.
    pub run_title: &'static str,
    /// The close button.
    pub close: &'static str,
    /// The keys line has an unbalanced quote.
    pub bad_keys: &'static str,
    /// The arguments line has an unbalanced quote.
    pub bad_args: &'static str,
}

/// English texts.
pub const SCRIPT_EN: ScriptStrings = ScriptStrings {
    open: "Lua",
    open_title: "Write a multi-line Lua script and run it with EVAL",
    editor: "Lua script",
    keys: "KEYS",
    keys_label: "Keys (KEYS)",
    keys_placeholder: "key names, space-separated",
    args: "ARGV",
    args_label: "Arguments (ARGV)",
    args_placeholder: "arguments, space-separated",
    placeholder: "return redis.call('GET', KEYS[1])",
    keys_help: "Enter: new line · Ctrl+Enter: run · Esc: close",
    load_title: "Cache the script (SCRIPT LOAD) and show its SHA-1, for EVALSHA",
    run_title: "Run the script (Ctrl+Enter)",
    close: "Close the editor (the script is kept)",
    bad_keys: "The keys line has an unbalanced quote.",
    bad_args: "The arguments line has an unbalanced quote.",
};

/// Chinese texts.
pub const SCRIPT_ZH: ScriptStrings = ScriptStrings {
    open: "Lua",
    open_title: "编写多行 Lua 脚本并用 EVAL 执行",
    editor: "Lua 脚本",
    keys: "KEYS",
    keys_label: "键（KEYS）",
    keys_placeholder: "键名，以空格分隔",
    args: "ARGV",
    args_label: "参数（ARGV）",
    args_placeholder: "参数，以空格分隔",
    placeholder: "return redis.call('GET', KEYS[1])",
    keys_help: "Enter：换行 · Ctrl+Enter：执行 · Esc：关闭",
    load_title: "缓存脚本（SCRIPT LOAD）并显示其 SHA-1，供 EVALSHA 使用",
    run_title: "执行脚本（Ctrl+Enter）",
    close: "关闭编辑器（脚本会保留）",
    bad_keys: "键这一行的引号不成对。",
    bad_args: "参数这一行的引号不成对。",
};

impl Lang {
    /// The script editor's texts in this language.
    pub fn script(self) -> &'static ScriptStrings {
        match self {
            Lang::En => &SCRIPT_EN,
            Lang::Zh => &SCRIPT_ZH,
        }
    }
}
