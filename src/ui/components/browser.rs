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

pub use crate::app::units::human_bytes;

/// The command that measures a key of `kind`: `STRLEN`, `LLEN`, `SCARD`, `ZCARD`,
/// `HLEN` or `XLEN`.
pub fn length_command(kind: Kind) -> &'static str {
    match kind {
        Kind::String | Kind::Hll => "STRLEN",
        Kind::List => "LLEN",
        Kind::Set => "SCARD",
        Kind::ZSet => "ZCARD",
        Kind::Hash => "HLEN",
        Kind::Other(_) => "XLEN",
    }
}

/// A key's length as the row shows it: bytes for a string, elements for a collection.
pub fn length_text(kind: Kind, len: u64, lang: Lang) -> String {
    let s = lang.strings();
    match kind {
        Kind::String | Kind::Hll => human_bytes(len),
        _ if len == 1 => format!("1 {}", s.item_one),
        _ => format!("{len} {}", s.items),
    }
}

/// What a keyboard key does in the tree, given the focused row (WAI-ARIA tree pattern):
/// the row to move to, and an action to dispatch.
fn tree_key(rows: &[Row], at: usize, key: &str) -> Option<(usize, Option<Action>)> {
    let row = rows.get(at)?;
    let last = rows.len().checked_sub(1)?;
    let parent = || {
        rows[..at]
            .iter()
            .rposition(|r| r.depth + 1 == row.depth)
            .unwrap_or(at)
    };
    Some(match (key, &row.node) {
        ("ArrowDown", _) => (at.saturating_add(1).min(last), None),
        ("ArrowUp", _) => (at.saturating_sub(1), None),
        ("Home", _) => (0, None),
        ("End", _) => (last, None),
        (
            "ArrowRight",
            Node::Folder {
                open: false,
                prefix,
                ..
            },
        ) => (at, Some(Action::ToggleFolder(prefix.clone()))),
        ("ArrowRight", Node::Folder { open: true, .. }) => {
            let child = rows.get(at + 1).is_some_and(|r| r.depth > row.depth);
            (if child { at + 1 } else { at }, None)
        }
        ("ArrowRight", Node::Key { .. }) => (at, None),
        (
            "ArrowLeft",
            Node::Folder {
                open: true, prefix, ..
            },
        ) => (at, Some(Action::ToggleFolder(prefix.clone()))),
        ("ArrowLeft", _) => (parent(), None),
        ("Enter" | " ", Node::Folder { prefix, .. }) => {
            (at, Some(Action::ToggleFolder(prefix.clone())))
        }
        ("Enter" | " ", Node::Key { key, .. }) => (at, Some(Action::Select(key.clone()))),
        _ => return None,
    })
}

