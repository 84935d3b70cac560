//! Strings — as text, pretty JSON when they hold it, a hex dump when binary, a grid of bits
//! for bitmaps — and HyperLogLogs (their estimate).

use std::rc::Rc;

use yew::prelude::*;

use super::json::pretty_json;
use super::parts::{mode_buttons, more, setter, text, Ctx, Mode, Run};
use crate::engine::inspect::ValueView as Snapshot;

/// A string: the mode buttons, the value as the mode shows it, and a SET box.
pub(super) fn string(c: &Ctx, bytes: &[u8], len: &usize) -> Html {
    let (s, run, k, a, prev) = (c.s, &c.run, &c.key, c.a, c.prev);
    let binary = std::str::from_utf8(bytes).is_err()
        || bytes
            .iter()
            .any(|&c| c < 0x20 && !matches!(c, b'\n' | b'\r' | b'\t'));
    let json = std::str::from_utf8(bytes).ok().and_then(pretty_json);
    let mode = match c.mode {
        Mode::Text | Mode::Json | Mode::Hex | Mode::Bits => c.mode,
        _ if json.is_some() => Mode::Json,
        _ if binary => Mode::Hex,
        _ => Mode::Text,
    };
    let shown = match mode {
        Mode::Json => {
            html! { <pre class="string json">{ json.clone().unwrap_or_else(|| text(bytes)) }</pre> }
        }
        Mode::Hex => html! { <pre class="string hex">{ hex_dump(bytes) }</pre> },
        Mode::Bits => bits_html(bytes, k, run),
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
    html! {
        <>
            { mode_buttons(&[(Mode::Text, s.raw), (Mode::Json, s.json), (Mode::Hex, s.hex), (Mode::Bits, s.bits)], mode, c.mode_handle) }
            <div class={classes!("string-box", changed.then_some("flash"))}>{ shown }</div>
            { more(bytes.len(), *len, s) }
            <div class="add-form">
                <input type="text" placeholder={s.element} aria-label={s.element} value={(**a).clone()} oninput={setter(a)} />
                <button type="button" onclick={save}>{ s.save }</button>
            </div>
        </>
    }
}

/// A HyperLogLog: its estimate, encoding and size, and a PFADD box.
pub(super) fn hll(c: &Ctx, estimate: &Option<u64>, encoding: &str, size: &usize) -> Html {
    let s = c.s;
    html! {
        <>
            <dl class="facts">
                <dt>{ s.hll_estimate }</dt><dd class="big">{ estimate.map_or("?".to_string(), |e| e.to_string()) }</dd>
                <dt>{ s.encoding }</dt><dd>{ encoding }</dd>
                <dt>{ s.bytes }</dt><dd>{ size }</dd>
            </dl>
            { c.form(&[("PFADD", "PFADD")], s.element, None) }
        </>
    }
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
