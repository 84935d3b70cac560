//! The tab's role badge, when another tab shares its workspace.

use yew::prelude::*;

use crate::tabs::Role;
use crate::ui::i18n::Lang;
use crate::ui::services::tabs;

/// Properties of [`TabBadge`].
#[derive(Properties, PartialEq)]
pub struct TabBadgeProps {
    /// The UI language.
    pub lang: Lang,
    /// Changes when the role or the tabs change (re-renders the badge).
    pub version: u64,
}

/// Shows the tab's role when another tab shares its workspace: "Owner tab · other tabs
/// connected: 1", or "Connected to the owner tab".
#[component]
pub fn TabBadge(props: &TabBadgeProps) -> Html {
    let t = props.lang.tabs();
    let (role, synced, followers) = tabs::badge();
    match role {
        Role::Leader if followers > 0 => html! {
            <div class="tab-role leader" role="status" title={t.leader_title}>
                { format!("{}{followers}", t.leader) }
            </div>
        },
        Role::Follower => html! {
            <div class="tab-role follower" role="status" title={t.follower_title}>
                { if synced { t.follower } else { t.connecting } }
            </div>
        },
        _ => html! {},
    }
}
