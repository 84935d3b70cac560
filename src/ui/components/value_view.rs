//! The value view: the selected key's value, live, with what the last command changed.
//!
//! One view per type: strings (text, JSON pretty-printed when it parses, hex for binary,
//! a grid of bits for bitmaps), HyperLogLogs (their estimate), lists (indexed, head and
//! tail marked), sets, sorted sets (rank, member, score with a bar; a map when the scores
//! are geohashes), hashes and streams (the last entries, newest last, and each consumer
//! group with its consumers and pending entries).
//!
//! Every edit made here runs the real command in the active console pane — it shows up
//! there, so clicking teaches the command.

use std::rc::Rc;

use web_sys::HtmlInputElement;
use yew::prelude::*;

use super::browser::short_ttl;
use crate::engine::inspect::{Kind, ValueView as Snapshot};
use crate::engine::types::geohash;
use crate::engine::types::stream::StreamId;
use crate::ui::console::line;
use crate::ui::i18n::{Lang, Strings};
use crate::ui::state::{Action, Venn, ViewData};

/// Properties of [`ValueView`].
#[derive(Properties, PartialEq)]
pub struct ValueViewProps {
    /// The selected key and its value.
    pub view: Option<Rc<ViewData>>,
    /// The last set operation, if any.
    pub venn: Option<Rc<Venn>>,
    /// The clock, for the TTL.
    pub now_ms: i64,
    /// The language.
    pub lang: Lang,
    /// Cluster mode is on: the key's hash slot is shown.
    #[prop_or_default]
    pub cluster: bool,
    /// Receives commands to run, and other actions.
    pub on_action: Callback<Action>,
}

/// How a string or sorted set is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Auto,
    Text,
    Json,
    Hex,
    Bits,
    Table,
    Map,
}

/// The value view.
#[component]
pub fn ValueView(props: &ValueViewProps) -> Html {
    let s = props.lang.strings();
    let mode = use_state(|| Mode::Auto);
    let a = use_state(String::new);
    let b = use_state(String::new);
    let ttl = use_state(String::new);
    let venn = props
        .venn
        .as_ref()
        .map(|v| venn_html(v, s, &props.on_action));
    let Some(view) = &props.view else {
        return html! {
            <section class="value" aria-label={s.value}>
                { venn }
                <div class="panel-head"><h2>{ s.value }</h2></div>
                <p class="empty">{ s.pick_key }</p>
                { start_cards(s) }
            </section>
        };
    };
    let key = view.key.clone();
    let run = {
        let on_action = props.on_action.clone();
        move |words: Vec<Vec<u8>>| {
            let refs: Vec<&[u8]> = words.iter().map(Vec::as_slice).collect();
            on_action.emit(Action::Run(line(&refs)));
        }
    };
    let name = String::from_utf8_lossy(&key).into_owned();
    let head = match view.meta {
        None => html! { <p class="empty">{ s.gone }</p> },
        Some(meta) => {
            let ttl_text = match meta.expire_at {
                Some(at) => short_ttl(at - props.now_ms),
                None => s.persistent.to_string(),
            };
            let on_ttl = {
                let ttl = ttl.clone();
                Callback::from(move |e: InputEvent| {
                    ttl.set(e.target_unchecked_into::<HtmlInputElement>().value())
                })
            };
            let expire = {
                let (run, key, ttl) = (run.clone(), key.clone(), ttl.clone());
                Callback::from(move |e: SubmitEvent| {
                    e.prevent_default();
                    if !ttl.trim().is_empty() {
                        run(vec![
                            b"EXPIRE".to_vec(),
                            key.clone(),
                            ttl.trim().as_bytes().to_vec(),
                        ]);
                    }
                })
            };
            let persist = {
                let (run, key) = (run.clone(), key.clone());
                Callback::from(move |_: MouseEvent| run(vec![b"PERSIST".to_vec(), key.clone()]))
            };
            let delete = {
                let (run, key) = (run.clone(), key.clone());
                Callback::from(move |_: MouseEvent| run(vec![b"DEL".to_vec(), key.clone()]))
            };
            html! {
                <div class="key-tools">
                    <span class={classes!("badge", "type", meta.kind.name())}>{ meta.kind.name() }</span>
                    <span class="ttl-label">{ format!("{}{}", s.ttl, s.colon) }<strong class="ttl">{ ttl_text }</strong></span>
                    <form class="inline" onsubmit={expire}>
                        <input type="number" min="1" placeholder={s.seconds} aria-label={s.seconds}
                            value={(*ttl).clone()} oninput={on_ttl} />
                        <button type="submit">{ s.expire }</button>
                    </form>
                    if meta.expire_at.is_some() {
                        <button type="button" onclick={persist}>{ s.persist }</button>
                    }
                    <button type="button" class="danger" onclick={delete}>{ s.delete }</button>
                </div>
            }
        }
    };
    // The server's own removals are named as what they are, not as the `DEL` they
    // replay as (see `ViewData::changed_by`).
    let changed = view.changed_by.as_ref().map(|c| match c.as_str() {
        "expired" => html! { <p class="changed gone-note">{ s.expired_note }</p> },
        "evicted" => html! { <p class="changed gone-note">{ s.evicted_note }</p> },
        _ => html! {
            <p class="changed">{ format!("{} ", s.changed_by) }<code>{ c.clone() }</code></p>
        },
    });
    let body = match (&view.value, view.meta) {
        (Some(v), Some(meta)) => body(
            v,
            view.prev.as_ref(),
            meta.kind,
            &key,
            *mode,
            &mode,
            (&a, &b),
            &run,
            s,
        ),
        _ => html! {},
    };
    html! {
        <section class="value" aria-label={s.value}>
            { venn }
            <div class="panel-head">
                <h2 class="key-name" title={name.clone()}>{ name.clone() }</h2>
                if props.cluster {
                    <span class="badge slot" title={format!("CLUSTER KEYSLOT {name}")}>{ format!("{} {}", s.hash_slot, crate::engine::cluster::key_slot(&key)) }</span>
                }
            </div>
            { head }
            { changed }
            <div class="value-body">{ body }</div>
        </section>
    }
}