/// The keyspace browser.
///
/// The tree is one Tab stop (a roving `tabindex`, as the WAI-ARIA tree pattern): ↑/↓ move,
/// → opens a folder or enters it, ← closes it or goes to the parent, Home/End jump, Enter
/// opens the key. Only the rows in sight are in the document, so the rows are a flat list
/// of `treeitem`s with `aria-level` (the pattern's form for trees not nested in `group`s);
/// moving to a row out of sight scrolls to it, then focuses it once drawn.
#[component]
pub fn Browser(props: &BrowserProps) -> Html {
    let s = props.lang.strings();
    let scroll = use_state(|| 0i32);
    let height = use_state(|| 600i32);
    let viewport = use_node_ref();
    // The row that holds the tree's Tab stop, and whether to focus it after rendering.
    let cursor = use_state(|| 0usize);
    let want_focus = use_mut_ref(|| false);

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
    {
        let viewport = viewport.clone();
        let want_focus = want_focus.clone();
        let at = *cursor;
        use_effect(move || {
            if !*want_focus.borrow() {
                return;
            }
            let row = viewport
                .cast::<Element>()
                .and_then(|el| el.query_selector(&format!("[data-row=\"{at}\"]")).ok()?)
                .and_then(|n| wasm_bindgen::JsCast::dyn_into::<HtmlElement>(n).ok());
            if let Some(row) = row {
                *want_focus.borrow_mut() = false;
                let _ = row.focus();
            }
        });
    }

    let rows = &props.rows.0;
    let n = rows.len() as i32;
    let first = (*scroll / ROW_HEIGHT - OVERSCAN).clamp(0, n);
    let last = ((*scroll + *height) / ROW_HEIGHT + OVERSCAN).clamp(first, n);
    // The Tab stop: the cursor's row, or the first drawn when it is out of sight.
    let tab_stop = if (first as usize..last as usize).contains(&*cursor) {
        *cursor
    } else {
        first as usize
    };

    let onkeydown = {
        let rows = props.rows.clone();
        let cursor = cursor.clone();
        let want_focus = want_focus.clone();
        let viewport = viewport.clone();
        let on_action = props.on_action.clone();
        Callback::from(move |e: KeyboardEvent| {
            let target: Element = e.target_unchecked_into();
            let Some(at) = target
                .get_attribute("data-row")
                .and_then(|r| r.parse::<usize>().ok())
            else {
                return;
            };
            let Some((to, action)) = tree_key(&rows.0, at, &e.key()) else {
                return;
            };
            e.prevent_default();
            if let Some(a) = action {
                on_action.emit(a);
            }
            if let Some(el) = viewport.cast::<Element>() {
                let top = to as i32 * ROW_HEIGHT;
                let (from, h) = (el.scroll_top(), el.client_height());
                if top < from {
                    el.set_scroll_top(top);
                } else if top + ROW_HEIGHT > from + h {
                    el.set_scroll_top(top + ROW_HEIGHT - h);
                }
            }
            *want_focus.borrow_mut() = true;
            cursor.set(to);
        })
    };

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

    let cluster = props.engine.read(|e| e.cluster_enabled());
    let drawn = props.engine.read(|e| {
        let db = e.server().dbs.get(props.db);
        rows.get(first as usize..last as usize)
            .unwrap_or(&[])
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let index = first as usize + i;
                let info = match &row.node {
                    Node::Key { key, .. } => {
                        db.and_then(|d| Some((inspect::meta(d, key)?, inspect::footprint(d, key)?)))
                    }
                    Node::Folder { .. } => None,
                };
                let on_click = {
                    let cursor = cursor.clone();
                    Callback::from(move |()| cursor.set(index))
                };
                row_html(
                    row,
                    index,
                    index == tab_stop,
                    info,
                    cluster,
                    on_click,
                    props,
                )
            })
            .collect::<Html>()
    });

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
            <div class="browser-tools">
                <input class="filter" type="search" placeholder={s.filter} aria-label={s.filter}
                    value={props.filter.clone()} oninput={on_filter} spellcheck="false" />
                if !props.flat {
                    <input class="delim" type="text" aria-label={s.delimiter} title={s.delimiter}
                        value={props.delim.clone()} oninput={on_delim} spellcheck="false" />
                }
            </div>
            // A tree without items is not a tree: the empty message stands alone.
            <div class="tree" role={(shown > 0).then_some("tree")} aria-label={(shown > 0).then_some(s.key_tree)}
                ref={viewport} {onscroll} {onkeydown}>
                if shown == 0 {
                    <p class="empty">{ s.no_keys }</p>
                } else {
                    <div class="spacer" role="none" style={format!("height:{}px", n * ROW_HEIGHT)}>
                        <div class="rows" role="none" style={format!("transform:translateY({}px)", first * ROW_HEIGHT)}>
                            { drawn }
                        </div>
                    </div>
                }
            </div>
            // Cluster mode is for learners who got as far as hash slots: out of the way,
            // one click from the tree.
            <details class="advanced">
                <summary>{ s.advanced }</summary>
                <label class="cluster-toggle" title={format!("{} — {}", s.cluster_mode, s.cluster_mode_hint)}>
                    <input type="checkbox" checked={cluster} onchange={on_cluster} />
                    <span>{ s.cluster_mode }</span>
                    <small>{ s.cluster_mode_hint }</small>
                </label>
            </details>
        </section>
    }
}

