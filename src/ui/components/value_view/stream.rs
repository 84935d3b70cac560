//! Streams: the last entries, newest last, and each consumer group with its consumers and
//! pending entries.

use yew::prelude::*;

use super::parts::{more, setter, text, Ctx};
use crate::engine::inspect::{StreamView, ValueView as Snapshot};
use crate::engine::types::stream::StreamId;

/// A stream: its facts, an XADD box, the entries and the groups.
pub(super) fn stream(c: &Ctx, st: &StreamView) -> Html {
    let (s, run, k, a, b, prev) = (c.s, &c.run, &c.key, c.a, c.b, c.prev);
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
