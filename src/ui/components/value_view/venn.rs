//! The diagram of the last `SINTER`/`SUNION`/`SDIFF`: its sets as overlapping circles.

use yew::prelude::*;

use super::parts::text;
use crate::ui::i18n::Strings;
use crate::ui::state::{Action, Venn};

/// The sets of a `SINTER`/`SUNION`/`SDIFF` as overlapping circles; the regions in the
/// result are highlighted and list their members.
pub(super) fn venn_html(v: &Venn, s: &Strings, on_action: &Callback<Action>) -> Html {
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