fn row_html(
    row: &Row,
    index: usize,
    tab_stop: bool,
    info: Option<(inspect::KeyMeta, inspect::Footprint)>,
    cluster: bool,
    on_click: Callback<()>,
    props: &BrowserProps,
) -> Html {
    let s = props.lang.strings();
    let indent = format!("padding-left:{}px", 8 + row.depth * 14);
    let level = (row.depth + 1).to_string();
    let tabindex = if tab_stop { "0" } else { "-1" };
    let data_row = index.to_string();
    match &row.node {
        Node::Folder {
            prefix,
            label,
            count,
            open,
        } => {
            let p = prefix.clone();
            let on_action = props.on_action.clone();
            let onclick = Callback::from(move |_: MouseEvent| {
                on_click.emit(());
                on_action.emit(Action::ToggleFolder(p.clone()));
            });
            let name = String::from_utf8_lossy(label).into_owned();
            let keys = format!("{count} {}", s.keys_unit);
            let describe = format!("kt-{index}");
            html! {
                <div key={format!("{index}/{}", String::from_utf8_lossy(prefix))} class="row folder" role="treeitem" {tabindex} data-row={data_row} aria-level={level}
                    aria-expanded={open.to_string()} aria-describedby={describe.clone()} style={indent}
                    {onclick}>
                    <span class="caret" aria-hidden="true">{ if *open { "▾" } else { "▸" } }</span>
                    <span class="label">{ name }</span>
                    <span class="badge count" id={describe} title={keys.clone()} aria-hidden="true">
                        { count }<span class="visually-hidden">{ format!(" {}", s.keys_unit) }</span>
                    </span>
                </div>
            }
        }
        Node::Key { key, label } => {
            let k = key.clone();
            let on_action = props.on_action.clone();
            let onclick = Callback::from(move |_: MouseEvent| {
                on_click.emit(());
                on_action.emit(Action::Select(k.clone()));
            });
            let selected = props.selected.as_deref() == Some(key.as_slice());
            let meta = info.map(|(m, _)| m);
            let kind = meta.map_or("", |m| m.kind.name());
            let ttl = meta
                .and_then(|m| m.expire_at)
                .map(|at| short_ttl(at - props.now_ms));
            let name = String::from_utf8_lossy(key).into_owned();
            let shown = String::from_utf8_lossy(label).into_owned();
            let prefix =
                String::from_utf8_lossy(&key[..key.len().saturating_sub(label.len())]).into_owned();
            let size = info.map(|(m, f)| {
                let cmd = length_command(m.kind);
                let len = length_text(m.kind, f.len, props.lang);
                let mem = human_bytes(f.memory);
                html! {
                    <>
                        <span class="len" title={format!("{cmd} {name} → {}", f.len)}>{ len }</span>
                        <span class="mem" title={format!("MEMORY USAGE {name} → {} {}", f.memory, s.bytes)}>
                            <span class="visually-hidden">{ format!("{} ", s.memory) }</span>{ mem }
                        </span>
                    </>
                }
            });
            let slot = cluster.then(|| {
                let slot = crate::engine::cluster::key_slot(key);
                html! {
                    <span class="badge slot" title={format!("CLUSTER KEYSLOT {name} → {slot}")}>
                        { format!("{} {slot}", s.slot) }
                    </span>
                }
            });
            let describe = format!("kt-{index}");
            html! {
                <div key={format!("{index}:{name}")} class={classes!("row", "key", selected.then_some("selected"))} role="treeitem"
                    {tabindex} data-row={data_row} aria-level={level} aria-selected={selected.to_string()}
                    aria-describedby={describe.clone()} style={indent} {onclick}>
                    // The name is the whole key, from the content: the label shown after
                    // the folders' prefix in zero-size inline text (no aria-label, whose
                    // text would have to contain all the row shows, WCAG 2.5.3). What else
                    // the row shows is hidden from the name and read as its description.
                    <span class={classes!("badge", "type", kind)} aria-hidden="true">{ type_abbrev(meta.map(|m| m.kind)) }</span>
                    <span class="label">
                        if !prefix.is_empty() {
                            <span class="prefix">{ prefix }</span>
                        }
                        { shown }
                    </span>
                    <span class="facts" id={describe} aria-hidden="true">
                        <span class="visually-hidden">{ kind }</span>
                        if let Some(ttl) = ttl {
                            <span class="ttl" title={s.ttl}>{ ttl }</span>
                        }
                        { for size }
                        { for slot }
                    </span>
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
