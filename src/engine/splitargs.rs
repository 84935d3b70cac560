//! Splitting a line into arguments as `redis-cli` and Redis's inline protocol do
//! (`sdssplitargs`): used by the console ([`super::cli`]) and by script shebangs
//! ([`super::scripting`]). A leaf: it depends on nothing else in the engine.

/// The message redis-cli prints when a line can't be split (unbalanced quotes).
pub const INVALID_ARGUMENTS: &str = "Invalid argument(s)";

/// Splits a command line the way `redis-cli` does (`sdssplitargs`).
///
/// * Arguments are separated by whitespace.
/// * `"…"` allows the escapes `\n \r \t \b \a \\ \"` and `\xHH`; any other `\c` is `c`.
/// * `'…'` is literal except `\'`.
/// * A closing quote must be followed by whitespace or the end of the line.
///
/// Returns `None` for unbalanced quotes or a closing quote glued to more text, which
/// redis-cli reports as [`INVALID_ARGUMENTS`].
pub fn split_args(line: &str) -> Option<Vec<Vec<u8>>> {
    split_args_bytes(line.as_bytes())
}

/// [`split_args`] over raw bytes, as `redis-server` splits an inline command
/// (`processInlineBuffer` → `sdssplitargs`). Bytes that are not UTF-8 are kept as they are.
/// `sdssplitargs` reads a C string, so a NUL byte ends the line.
pub fn split_args_bytes(line: &[u8]) -> Option<Vec<Vec<u8>>> {
    let p = match line.iter().position(|&b| b == 0) {
        Some(n) => &line[..n],
        None => line,
    };
    let mut i = 0;
    let mut out = Vec::new();
    loop {
        while i < p.len() && is_space(p[i]) {
            i += 1;
        }
        if i >= p.len() {
            return Some(out);
        }
        let mut cur = Vec::new();
        let (mut inq, mut insq) = (false, false);
        loop {
            if inq {
                if i >= p.len() {
                    return None;
                }
                if p[i] == b'\\'
                    && i + 3 < p.len()
                    && p[i + 1] == b'x'
                    && p[i + 2].is_ascii_hexdigit()
                    && p[i + 3].is_ascii_hexdigit()
                {
                    cur.push(hex(p[i + 2]) * 16 + hex(p[i + 3]));
                    i += 3;
                } else if p[i] == b'\\' && i + 1 < p.len() {
                    i += 1;
                    cur.push(match p[i] {
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'b' => 8,
                        b'a' => 7,
                        c => c,
                    });
                } else if p[i] == b'"' {
                    // The closing quote must be followed by a space or nothing.
                    if i + 1 < p.len() && !is_space(p[i + 1]) {
                        return None;
                    }
                    i += 1;
                    break;
                } else {
                    cur.push(p[i]);
                }
            } else if insq {
                if i >= p.len() {
                    return None;
                }
                if p[i] == b'\\' && i + 1 < p.len() && p[i + 1] == b'\'' {
                    i += 1;
                    cur.push(b'\'');
                } else if p[i] == b'\'' {
                    if i + 1 < p.len() && !is_space(p[i + 1]) {
                        return None;
                    }
                    i += 1;
                    break;
                } else {
                    cur.push(p[i]);
                }
            } else {
                if i >= p.len() {
                    break;
                }
                match p[i] {
                    b' ' | b'\n' | b'\r' | b'\t' | 0 => {
                        break;
                    }
                    b'"' => inq = true,
                    b'\'' => insq = true,
                    c => cur.push(c),
                }
            }
            i += 1;
        }
        out.push(cur);
    }
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn hex(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => 0,
    }
}
