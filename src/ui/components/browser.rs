//! The keyspace browser: keys as a tree grouped by a delimiter (or a flat list), with a
//! glob filter, folder counts, type badges and live TTLs.
//!
//! The rows come ready from the state ([`crate::engine::inspect::KeyIndex::rows`]); this view
//! renders only the rows in sight (plus a margin) inside a spacer as tall as all of them,
//! so 100,000 keys cost what 40 do. Each key's type and TTL are looked up (O(1)) only for
//! the rows drawn.

use web_sys::{Element, HtmlElement, HtmlInputElement};
use yew::prelude::*;

use crate::engine::inspect::{self, Kind, Node, Row};
use crate::ui::i18n::Lang;
use crate::ui::services::engine::EngineService;
use crate::ui::state::{Action, Shared};

/// Height of one row in pixels (the stylesheet's `.tree .row` matches).
pub const ROW_HEIGHT: i32 = 26;
/// Rows drawn above and below the visible ones.
const OVERSCAN: i32 = 10;

/// Properties of [`Browser`].
#[derive(Properties, PartialEq)]
pub struct BrowserProps {
    /// The rows of the tree (or list).
    pub rows: Shared<Vec<Row>>,
    /// Changes when keys or rows change.
    pub keys_version: u64,
    /// Keys in the database.
    pub total: usize,
    /// The engine, to read type and TTL of the rows shown.
    pub engine: EngineService,
    /// The database shown.
    pub db: usize,
    /// The clock, for TTL countdowns.
    pub now_ms: i64,
    /// The selected key.
    pub selected: Option<Vec<u8>>,
    /// The filter.
    pub filter: String,
    /// The delimiter.
    pub delim: String,
    /// Flat list instead of tree.
    pub flat: bool,
    /// The language.
    pub lang: Lang,
    /// Receives the browser's actions.
    pub on_action: Callback<Action>,
}

/// A TTL as a short countdown: `42s`, `7m`, `3h`, `2d` (`ms` is counted from the start of
/// the current second, so whole seconds count down as `TTL` does).
pub fn short_ttl(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    match s {
        0..=99 => format!("{s}s"),
        100..=5999 => format!("{}m", s / 60),
        6000..=172_799 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86400),
    }
}

/// The keyspace browser.
#[component]
pub fn Browser(props: &BrowserProps) -> Html {
    let s = props.lang.strings();
    let scroll = use_state(|| 0i32);
    let height = use_state(|| 600i32);
    let viewport = use_node_ref();

    let onscroll = {
        let scroll = scroll.clone();
        let height = height.clone();
        Callback::from(move |e: Event| {
            let el: Element = e.target_unchecked_into();
            scroll.set(el.scroll_top());
            height.set(el.client_height().max(ROW_HEIGHT));
        })
    };
    {
        let viewport = viewport.clone();
        let height = height.clone();
        use_effect_with((), move |_| {
            if let Some(el) = viewport.cast::<Element>() {
                height.set(el.client_height().max(ROW_HEIGHT));
            }
        });
    }

    let rows = &props.rows.0;
    let n = rows.len() as i32;
    let first = (*scroll / ROW_HEIGHT - OVERSCAN).clamp(0, n);
    let last = ((*scroll + *height) / ROW_HEIGHT + OVERSCAN).clamp(first, n);

    let on_filter = props.on_action.reform(|e: InputEvent| {
        Action::SetFilter(e.target_unchecked_into::<HtmlInputElement>().value())
    });
    let on_delim = props.on_action.reform(|e: InputEvent| {
        Action::SetDelim(e.target_unchecked_into::<HtmlInputElement>().value())
    });
    let on_tree = props
        .on_action
        .reform(|_: MouseEvent| Action::SetFlat(false));
    let on_list = props
        .on_action
        .reform(|_: MouseEvent| Action::SetFlat(true));

    let drawn = props.engine.read(|e| {
        let db = e.server().dbs.get(props.db);
        rows.get(first as usize..last as usize)
            .unwrap_or(&[])
            .iter()
            .map(|row| {
                let meta = match &row.node {
                    Node::Key { key, .. } => db.and_then(|d| inspect::meta(d, key)),
                    Node::Folder { .. } => None,
                };
                row_html(row, meta, props)
            })
            .collect::<Html>()
    });

    let cluster = props.engine.read(|e| e.cluster_enabled());
    let on_cluster = props.on_action.reform(|e: Event| {
        Action::SetCluster(e.target_unchecked_into::<HtmlInputElement>().checked())
    });

    let shown = rows.len();
    html! {
        <section class="browser" aria-label={s.keyspace}>
            <div class="panel-head">
                <h2>{ s.keyspace }</h2>
                <span class="count">{ format!("db{} · {}", props.db, props.total) }</span>
                <div class="seg" role="group">
                    <button type="button" aria-pressed={(!props.flat).to_string()} onclick={on_tree}>{ s.tree_view }</button>
                    <button type="button" aria-pressed={props.flat.to_string()} onclick={on_list}>{ s.list_view }</button>
                </div>
            </div>
            <label class="cluster-toggle" title={format!("{} — {}", s.cluster_mode, s.cluster_mode_hint)}>
                <input type="checkbox" checked={cluster} onchange={on_cluster} />
                <span>{ s.cluster_mode }</span>
                <small>{ s.cluster_mode_hint }</small>
            </label>
            <div class="browser-tools">
                <input class="filter" type="search" placeholder={s.filter} aria-label={s.filter}
                    value={props.filter.clone()} oninput={on_filter} spellcheck="false" />
                if !props.flat {
                    <input class="delim" type="text" aria-label={s.delimiter} title={s.delimiter}
                        value={props.delim.clone()} oninput={on_delim} spellcheck="false" />
                }
            </div>
            <div class="tree" role="tree" aria-label={s.key_tree} ref={viewport} {onscroll}>
                if shown == 0 {
                    <p class="empty">{ s.no_keys }</p>
                } else {
                    <div class="spacer" style={format!("height:{}px", n * ROW_HEIGHT)}>
                        <div class="rows" style={format!("transform:translateY({}px)", first * ROW_HEIGHT)}>
                            { drawn }
                        </div>
                    </div>
                }
            </div>
        </section>
    }
}

