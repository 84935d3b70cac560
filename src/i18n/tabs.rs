//! The texts of several tabs on one workspace: a follower's panes and the role badge
//! (`ui::services::tabs`, `ui::components::tab_badge`).

use super::Lang;

/// The texts of several tabs on one workspace: a follower's panes, the role badge.
#[derive(Debug)]
pub struct TabStrings {
    /// A forwarded command had no reply when the leader went.
    pub lost: &'static str,
    /// A pane's session on the old leader is gone; this tab runs the workspace now.
    pub promoted: &'static str,
    /// A pane's session on the old leader is gone; another tab runs the workspace now.
    pub moved: &'static str,
    /// A command typed before the leader answered.
    pub not_connected: &'static str,
    /// The badge of a follower.
    pub follower: &'static str,
    /// The badge of a follower not synced yet.
    pub connecting: &'static str,
    /// The badge of a leader, before the count of other tabs.
    pub leader: &'static str,
    /// Its tooltip.
    pub leader_title: &'static str,
    /// The follower badge's tooltip.
    pub follower_title: &'static str,
}

impl Lang {
    /// The texts of several tabs on one workspace in this language.
    pub fn tabs(self) -> &'static TabStrings {
        match self {
            Lang::En => &TabStrings {
                lost:
                    "Error: the tab that ran this workspace closed before replying. This command \
                   may or may not have run: check before running it again.",
                promoted:
                    "The tab that ran this workspace closed; this tab runs it now. This client \
                       was reconnected: its subscriptions, blocked command, transaction and \
                       selected database are gone.",
                moved:
                    "The tab that ran this workspace closed; another tab runs it now. This client \
                    was reconnected: its subscriptions, blocked command, transaction and \
                    selected database are gone.",
                not_connected: "Error: not connected yet to the tab that runs this workspace. Try \
                            again in a moment.",
                follower: "Connected to the owner tab",
                connecting: "Connecting to the owner tab…",
                leader: "Owner tab · other tabs connected: ",
                leader_title: "This tab runs the workspace and saves it; other tabs of it send \
                           their commands here.",
                follower_title:
                    "Another tab runs this workspace and saves it: commands typed here \
                             run there. If it closes, this tab takes over.",
            },
            Lang::Zh => &TabStrings {
                lost: "错误：运行此工作区的标签页在回复前关闭了。此命令可能已执行，也可能没有：\
                   再次执行前请先检查。",
                promoted: "运行此工作区的标签页已关闭，现在由本标签页运行。此客户端已重新连接：\
                       它的订阅、阻塞中的命令、事务和所选数据库都已失效。",
                moved: "运行此工作区的标签页已关闭，现在由另一个标签页运行。此客户端已重新连接：\
                    它的订阅、阻塞中的命令、事务和所选数据库都已失效。",
                not_connected: "错误：尚未连接到运行此工作区的标签页，请稍后再试。",
                follower: "已连接到主标签页",
                connecting: "正在连接主标签页…",
                leader: "主标签页 · 已连接的其他标签页：",
                leader_title: "本标签页运行并保存此工作区；它的其他标签页把命令发送到这里。",
                follower_title: "另一个标签页运行并保存此工作区：在这里输入的命令在那里执行。\
                             它关闭时，本标签页接管。",
            },
        }
    }
}
