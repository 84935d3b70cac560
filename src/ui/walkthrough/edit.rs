//! Free play's code boxes: Tab indents instead of leaving the box, with a way out for
//! keyboard users.

use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use super::session::Shared;

/// Keys in a free-play box: Tab indents (two spaces, or every selected line) instead of
/// leaving the box; Escape makes the next Tab leave it, as code editors do; Shift+Tab
/// always leaves. So a keyboard user can always get out.
pub(super) fn code_box_key(session: &Shared, e: KeyboardEvent) {
    if e.key() == "Escape" {
        session.borrow_mut().tab_leaves = true;
        return;
    }
    if e.key() != "Tab" {
        session.borrow_mut().tab_leaves = false;
        return;
    }
    if e.shift_key() || e.ctrl_key() || e.alt_key() || e.meta_key() {
        return;
    }
    if std::mem::take(&mut session.borrow_mut().tab_leaves) {
        return;
    }
    let Some(area) = e.target_dyn_into::<HtmlTextAreaElement>() else {
        return;
    };
    e.prevent_default();
    let value = area.value();
    // Selection offsets are in UTF-16 code units.
    let units: Vec<u16> = value.encode_utf16().collect();
    let start = area.selection_start().ok().flatten().unwrap_or(0) as usize;
    let end = area.selection_end().ok().flatten().unwrap_or(0) as usize;
    let (start, end) = (start.min(units.len()), end.min(units.len()));
    let indent: Vec<u16> = "  ".encode_utf16().collect();
    let newline = u16::from(b'\n');
    let (new, sel_start, sel_end) = if units[start..end].contains(&newline) {
        // Indent every line the selection touches.
        let line_start = units[..start]
            .iter()
            .rposition(|&c| c == newline)
            .map_or(0, |p| p + 1);
        let mut out = units[..line_start].to_vec();
        let mut added = 0;
        out.extend_from_slice(&indent);
        added += indent.len();
        for &c in &units[line_start..end] {
            out.push(c);
            if c == newline {
                out.extend_from_slice(&indent);
                added += indent.len();
            }
        }
        out.extend_from_slice(&units[end..]);
        (out, start + indent.len(), end + added)
    } else {
        let mut out = units[..start].to_vec();
        out.extend_from_slice(&indent);
        out.extend_from_slice(&units[end..]);
        let at = start + indent.len();
        (out, at, at)
    };
    let text = String::from_utf16_lossy(&new);
    area.set_value(&text);
    let _ = area.set_selection_range(sel_start as u32, sel_end as u32);
    // Setting the value fires no input event: keep the text as oninput would.
    let mut s = session.borrow_mut();
    if area.class_name().contains("walk-edit-sql") {
        s.free_sql = Some(text);
    } else {
        s.free_kv = Some(text);
    }
}