fn row_html(row: &Row, meta: Option<inspect::KeyMeta>, props: &BrowserProps) -> Html {
    let indent = format!("padding-left:{}px", 8 + row.depth * 14);
    let level = (row.depth + 1).to_string();
    let onkeydown = {
        let on_action = props.on_action.clone();
        let action = match &row.node {
            Node::Folder { prefix, .. } => Action::ToggleFolder(prefix.clone()),
            Node::Key { key, .. } => Action::Select(key.clone()),
        };
        let open = matches!(row.node, Node::Folder { open: true, .. });
        let folder = matches!(row.node, Node::Folder { .. });
        Callback::from(move |e: KeyboardEvent| {
            let target: Element = e.target_unchecked_into();
            let next = match e.key().as_str() {
                "ArrowDown" => target.next_element_sibling(),
                "ArrowUp" => target.previous_element_sibling(),
                "Enter" | " " => {
                    e.prevent_default();
                    on_action.emit(action.clone());
                    return;
                }
                "ArrowRight" if folder && !open => {
                    on_action.emit(action.clone());
                    None
                }
                "ArrowLeft" if folder && open => {
                    on_action.emit(action.clone());
                    None
                }
                _ => return,
            };
            e.prevent_default();
            if let Some(el) =
                next.and_then(|n| wasm_bindgen::JsCast::dyn_into::<HtmlElement>(n).ok())
            {
                let _ = el.focus();
            }
        })
    };
    match &row.node {
        Node::Folder {
            prefix,
            label,
            count,
            open,
        } => {
            let p = prefix.clone();
            let onclick = props
                .on_action
                .reform(move |_: MouseEvent| Action::ToggleFolder(p.clone()));
            let name = String::from_utf8_lossy(label).into_owned();
            html! {
                <div class="row folder" role="treeitem" tabindex="0" aria-level={level}
                    aria-expanded={open.to_string()} aria-label={name.clone()} style={indent}
                    {onclick} {onkeydown}>
                    <span class="caret" aria-hidden="true">{ if *open { "▾" } else { "▸" } }</span>
                    <span class="label">{ name }</span>
                    <span class="badge count">{ count }</span>
                </div>
            }
        }
        Node::Key { key, label } => {
            let k = key.clone();
            let onclick = props
                .on_action
                .reform(move |_: MouseEvent| Action::Select(k.clone()));
            let selected = props.selected.as_deref() == Some(key.as_slice());
            let kind = meta.map_or("", |m| m.kind.name());
            let ttl = meta
                .and_then(|m| m.expire_at)
                .map(|at| short_ttl(at - props.now_ms));
            let name = String::from_utf8_lossy(key).into_owned();
            let shown = String::from_utf8_lossy(label).into_owned();
            let slot = crate::engine::cluster::key_slot(key);
            html! {
                <div class={classes!("row", "key", selected.then_some("selected"))} role="treeitem"
                    tabindex="0" aria-level={level} aria-selected={selected.to_string()}
                    aria-label={name} style={indent} {onclick} {onkeydown}>
                    <span class={classes!("badge", "type", kind)}>{ type_abbrev(meta.map(|m| m.kind)) }</span>
                    <span class="label">{ shown }</span>
                    if let Some(ttl) = ttl {
                        <span class="ttl" title={props.lang.strings().ttl}>{ ttl }</span>
                    }
                    <span class="badge slot" title={props.lang.strings().hash_slot}>{ slot }</span>
                </div>
            }
        }
    }
}

/// The short type badge.
fn type_abbrev(kind: Option<Kind>) -> &'static str {
    match kind {
        Some(Kind::String) => "STR",
        Some(Kind::Hll) => "HLL",
        Some(Kind::List) => "LIST",
        Some(Kind::Set) => "SET",
        Some(Kind::ZSet) => "ZSET",
        Some(Kind::Hash) => "HASH",
        Some(Kind::Other("stream")) => "XS",
        Some(Kind::Other(_)) => "?",
        None => "",
    }
}