/// The first screen's pointer for newcomers: two walkthroughs as cards, and the list.
fn start_cards(s: &Strings) -> Html {
    let card = |id: &str, title: &str, blurb: &str| {
        html! {
            <li>
                <a class="start-card" href={format!("#/walk/{id}")}>
                    <strong>{ title.to_string() }</strong>
                    <span>{ blurb.to_string() }</span>
                </a>
            </li>
        }
    };
    html! {
        <section class="start" aria-labelledby="start-title">
            <h3 id="start-title">{ s.start_title }</h3>
            <p class="start-hint">{ s.start_hint }</p>
            <ul class="start-cards">
                { card("login", s.start_login, s.start_login_blurb) }
                { card("tags", s.start_tags, s.start_tags_blurb) }
            </ul>
            <a class="start-all" href="#/walk">{ format!("{} →", s.start_all) }</a>
        </section>
    }
}

type Run = dyn Fn(Vec<Vec<u8>>);

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn setter(state: &UseStateHandle<String>) -> Callback<InputEvent> {
    let state = state.clone();
    Callback::from(move |e: InputEvent| {
        state.set(e.target_unchecked_into::<HtmlInputElement>().value())
    })
}

fn mode_buttons(
    modes: &[(Mode, &'static str)],
    current: Mode,
    handle: &UseStateHandle<Mode>,
) -> Html {
    html! {
        <div class="seg" role="group">
            { for modes.iter().map(|&(m, label)| {
                let handle = handle.clone();
                let onclick = Callback::from(move |_: MouseEvent| handle.set(m));
                html! { <button type="button" aria-pressed={(m == current).to_string()} {onclick}>{ label }</button> }
            }) }
        </div>
    }
}

fn remove_button(s: &Strings, run: &Rc<Run>, words: Vec<Vec<u8>>) -> Html {
    let run = run.clone();
    let onclick = Callback::from(move |_: MouseEvent| run(words.clone()));
    html! { <button type="button" class="icon-button" aria-label={s.remove} title={s.remove} {onclick}>{ "×" }</button> }
}

fn more(shown: usize, total: usize, s: &Strings) -> Html {
    if shown < total {
        html! { <p class="more">{ format!("{} {shown} {} {total}", s.showing_first, s.of) }</p> }
    } else {
        html! {}
    }
}

/// The body for one type.
#[allow(clippy::too_many_arguments)]
fn body(
    v: &Snapshot,
    prev: Option<&Snapshot>,
    kind: Kind,
    key: &[u8],
    mode: Mode,
    mode_handle: &UseStateHandle<Mode>,
    (a, b): (&UseStateHandle<String>, &UseStateHandle<String>),
    run: &(impl Fn(Vec<Vec<u8>>) + Clone + 'static),
    s: &Strings,
) -> Html {
    let run: Rc<Run> = Rc::new(run.clone());
    let k = key.to_vec();
    // The add form: `cmd key [a] [b]` for the type's insert command(s).
    let form = |cmds: &[(&'static str, &'static str)],
                a_ph: &'static str,
                b_ph: Option<&'static str>| {
        let buttons = cmds.iter().map(|&(cmd, label)| {
            let (run, k, a, b) = (run.clone(), k.clone(), a.clone(), b.clone());
            let two = b_ph.is_some();
            let onclick = Callback::from(move |_: MouseEvent| {
                let mut words = vec![cmd.as_bytes().to_vec(), k.clone(), a.as_bytes().to_vec()];
                if two {
                    words.push(b.as_bytes().to_vec());
                }
                run(words);
                a.set(String::new());
                b.set(String::new());
            });
            html! { <button type="button" {onclick}>{ label }</button> }
        });
        html! {
            <div class="add-form">
                <input type="text" placeholder={a_ph} aria-label={a_ph} value={(**a).clone()} oninput={setter(a)} />
                if let Some(ph) = b_ph {
                    <input type="text" placeholder={ph} aria-label={ph} value={(**b).clone()} oninput={setter(b)} />
                }
                { for buttons }
            </div>
        }
    };
    match v {
        Snapshot::String(bytes, len) => {
            let binary = std::str::from_utf8(bytes).is_err()
                || bytes
                    .iter()
                    .any(|&c| c < 0x20 && !matches!(c, b'\n' | b'\r' | b'\t'));
            let json = std::str::from_utf8(bytes).ok().and_then(pretty_json);
            let mode = match mode {
                Mode::Text | Mode::Json | Mode::Hex | Mode::Bits => mode,
                _ if json.is_some() => Mode::Json,
                _ if binary => Mode::Hex,
                _ => Mode::Text,
            };
            let shown = match mode {
                Mode::Json => {
                    html! { <pre class="string json">{ json.clone().unwrap_or_else(|| text(bytes)) }</pre> }
                }
                Mode::Hex => html! { <pre class="string hex">{ hex_dump(bytes) }</pre> },
                Mode::Bits => bits_html(bytes, &k, &run),
                _ => html! { <pre class="string">{ text(bytes) }</pre> },
            };
            let changed = matches!(prev, Some(Snapshot::String(p, _)) if p != bytes);
            let save = {
                let (run, k, a) = (run.clone(), k.clone(), a.clone());
                Callback::from(move |_: MouseEvent| {
                    run(vec![
                        b"SET".to_vec(),
                        k.clone(),
                        a.as_bytes().to_vec(),
                        b"KEEPTTL".to_vec(),
                    ])
                })
            };
            let _ = kind;
            html! {
                <>
                    { mode_buttons(&[(Mode::Text, s.raw), (Mode::Json, s.json), (Mode::Hex, s.hex), (Mode::Bits, s.bits)], mode, mode_handle) }
                    <div class={classes!("string-box", changed.then_some("flash"))}>{ shown }</div>
                    { more(bytes.len(), *len, s) }
                    <div class="add-form">
                        <input type="text" placeholder={s.element} aria-label={s.element} value={(**a).clone()} oninput={setter(a)} />
                        <button type="button" onclick={save}>{ s.save }</button>
                    </div>
                </>
            }
        }
        Snapshot::Hll(estimate, encoding, size) => html! {
            <>
                <dl class="facts">
                    <dt>{ s.hll_estimate }</dt><dd class="big">{ estimate.map_or("?".to_string(), |e| e.to_string()) }</dd>
                    <dt>{ s.encoding }</dt><dd>{ *encoding }</dd>
                    <dt>{ s.bytes }</dt><dd>{ size }</dd>
                </dl>
                { form(&[("PFADD", "PFADD")], s.element, None) }
            </>
        },
        Snapshot::List(items, len) => {
            let (added, removed) = match prev {
                Some(Snapshot::List(p, _)) => list_diff(p, items),
                _ => (0..0, Vec::new()),
            };
            html! {
                <>
                    { form(&[("LPUSH", "LPUSH"), ("RPUSH", "RPUSH")], s.element, None) }
                    <table class="items">
                        <thead><tr><th>{ "#" }</th><th>{ s.element }</th><th></th></tr></thead>
                        <tbody>
                        { for items.iter().enumerate().map(|(i, item)| {
                            let mark = if i == 0 { Some(s.head) } else if i + 1 == *len { Some(s.tail) } else { None };
                            html! {
                                <tr class={classes!(added.contains(&i).then_some("added"))}>
                                    <td class="idx">{ i }</td>
                                    <td>{ text(item) }
                                        if let Some(m) = mark { <span class="end-mark">{ m }</span> }
                                    </td>
                                    <td>{ remove_button(s, &run, vec![b"LREM".to_vec(), k.clone(), b"1".to_vec(), item.clone()]) }</td>
                                </tr>
                            }
                        }) }
                        </tbody>
                    </table>
                    { more(items.len(), *len, s) }
                    { removed_html(&removed, s) }
                </>
            }
        }
        Snapshot::Set(members, len) => {
            let (added, removed) = match prev {
                Some(Snapshot::Set(p, _)) => set_diff(p, members),
                _ => (Vec::new(), Vec::new()),
            };
            html! {
                <>
                    { form(&[("SADD", "SADD")], s.member, None) }
                    <ul class="members">
                        { for members.iter().map(|m| html! {
                            <li class={classes!(has(&added, m).then_some("added"))}>
                                <span>{ text(m) }</span>
                                { remove_button(s, &run, vec![b"SREM".to_vec(), k.clone(), m.clone()]) }
                            </li>
                        }) }
                    </ul>
                    { more(members.len(), *len, s) }
                    { removed_html(&removed, s) }
                </>
            }
        }
        Snapshot::ZSet(pairs, len) => {
            let geo = !pairs.is_empty()
                && pairs
                    .iter()
                    .all(|(_, sc)| (0.0..4_503_599_627_370_496.0).contains(sc));
            let mode = match mode {
                Mode::Map if geo => Mode::Map,
                _ => Mode::Table,
            };
            let mut prev_rank: Vec<(&[u8], usize)> = match prev {
                Some(Snapshot::ZSet(p, _)) => p
                    .iter()
                    .enumerate()
                    .map(|(i, (m, _))| (m.as_slice(), i))
                    .collect(),
                _ => Vec::new(),
            };
            crate::sorting::sort(&mut prev_rank);
            let max = pairs
                .iter()
                .map(|(_, sc)| sc.abs())
                .filter(|x| x.is_finite())
                .fold(0.0f64, f64::max);
            let table = html! {
                <table class="items">
                    <thead><tr><th>{ s.rank }</th><th>{ s.member }</th><th>{ s.score }</th><th></th></tr></thead>
                    <tbody>
                    { for pairs.iter().enumerate().map(|(i, (m, sc))| {
                        let moved = prev.map(|_| {
                            prev_rank
                                .binary_search_by(|(k, _)| (*k).cmp(m.as_slice()))
                                .ok()
                                .and_then(|at| prev_rank.get(at))
                                .map(|(_, r)| *r)
                        });
                        let (cls, arrow) = match moved {
                            Some(None) => (Some("added"), String::new()),
                            Some(Some(r)) if r > i => (Some("moved"), format!(" ↑{}", r - i)),
                            Some(Some(r)) if r < i => (Some("moved"), format!(" ↓{}", i - r)),
                            _ => (None, String::new()),
                        };
                        let pct = if max > 0.0 && sc.is_finite() { (sc.abs() / max * 100.0).clamp(0.0, 100.0) } else { 0.0 };
                        let (run2, k2, m2) = (run.clone(), k.clone(), m.clone());
                        let incr = Callback::from(move |_: MouseEvent| run2(vec![b"ZINCRBY".to_vec(), k2.clone(), b"1".to_vec(), m2.clone()]));
                        html! {
                            <tr class={classes!(cls)}>
                                <td class="idx">{ i }<span class="arrow">{ arrow }</span></td>
                                <td>{ text(m) }</td>
                                <td class="score">
                                    <span class="bar" style={format!("width:{pct:.1}%")}></span>
                                    <span class="num">{ crate::engine::reply::format_double(*sc) }</span>
                                </td>
                                <td class="actions">
                                    <button type="button" class="icon-button" title="ZINCRBY 1" aria-label="ZINCRBY 1" onclick={incr}>{ "+1" }</button>
                                    { remove_button(s, &run, vec![b"ZREM".to_vec(), k.clone(), m.clone()]) }
                                </td>
                            </tr>
                        }
                    }) }
                    </tbody>
                </table>
            };
            html! {
                <>
                    if geo {
                        { mode_buttons(&[(Mode::Table, s.table), (Mode::Map, s.map)], mode, mode_handle) }
                    }
                    { form(&[("ZADD", "ZADD")], s.score, Some(s.member)) }
                    if mode == Mode::Map { <GeoMap pairs={Rc::new(pairs.clone())} lang={lang_of(s)} /> } else { { table } }
                    { more(pairs.len(), *len, s) }
                </>
            }
        }
        Snapshot::Hash(fields, len) => {
            let (added, removed) = match prev {
                Some(Snapshot::Hash(p, _)) => {
                    let mut old: Vec<(&[u8], &[u8])> = p
                        .iter()
                        .map(|(f, v)| (f.as_slice(), v.as_slice()))
                        .collect();
                    crate::sorting::sort(&mut old);
                    let new = sorted(&fields.iter().map(|(f, _)| f.clone()).collect::<Vec<_>>());
                    let added = sorted(
                        &fields
                            .iter()
                            .filter(|(f, v)| {
                                old.binary_search(&(f.as_slice(), v.as_slice())).is_err()
                            })
                            .map(|(f, _)| f.clone())
                            .collect::<Vec<_>>(),
                    );
                    let removed: Vec<Vec<u8>> = p
                        .iter()
                        .filter(|(f, _)| !has(&new, f))
                        .map(|(f, _)| f.clone())
                        .collect();
                    (added, removed)
                }
                _ => (Vec::new(), Vec::new()),
            };
            html! {
                <>
                    { form(&[("HSET", "HSET")], s.field, Some(s.element)) }
                    <table class="items">
                        <thead><tr><th>{ s.field }</th><th>{ s.element }</th><th></th></tr></thead>
                        <tbody>
                        { for fields.iter().map(|(f, v)| html! {
                            <tr class={classes!(has(&added, f).then_some("added"))}>
                                <td>{ text(f) }</td>
                                <td>{ text(v) }</td>
                                <td>{ remove_button(s, &run, vec![b"HDEL".to_vec(), k.clone(), f.clone()]) }</td>
                            </tr>
                        }) }
                        </tbody>
                    </table>
                    { more(fields.len(), *len, s) }
                    { removed_html(&removed, s) }
                </>
            }
        }
        Snapshot::Stream(st) => {
            let xadd = {
                let (run, k, a, b) = (run.clone(), k.clone(), a.clone(), b.clone());
                Callback::from(move |_: MouseEvent| {
                    run(vec![
                        b"XADD".to_vec(),
                        k.clone(),
                        b"*".to_vec(),
                        a.as_bytes().to_vec(),
                        b.as_bytes().to_vec(),
                    ]);
                    a.set(String::new());
                    b.set(String::new());
                })
            };
            let fresh: Vec<StreamId> = match prev {
                Some(Snapshot::Stream(p)) => {
                    let old = p.entries.last().map(|e| e.0);
                    st.entries
                        .iter()
                        .map(|e| e.0)
                        .filter(|id| old.is_none_or(|o| *id > o))
                        .collect()
                }
                _ => Vec::new(),
            };
            let entries = st.entries.iter().map(|(id, fields)| {
                html! {
                    <tr class={classes!(fresh.contains(id).then_some("added"))}>
                        <td class="stream-id"><code>{ id.to_string() }</code></td>
                        <td class="stream-fields">
                        { for fields.iter().map(|(f, v)| html! {
                            <><span class="pair"><span class="f">{ text(f) }</span>{ " " }<span class="v">{ text(v) }</span></span>{ " " }</>
                        }) }
                        </td>
                    </tr>
                }
            });
            let groups = st.groups.iter().map(|g| {
                let gname = g.name.clone();
                let pending = g.pending.iter().map(|(id, c, n)| {
                    let ack = {
                        let (run, k, gname, id) = (run.clone(), k.clone(), gname.clone(), *id);
                        Callback::from(move |_: MouseEvent| {
                            run(vec![b"XACK".to_vec(), k.clone(), gname.clone(), id.to_bytes()])
                        })
                    };
                    html! {
                        <tr>
                            <td class="stream-id"><code>{ id.to_string() }</code></td>
                            <td>{ text(c) }</td>
                            <td class="num">{ n }</td>
                            <td><button type="button" class="ack" title={format!("XACK {}", id)} onclick={ack}>{ "XACK" }</button></td>
                        </tr>
                    }
                });
                html! {
                    <div class="stream-group">
                        <h3>{ text(&g.name) }</h3>
                        <dl class="facts">
                            <dt>{ s.last_delivered }</dt><dd><code>{ g.last_delivered.to_string() }</code></dd>
                            <dt>{ s.entries_read }</dt><dd>{ g.entries_read }</dd>
                            <dt>{ s.lag }</dt><dd>{ g.lag.map_or("?".to_string(), |l| l.to_string()) }</dd>
                        </dl>
                        <p class="consumers">{ format!("{}: ", s.consumers) }
                        { for g.consumers.iter().map(|(c, n)| html! {
                            <span class="badge consumer">{ format!("{} ({n})", text(c)) }</span>
                        }) }
                        </p>
                        if !g.pending.is_empty() {
                            <table class="items pending">
                                <thead><tr><th>{ s.pending }</th><th>{ s.consumer }</th><th>{ s.deliveries }</th><th></th></tr></thead>
                                <tbody>{ for pending }</tbody>
                            </table>
                        }
                        { more(g.pending.len(), g.pending_count, s) }
                    </div>
                }
            });
            html! {
                <>
                    <dl class="facts">
                        <dt>{ s.length }</dt><dd>{ st.len }</dd>
                        <dt>{ s.last_id }</dt><dd><code>{ st.last_id.to_string() }</code></dd>
                        <dt>{ s.entries_added }</dt><dd>{ st.entries_added }</dd>
                    </dl>
                    <div class="add-form">
                        <input type="text" placeholder={s.field} aria-label={s.field} value={(**a).clone()} oninput={setter(a)} />
                        <input type="text" placeholder={s.element} aria-label={s.element} value={(**b).clone()} oninput={setter(b)} />
                        <button type="button" onclick={xadd}>{ "XADD *" }</button>
                    </div>
                    <table class="items stream">
                        <thead><tr><th>{ s.entry_id }</th><th>{ s.entries }</th></tr></thead>
                        <tbody>{ for entries }</tbody>
                    </table>
                    { more(st.entries.len(), usize::try_from(st.len).unwrap_or(usize::MAX), s) }
                    <h3>{ s.groups }</h3>
                    if st.groups.is_empty() {
                        <p class="empty">{ s.no_groups }</p>
                    }
                    { for groups }
                    { more(st.groups.len(), st.group_count, s) }
                </>
            }
        }
        Snapshot::Other(_) => html! { <p class="empty">{ s.no_view }</p> },
    }
}

fn removed_html(removed: &[Vec<u8>], s: &Strings) -> Html {
    if removed.is_empty() {
        return html! {};
    }
    html! {
        <div class="removed">
            <h3>{ s.removed }</h3>
            <ul>{ for removed.iter().map(|r| html! { <li><del>{ text(r) }</del></li> }) }</ul>
        </div>
    }
}

/// Elements of `new` that came in, and elements of `prev` that went, by comparing the two
/// lists' common head and tail (what LPUSH/RPUSH/LPOP/RPOP/LTRIM do).
fn list_diff(prev: &[Vec<u8>], new: &[Vec<u8>]) -> (std::ops::Range<usize>, Vec<Vec<u8>>) {
    let p = prev.iter().zip(new).take_while(|(a, b)| a == b).count();
    let max_s = prev.len().min(new.len()) - p;
    let s = prev
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(max_s)
        .take_while(|(a, b)| a == b)
        .count();
    let added = p..new.len() - s;
    let removed = prev.get(p..prev.len() - s).unwrap_or(&[]).to_vec();
    (added, removed)
}

fn set_diff(prev: &[Vec<u8>], new: &[Vec<u8>]) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let old = sorted(prev);
    let now = sorted(new);
    let added = sorted(
        &new.iter()
            .filter(|m| !has(&old, m))
            .cloned()
            .collect::<Vec<_>>(),
    );
    let removed = prev.iter().filter(|m| !has(&now, m)).cloned().collect();
    (added, removed)
}

/// A sorted copy, for [`has`]. (Sorted vectors rather than hash sets keep the page small.)
fn sorted(items: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut v = items.to_vec();
    v.sort_unstable();
    v
}

/// True if the sorted `items` hold `item`. **O(log n).**
fn has(items: &[Vec<u8>], item: &[u8]) -> bool {
    items.binary_search_by(|x| x.as_slice().cmp(item)).is_ok()
}

/// `00000000  68 65 6c 6c 6f  |hello|` lines, 16 bytes each.
fn hex_dump(bytes: &[u8]) -> String {
    let mut out = String::new();
    for (i, chunk) in bytes.chunks(16).enumerate() {
        let hex: Vec<String> = chunk.iter().map(|b| format!("{b:02x}")).collect();
        let ascii: String = chunk
            .iter()
            .map(|&b| {
                if b.is_ascii_graphic() || b == b' ' {
                    b as char
                } else {
                    '.'
                }
            })
            .collect();
        out.push_str(&format!(
            "{:08x}  {:<48}|{}|\n",
            i * 16,
            hex.join(" "),
            ascii
        ));
    }
    out
}

/// The first 64 bytes as a grid of bits, most significant first (bit 0 is the top bit of
/// byte 0, as `SETBIT` counts). A click flips a bit with `SETBIT`.
fn bits_html(bytes: &[u8], key: &[u8], run: &Rc<Run>) -> Html {
    let shown = bytes.get(..64).unwrap_or(bytes);
    html! {
        <div class="bits" role="grid">
            { for shown.chunks(4).enumerate().map(|(row, chunk)| html! {
                <div class="bit-row" role="row">
                    <span class="offset">{ row * 32 }</span>
                    { for chunk.iter().enumerate().flat_map(|(byte, &v)| (0..8).map(move |bit| (row * 32 + byte * 8 + bit, v >> (7 - bit) & 1))).map(|(offset, on)| {
                        let (run, key) = (run.clone(), key.to_vec());
                        let onclick = Callback::from(move |_: MouseEvent| {
                            run(vec![b"SETBIT".to_vec(), key.clone(), offset.to_string().into_bytes(), if on == 1 { b"0".to_vec() } else { b"1".to_vec() }])
                        });
                        html! {
                            <button type="button" role="gridcell" class={classes!("bit", (on == 1).then_some("on"))}
                                title={format!("SETBIT {offset} {}", 1 - on)} aria-label={format!("{offset}: {on}")} {onclick}></button>
                        }
                    }) }
                </div>
            }) }
        </div>
    }
}

/// Where the world outline is served: Natural Earth's 1:110m land (public domain) as one
/// SVG path in tenths of a degree, made by `scripts/world-outline.mjs` (about 5 KB gzip).
/// It is fetched the first time a map is shown, so the first load does not carry it.
const OUTLINE_URL: &str = "geo/land-110m.path";

thread_local! {
    /// The outline once fetched; `Some("")` while the fetch is under way or after it failed.
    static OUTLINE: std::cell::RefCell<Option<Rc<str>>> = const { std::cell::RefCell::new(None) };
}

/// The world outline: `None` until fetched. Starts the fetch on first use; `done` is
/// called when it arrives.
fn world_outline(done: Callback<Rc<str>>) -> Option<Rc<str>> {
    if let Some(o) = OUTLINE.with_borrow(Clone::clone) {
        return (!o.is_empty()).then_some(o);
    }
    OUTLINE.set(Some(Rc::from("")));
    wasm_bindgen_futures::spawn_local(async move {
        use wasm_bindgen::JsCast;
        use wasm_bindgen_futures::JsFuture;
        let text = async {
            let window = web_sys::window()?;
            let resp = JsFuture::from(window.fetch_with_str(OUTLINE_URL))
                .await
                .ok()?;
            let resp: web_sys::Response = resp.dyn_into().ok()?;
            if !resp.ok() {
                return None;
            }
            JsFuture::from(resp.text().ok()?).await.ok()?.as_string()
        }
        .await;
        if let Some(text) = text {
            let outline: Rc<str> = Rc::from(text.trim());
            OUTLINE.set(Some(outline.clone()));
            done.emit(outline);
        }
    });
    None
}

/// The language whose strings `s` are.
fn lang_of(s: &Strings) -> Lang {
    if std::ptr::eq(s, Lang::Zh.strings()) {
        Lang::Zh
    } else {
        Lang::En
    }
}

/// Properties of [`GeoMap`].
#[derive(Properties, PartialEq)]
struct GeoMapProps {
    /// Members and their geohash scores.
    pairs: Rc<Vec<(Vec<u8>, f64)>>,
    /// The language.
    lang: Lang,
}

/// Geo members plotted over a world outline in an equirectangular projection (longitude
/// and latitude as x and −y; inline SVG, nothing from the network but our own outline),
/// zoomed to the members with a graticule every 1°, 10° or 30°. The view is always twice
/// as wide as tall, as the whole world is in this projection, so it fits its panel's width
/// without distortion.
#[component]
fn GeoMap(props: &GeoMapProps) -> Html {
    let s = props.lang.strings();
    let outline = {
        let arrived = use_state(|| None::<Rc<str>>);
        let set = arrived.clone();
        let cached = world_outline(Callback::from(move |o| set.set(Some(o))));
        cached.or_else(|| (*arrived).clone())
    };
    let points: Vec<(String, f64, f64)> = props
        .pairs
        .iter()
        .map(|(m, sc)| {
            let (lon, lat) = geohash::decode_score(*sc);
            (text(m), lon, lat)
        })
        .collect();
    let (mut x0, mut x1, mut y0, mut y1) = (180.0f64, -180.0f64, 90.0f64, -90.0f64);
    for (_, lon, lat) in &points {
        x0 = x0.min(*lon);
        x1 = x1.max(*lon);
        y0 = y0.min(*lat);
        y1 = y1.max(*lat);
    }
    let pad = ((x1 - x0).max(y1 - y0) * 0.15).max(0.5);
    // A 2:1 box around the members, at least 4° wide, kept inside the world when it fits.
    let w = (x1 - x0 + 2.0 * pad)
        .max(2.0 * (y1 - y0 + 2.0 * pad))
        .clamp(4.0, 360.0);
    let h = w / 2.0;
    let left = ((x0 + x1 - w) / 2.0).clamp(-180.0, 180.0 - w);
    let north = ((y0 + y1 + h) / 2.0).clamp(-90.0 + h, 90.0);
    let (x0, x1, y0, y1) = (left, left + w, north - h, north);
    let step = if w > 60.0 {
        30.0
    } else if w > 10.0 {
        10.0
    } else {
        1.0
    };
    let r = w / 120.0;
    let grid_x = ((x0 / step).ceil() as i64..=(x1 / step).floor() as i64).map(|i| i as f64 * step);
    let grid_y = ((y0 / step).ceil() as i64..=(y1 / step).floor() as i64).map(|i| i as f64 * step);
    html! {
        <svg class="geo" viewBox={format!("{x0} {} {w} {h}", -y1)} role="img" aria-label={s.map}
            data-outline={outline.is_some().to_string()}>
            if let Some(d) = outline {
                <path class="land" d={d.to_string()} transform="scale(0.1)" />
            }
            { for grid_x.map(|x| html! { <line class="grid" x1={x.to_string()} x2={x.to_string()} y1={(-y1).to_string()} y2={(-y0).to_string()} /> }) }
            { for grid_y.map(|y| html! { <line class="grid" y1={(-y).to_string()} y2={(-y).to_string()} x1={x0.to_string()} x2={x1.to_string()} /> }) }
            { for points.iter().map(|(name, lon, lat)| html! {
                <g>
                    <circle cx={lon.to_string()} cy={(-lat).to_string()} r={r.to_string()} />
                    <text x={(lon + r * 1.5).to_string()} y={(-lat + r * 0.5).to_string()} font-size={(r * 4.0).to_string()}>{ name.clone() }</text>
                    <title>{ format!("{name}: {lon:.5}, {lat:.5}") }</title>
                </g>
            }) }
        </svg>
    }
}

/// The sets of a `SINTER`/`SUNION`/`SDIFF` as overlapping circles; the regions in the
/// result are highlighted and list their members.
fn venn_html(v: &Venn, s: &Strings, on_action: &Callback<Action>) -> Html {
    let n = v.sets.len();
    let full = (1u32 << n) - 1;
    let in_result = |mask: u32| match v.op.as_str() {
        "SINTER" => mask == full,
        "SUNION" => mask != 0,
        _ => mask == 1,
    };
    let mut regions: [Vec<String>; 8] = Default::default();
    let mut all: Vec<&[u8]> = v
        .sets
        .iter()
        .flat_map(|(_, m)| m.iter().map(Vec::as_slice))
        .collect();
    crate::sorting::sort(&mut all);
    all.dedup();
    for m in all {
        let mask = v
            .sets
            .iter()
            .enumerate()
            .filter(|(_, (_, ms))| ms.iter().any(|x| x == m))
            .fold(0, |acc, (i, _)| acc | 1 << i);
        if let Some(r) = regions.get_mut(mask as usize) {
            r.push(text(m));
        }
    }
    // Circle centres and where each region's members are written.
    type Centres = &'static [(f64, f64)];
    type Spots = &'static [(u32, f64, f64)];
    let (centres, spots): (Centres, Spots) = if n == 2 {
        (
            &[(110.0, 100.0), (190.0, 100.0)],
            &[(1, 80.0, 100.0), (2, 220.0, 100.0), (3, 150.0, 100.0)],
        )
    } else {
        (
            &[(120.0, 85.0), (180.0, 85.0), (150.0, 140.0)],
            &[
                (1, 90.0, 70.0),
                (2, 210.0, 70.0),
                (4, 150.0, 175.0),
                (3, 150.0, 60.0),
                (5, 115.0, 130.0),
                (6, 185.0, 130.0),
                (7, 150.0, 105.0),
            ],
        )
    };
    let close = on_action.reform(|_: MouseEvent| Action::CloseVenn);
    html! {
        <div class="venn">
            <div class="panel-head">
                <h2>{ format!("{}{}{} ", s.set_op, s.colon, v.op) }</h2>
                <button type="button" class="icon-button" aria-label={s.close} title={s.close} onclick={close}>{ "×" }</button>
            </div>
            <svg viewBox="0 0 300 210" role="img" aria-label={format!("{} {}", v.op, s.result)}>
                { for centres.iter().zip(&v.sets).map(|(&(cx, cy), (name, _))| html! {
                    <g>
                        <circle class="set" cx={cx.to_string()} cy={cy.to_string()} r="62" />
                        <text class="set-name" x={cx.to_string()} y={(if cy < 100.0 { cy - 66.0 } else { cy + 76.0 }).to_string()}>{ text(name) }</text>
                    </g>
                }) }
                { for spots.iter().filter(|(mask, _, _)| *mask <= full).map(|&(mask, x, y)| {
                    let members = regions.get(mask as usize).cloned().unwrap_or_default();
                    let hot = in_result(mask) && !members.is_empty();
                    let shown: Vec<String> = members.iter().take(4).cloned().collect();
                    let extra = members.len().saturating_sub(4);
                    html! {
                        <text class={classes!("region", hot.then_some("hot"))} x={x.to_string()} y={y.to_string()}>
                            { for shown.iter().enumerate().map(|(i, m)| html! { <tspan x={x.to_string()} dy={if i == 0 { "0".to_string() } else { "1.1em".to_string() }}>{ m.clone() }</tspan> }) }
                            if extra > 0 { <tspan x={x.to_string()} dy="1.1em">{ format!("+{extra}") }</tspan> }
                        </text>
                    }
                }) }
            </svg>
            <p class="venn-result">{ format!("{}{}{}", s.result, s.colon, v.result.iter().map(|m| text(m)).collect::<Vec<_>>().join(", ")) }</p>
        </div>
    }
}

/// Re-indents `src` if it is a JSON object or array; `None` if it does not parse.
pub fn pretty_json(src: &str) -> Option<String> {
    let t = src.trim();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    let mut p = Json {
        s: t.as_bytes(),
        i: 0,
        out: String::new(),
        depth: 0,
    };
    p.value()?;
    p.ws();
    (p.i == p.s.len()).then_some(p.out)
}

/// A small JSON reader that writes what it reads, indented by two spaces.
struct Json<'a> {
    s: &'a [u8],
    i: usize,
    out: String,
    depth: usize,
}

