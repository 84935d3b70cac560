//! The share box, the page of a share or Try-it link, its errors, and the embed bar
//! (`ui::share_view`, `ui::app`).

use super::Lang;

/// The share box and the page of a share or Try-it link.
#[derive(Debug)]
pub struct ShareStrings {
    /// The share box: before the number of commands.
    pub link_before: &'static str,
    /// The share box: between the counts.
    pub link_commands: &'static str,
    /// The share box: after the number of characters.
    pub link_chars: &'static str,
    /// The Copy button.
    pub copy: &'static str,
    /// After a copy.
    pub copied: &'static str,
    /// When the copy failed.
    pub copy_failed: &'static str,
    /// Warning under a long link.
    pub long_link: &'static str,
    /// The Share button.
    pub share: &'static str,
    /// Heading: a Try-it link that cannot be read.
    pub try_unreadable: &'static str,
    /// Heading: a share link that cannot be read.
    pub share_unreadable: &'static str,
    /// Back to the workbench.
    pub back: &'static str,
    /// Heading: the commands of a Try-it link.
    pub try_heading: &'static str,
    /// Heading: a shared session.
    pub share_heading: &'static str,
    /// Before the list of commands.
    pub nothing_ran: &'static str,
    /// After the number of commands that rebuild the dataset.
    pub dataset_first: &'static str,
    /// After a cut list.
    pub and_more: &'static str,
    /// Run, into an empty workspace.
    pub run: &'static str,
    /// Run again, in the link's own workspace.
    pub run_again: &'static str,
    /// Open in a fresh workspace.
    pub open_fresh: &'static str,
    /// Cancel.
    pub cancel: &'static str,
    /// Why an autorun link waits.
    pub waits: &'static str,
    /// Why the link opens in a workspace of its own.
    pub other_workspace: &'static str,
}

const SHARE_EN: ShareStrings = ShareStrings {
    link_before: "Link to this session (",
    link_commands: " commands, ",
    link_chars: " characters)",
    copy: "Copy",
    copied: "Copied.",
    copy_failed: "Could not copy: select the link and press Ctrl+C.",
    long_link: "This link is long: some chat and mail apps cut links of more than a few thousand characters.",
    share: "Share",
    try_unreadable: "This Try-it link cannot be opened",
    share_unreadable: "This share link cannot be opened",
    back: "Back to the workbench",
    try_heading: "Commands from a Try-it link",
    share_heading: "A shared kvlab session",
    nothing_ran: "Nothing has run yet. These commands will run, in order, as if typed:",
    dataset_first: " commands rebuild a dataset first.",
    and_more: "… and more.",
    run: "Run them",
    run_again: "Run them again here",
    open_fresh: "Open in a fresh workspace",
    cancel: "Cancel",
    waits: "This link has run in this workspace before, so it waits for you this time.",
    other_workspace: "This workspace already holds data, so the link opens in a workspace of its own.",
};

const SHARE_ZH: ShareStrings = ShareStrings {
    link_before: "本次会话的链接（",
    link_commands: " 条命令，",
    link_chars: " 个字符）",
    copy: "复制",
    copied: "已复制。",
    copy_failed: "无法复制：请选中链接后按 Ctrl+C。",
    long_link: "链接较长：有些聊天和邮件应用会截断超过几千个字符的链接。",
    share: "分享",
    try_unreadable: "无法打开这个“试一试”链接",
    share_unreadable: "无法打开这个分享链接",
    back: "返回工作台",
    try_heading: "来自“试一试”链接的命令",
    share_heading: "分享的 kvlab 会话",
    nothing_ran: "尚未执行任何命令。以下命令将按顺序执行，如同手动输入：",
    dataset_first: " 条命令先重建数据集。",
    and_more: "……以及更多。",
    run: "执行",
    run_again: "在此再次执行",
    open_fresh: "在新工作区中打开",
    cancel: "取消",
    waits: "这个链接之前已在本工作区执行过，因此这次等你确认后再执行。",
    other_workspace: "当前工作区已有数据，因此链接会在单独的工作区中打开。",
};

impl Lang {
    /// The share box's and share pages' texts in this language.
    pub fn share(self) -> &'static ShareStrings {
        match self {
            Lang::En => &SHARE_EN,
            Lang::Zh => &SHARE_ZH,
        }
    }
}

/// Why a share link cannot be opened, in the UI language.
pub fn share_error_text(e: &crate::app::share::ShareError, lang: Lang) -> String {
    match (lang, e) {
        (Lang::En, e) => e.to_string(),
        (Lang::Zh, crate::app::share::ShareError::Encoding) => {
            "链接已损坏（不是 base64url 编码）".to_string()
        }
        (Lang::Zh, crate::app::share::ShareError::Version(v)) => {
            format!("该链接由更新版本的 kvlab 生成（格式 {v}）；请刷新页面以更新")
        }
        (Lang::Zh, crate::app::share::ShareError::Damaged) => {
            "链接已损坏：有一部分缺失或被改动".to_string()
        }
        (Lang::Zh, crate::app::share::ShareError::Compression) => "链接已损坏或过大".to_string(),
        (Lang::Zh, crate::app::share::ShareError::Format) => "该链接中没有 kvlab 会话".to_string(),
        (Lang::Zh, crate::app::share::ShareError::Commands) => "该链接中没有命令列表".to_string(),
    }
}

/// Embed mode's bar.
#[derive(Debug)]
pub struct EmbedStrings {
    /// The bar's title.
    pub title: &'static str,
    /// The Reset button.
    pub reset: &'static str,
    /// The link to the full app.
    pub open_full: &'static str,
    /// The setup commands' disclosure.
    pub setup: &'static str,
}

const EMBED_EN: EmbedStrings = EmbedStrings {
    title: "kvlab console",
    reset: "Reset",
    open_full: "Open in kvlab",
    setup: "Setup commands (read-only)",
};

const EMBED_ZH: EmbedStrings = EmbedStrings {
    title: "kvlab 控制台",
    reset: "重置",
    open_full: "在 kvlab 中打开",
    setup: "预置命令（只读）",
};

impl Lang {
    /// Embed mode's texts in this language.
    pub fn embed(self) -> &'static EmbedStrings {
        match self {
            Lang::En => &EMBED_EN,
            Lang::Zh => &EMBED_ZH,
        }
    }
}
