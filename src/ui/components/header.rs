//! The top bar: logo, the section tabs, the theme and language switches.

use yew::prelude::*;

use crate::app::route::Route;
use crate::ui::i18n::{Lang, Strings};
use crate::ui::services::location;
use crate::ui::state::{Tab, Theme};

/// Properties of [`Header`].
#[derive(Properties, PartialEq)]
pub struct HeaderProps {
    /// The current language.
    pub lang: Lang,
    /// The current theme.
    pub theme: Theme,
    /// The section shown.
    pub tab: Tab,
    /// Called with the language to switch to.
    pub on_lang: Callback<Lang>,
    /// Called with the theme to switch to.
    pub on_theme: Callback<Theme>,
    /// Called with the section to show.
    pub on_tab: Callback<Tab>,
    /// True while a walkthrough page (`#/walk…`) is shown instead of a tab.
    #[prop_or_default]
    pub walk: bool,
    /// More controls before the theme switch (the workspace manager's button).
    #[prop_or_default]
    pub extra: Html,
}

/// The name of a tab in the navigation.
pub fn tab_label(tab: Tab, s: &Strings) -> &'static str {
    match tab {
        Tab::Workbench => s.tab_workbench,
    }
}

/// The top bar.
#[component]
pub fn Header(props: &HeaderProps) -> Html {
    let s = props.lang.strings();
    let other = props.lang.other();
    let onclick = props.on_lang.reform(move |_: MouseEvent| other);
    let (next_theme, theme_label, theme_icon) = match props.theme {
        Theme::Dark => (Theme::Light, s.theme_light, "☀"),
        Theme::Light => (Theme::Dark, s.theme_dark, "☾"),
    };
    let on_theme = props.on_theme.reform(move |_: MouseEvent| next_theme);
    html! {
        <header class="bar">
            // The workbench's h1 is the brand, which names the app; a walkthrough page has
            // its own h1 (its title), so there the brand is plain text.
            if props.walk {
                <div class="brand">
                    <span class="logo" aria-hidden="true">{ "kv" }</span>
                    <span class="name">{ "kvlab" }</span>
                </div>
            } else {
                <h1 class="brand">
                    <span class="logo" aria-hidden="true">{ "kv" }</span>
                    <span class="name">{ "kvlab" }</span>
                </h1>
            }
            <nav class="tabs" aria-label={s.nav}>
                { for Tab::ALL.iter().map(|&tab| {
                    let onclick = props.on_tab.reform(move |_: MouseEvent| {
                        leave_walkthroughs();
                        tab
                    });
                    let current = (tab == props.tab && !props.walk).then_some("page");
                    html! {
                        <button type="button" class="tab" aria-current={current} {onclick}>
                            { tab_label(tab, s) }
                        </button>
                    }
                }) }
                <a class="tab nav-walk" href="#/walk" aria-current={props.walk.then_some("page")}>
                    { s.tab_walkthroughs }
                </a>
            </nav>
            <p class="tagline">{ s.tagline }</p>
            { props.extra.clone() }
            <button class="icon-button theme" type="button" onclick={on_theme}
                aria-label={theme_label} title={theme_label}>
                { theme_icon }
            </button>
            // The accessible name starts with the visible word (WCAG 2.5.3, label in name).
            <button class="lang" type="button" {onclick} title={s.switch_language}
                aria-label={format!("{} — {}", other.strings().name, s.switch_language)}>
                <span lang={other.tag()}>{ other.strings().name }</span>
            </button>
        </header>
    }
}

/// Leaves a walkthrough page (`#/walk…`) for the tabs: the fragment goes back to `#/`.
fn leave_walkthroughs() {
    if location::route().is_walk() {
        location::go(&Route::Console);
    }
}
