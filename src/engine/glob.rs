//! Redis's glob matching (`KEYS`, `SCAN MATCH`, `CONFIG GET`, `PSUBSCRIBE`).
//!
//! Rules, as Redis's `stringmatchlen`:
//! * `*` matches any run of bytes, `?` any one byte;
//! * `[abc]`, `[a-z]` a set or range (reversed ranges like `[z-a]` work too), `[^…]` its
//!   complement; an unterminated `[` treats the rest of the pattern as the set;
//! * `\x` matches `x` literally, inside or outside brackets;
//! * with `nocase`, ASCII letters match either case.
//!
//! Matching is iterative with one backtrack point per `*` run, so it is
//! O(len(pattern) × len(string)) in the worst case and never recurses.

/// True if `string` matches the glob `pattern`.
pub fn matches(pattern: &[u8], string: &[u8], nocase: bool) -> bool {
    let eq = |a: u8, b: u8| {
        if nocase {
            a.eq_ignore_ascii_case(&b)
        } else {
            a == b
        }
    };
    let (mut p, mut s) = (0usize, 0usize);
    // Where to resume after the most recent '*': (pattern index after the star, string index).
    let mut star: Option<(usize, usize)> = None;
    loop {
        if p < pattern.len() {
            match pattern[p] {
                b'*' => {
                    while p < pattern.len() && pattern[p] == b'*' {
                        p += 1;
                    }
                    if p == pattern.len() {
                        return true;
                    }
                    star = Some((p, s));
                    continue;
                }
                b'?' if s < string.len() => {
                    p += 1;
                    s += 1;
                    continue;
                }
                b'[' if s < string.len() => {
                    let (matched, next) = match_class(pattern, p, string[s], nocase);
                    if matched {
                        p = next;
                        s += 1;
                        continue;
                    }
                }
                b'\\' if p + 1 < pattern.len() && s < string.len() => {
                    if eq(pattern[p + 1], string[s]) {
                        p += 2;
                        s += 1;
                        continue;
                    }
                }
                c if s < string.len() && c != b'?' && c != b'[' => {
                    // A trailing lone backslash matches a literal backslash.
                    if eq(c, string[s]) {
                        p += 1;
                        s += 1;
                        continue;
                    }
                }
                _ => {}
            }
        } else if s == string.len() {
            return true;
        }
        // Mismatch: let the last star swallow one more byte.
        match star {
            Some((sp, ss)) if ss < string.len() => {
                star = Some((sp, ss + 1));
                p = sp;
                s = ss + 1;
            }
            _ => return false,
        }
    }
}

/// Matches byte `c` against the class starting at `pattern[start] == b'['`. Returns whether
/// it matched and the index just past the class.
fn match_class(pattern: &[u8], start: usize, c: u8, nocase: bool) -> (bool, usize) {
    let fold = |b: u8| if nocase { b.to_ascii_lowercase() } else { b };
    let c = fold(c);
    let mut i = start + 1;
    let negate = i < pattern.len() && pattern[i] == b'^';
    if negate {
        i += 1;
    }
    let mut matched = false;
    loop {
        if i >= pattern.len() {
            // Unterminated class: Redis stops at the end of the pattern.
            break;
        }
        match pattern[i] {
            b'\\' if i + 1 < pattern.len() => {
                i += 1;
                if fold(pattern[i]) == c {
                    matched = true;
                }
                i += 1;
            }
            b']' => {
                i += 1;
                break;
            }
            _ if i + 2 < pattern.len() && pattern[i + 1] == b'-' => {
                let (mut lo, mut hi) = (fold(pattern[i]), fold(pattern[i + 2]));
                if lo > hi {
                    std::mem::swap(&mut lo, &mut hi);
                }
                if c >= lo && c <= hi {
                    matched = true;
                }
                i += 3;
            }
            b => {
                if fold(b) == c {
                    matched = true;
                }
                i += 1;
            }
        }
    }
    (matched != negate, i)
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn globs_match_like_redis() {
        let cases: &[(&str, &str, bool)] = &[
            ("*", "", true),
            ("*", "anything", true),
            ("h?llo", "hello", true),
            ("h?llo", "hllo", false),
            ("h*llo", "heeeello", true),
            ("h[ae]llo", "hallo", true),
            ("h[ae]llo", "hillo", false),
            ("h[^e]llo", "hallo", true),
            ("h[^e]llo", "hello", false),
            ("h[a-b]llo", "hbllo", true),
            ("h[b-a]llo", "hallo", true),
            ("user:*", "user:1", true),
            ("user:*", "usr:1", false),
            ("a\\*b", "a*b", true),
            ("a\\*b", "axb", false),
            ("*a*b*c*", "xxaxxbxxcxx", true),
            ("*a*b*c*", "xxaxxcxxbxx", false),
            ("[\\]]", "]", true),
            ("k[", "k", false),
        ];
        for (p, s, want) in cases {
            assert_eq!(
                matches(p.as_bytes(), s.as_bytes(), false),
                *want,
                "{p} vs {s}"
            );
        }
        assert!(matches(b"HELLO", b"hello", true));
    }
}
