//! Sorted sets: rank, member and score with a bar, how far each member moved, and a map
//! when every score is a geohash ([`super::geo`]).

use std::rc::Rc;

use yew::prelude::*;

use super::geo::GeoMap;
use super::parts::{mode_buttons, more, remove_button, text, Ctx, Mode};
use crate::engine::inspect::ValueView as Snapshot;

/// A sorted set: the table (or the map), and a ZADD box.
pub(super) fn zset(c: &Ctx, pairs: &[(Vec<u8>, f64)], len: &usize) -> Html {
    let (s, run, k, prev) = (c.s, &c.run, &c.key, c.prev);
    let geo = !pairs.is_empty()
        && pairs
            .iter()
            .all(|(_, sc)| (0.0..4_503_599_627_370_496.0).contains(sc));
    let mode = match c.mode {
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
                            { remove_button(s, run, vec![b"ZREM".to_vec(), k.clone(), m.clone()]) }
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
                { mode_buttons(&[(Mode::Table, s.table), (Mode::Map, s.map)], mode, c.mode_handle) }
            }
            { c.form(&[("ZADD", "ZADD")], s.score, Some(s.member)) }
            if mode == Mode::Map { <GeoMap pairs={Rc::new(pairs.to_vec())} lang={c.lang} /> } else { { table } }
            { more(pairs.len(), *len, s) }
        </>
    }
}