impl Json<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
    }

    fn value(&mut self) -> Option<()> {
        if self.depth > 64 {
            return None;
        }
        self.ws();
        match *self.s.get(self.i)? {
            b'{' => self.container(b'}', true),
            b'[' => self.container(b']', false),
            b'"' => self.string(),
            _ => {
                let start = self.i;
                while self
                    .s
                    .get(self.i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || b"+-.".contains(c))
                {
                    self.i += 1;
                }
                let word = std::str::from_utf8(self.s.get(start..self.i)?).ok()?;
                let ok = matches!(word, "true" | "false" | "null") || word.parse::<f64>().is_ok();
                ok.then(|| self.out.push_str(word))
            }
        }
    }

    fn string(&mut self) -> Option<()> {
        let start = self.i;
        self.i += 1;
        loop {
            match *self.s.get(self.i)? {
                b'\\' => self.i += 2,
                b'"' => {
                    self.i += 1;
                    break;
                }
                _ => self.i += 1,
            }
        }
        self.out
            .push_str(std::str::from_utf8(self.s.get(start..self.i)?).ok()?);
        Some(())
    }

    fn container(&mut self, close: u8, object: bool) -> Option<()> {
        self.out.push(self.s[self.i] as char);
        self.i += 1;
        self.ws();
        if self.s.get(self.i) == Some(&close) {
            self.i += 1;
            self.out.push(close as char);
            return Some(());
        }
        self.depth += 1;
        loop {
            self.newline();
            if object {
                self.ws();
                if self.s.get(self.i) != Some(&b'"') {
                    return None;
                }
                self.string()?;
                self.ws();
                if self.s.get(self.i) != Some(&b':') {
                    return None;
                }
                self.i += 1;
                self.out.push_str(": ");
            }
            self.value()?;
            self.ws();
            match *self.s.get(self.i)? {
                b',' => {
                    self.i += 1;
                    self.out.push(',');
                }
                c if c == close => {
                    self.i += 1;
                    self.depth -= 1;
                    self.newline();
                    self.out.push(close as char);
                    return Some(());
                }
                _ => return None,
            }
        }
    }
}
