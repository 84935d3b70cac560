//! The top bar: logo, tagline and the language switch.

use yew::prelude::*;

use crate::ui::i18n::Lang;

/// Properties of [`Header`].
#[derive(Properties, PartialEq)]
pub struct HeaderProps {
    /// The current language.
    pub lang: Lang,
    /// Called with the language to switch to.
    pub on_lang: Callback<Lang>,
}

/// The top bar.
#[component]
pub fn Header(props: &HeaderProps) -> Html {
    let s = props.lang.strings();
    let other = props.lang.other();
    let onclick = props.on_lang.reform(move |_: MouseEvent| other);
    html! {
        <header class="bar">
            <div class="brand">
                <span class="logo" aria-hidden="true">{ "kv" }</span>
                <span class="name">{ "kvlab" }</span>
            </div>
            <p class="tagline">{ s.tagline }</p>
            <a class="nav-walk" href="#/walk">{ if props.lang == Lang::Zh { "演练" } else { "Walkthroughs" } }</a>
            <button class="lang" type="button" {onclick}
                aria-label={s.switch_language} lang={other.tag()}>
                { other.strings().name }
            </button>
        </header>
    }
}
