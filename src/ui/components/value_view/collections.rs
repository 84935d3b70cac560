//! Lists (indexed, head and tail marked), sets and hashes, each with what the last command
//! added (highlighted) and removed (listed under it).

use yew::prelude::*;

use super::parts::{more, remove_button, removed_html, text, Ctx};
use crate::engine::inspect::ValueView as Snapshot;

/// A list: LPUSH/RPUSH, then its elements from the head.
pub(super) fn list(c: &Ctx, items: &[Vec<u8>], len: &usize) -> Html {
    let (s, run, k, prev) = (c.s, &c.run, &c.key, c.prev);
    let (added, removed) = match prev {
        Some(Snapshot::List(p, _)) => list_diff(p, items),
        _ => (0..0, Vec::new()),
    };
    html! {
        <>
            { c.form(&[("LPUSH", "LPUSH"), ("RPUSH", "RPUSH")], s.element, None) }
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
                            <td>{ remove_button(s, run, vec![b"LREM".to_vec(), k.clone(), b"1".to_vec(), item.clone()]) }</td>
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

/// A set: SADD, then its members.
pub(super) fn set(c: &Ctx, members: &[Vec<u8>], len: &usize) -> Html {
    let (s, run, k, prev) = (c.s, &c.run, &c.key, c.prev);
    let (added, removed) = match prev {
        Some(Snapshot::Set(p, _)) => set_diff(p, members),
        _ => (Vec::new(), Vec::new()),
    };
    html! {
        <>
            { c.form(&[("SADD", "SADD")], s.member, None) }
            <ul class="members">
                { for members.iter().map(|m| html! {
                    <li class={classes!(has(&added, m).then_some("added"))}>
                        <span>{ text(m) }</span>
                        { remove_button(s, run, vec![b"SREM".to_vec(), k.clone(), m.clone()]) }
                    </li>
                }) }
            </ul>
            { more(members.len(), *len, s) }
            { removed_html(&removed, s) }
        </>
    }
}

/// A hash: HSET, then its fields and values.
pub(super) fn hash(c: &Ctx, fields: &[(Vec<u8>, Vec<u8>)], len: &usize) -> Html {
    let (s, run, k, prev) = (c.s, &c.run, &c.key, c.prev);
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
                    .filter(|(f, v)| old.binary_search(&(f.as_slice(), v.as_slice())).is_err())
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
            { c.form(&[("HSET", "HSET")], s.field, Some(s.element)) }
            <table class="items">
                <thead><tr><th>{ s.field }</th><th>{ s.element }</th><th></th></tr></thead>
                <tbody>
                { for fields.iter().map(|(f, v)| html! {
                    <tr class={classes!(has(&added, f).then_some("added"))}>
                        <td>{ text(f) }</td>
                        <td>{ text(v) }</td>
                        <td>{ remove_button(s, run, vec![b"HDEL".to_vec(), k.clone(), f.clone()]) }</td>
                    </tr>
                }) }
                </tbody>
            </table>
            { more(fields.len(), *len, s) }
            { removed_html(&removed, s) }
        </>
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
