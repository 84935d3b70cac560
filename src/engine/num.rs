//! Number parsing, written once: Redis's strict integer and float readers, C's `strtod`
//! and `atoi` where Redis relies on them, and C's view of an argument up to its first NUL.
//!
//! Redis is strict about numbers: `string2ll` accepts an optional `-` and decimal digits with
//! no leading `+`, no leading zeros (except `0` itself), no spaces, and nothing that
//! overflows `i64`; `strtod`-based parsing accepts C's float syntax including `inf`, but
//! rejects NaN, empty strings and surrounding spaces. Every handler goes through these
//! functions (through [`super::args`]'s cursor, mostly) so that every command rejects the
//! same inputs. Scores and `SORT` weights use C's full `strtod` ([`strtod`]), which also
//! reads hexadecimal floats, as Redis does.

/// Parses a decimal `i64` exactly as Redis's `string2ll` does.
pub fn parse_i64(s: &[u8]) -> Option<i64> {
    if s.is_empty() || s.len() > 20 {
        return None;
    }
    if s == b"0" {
        return Some(0);
    }
    let (neg, digits) = match s[0] {
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || digits[0] == b'0' {
        return None;
    }
    let mut v: u64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
    }
    if neg {
        if v > (i64::MAX as u64) + 1 {
            None
        } else {
            Some((v as i64).wrapping_neg())
        }
    } else if v > i64::MAX as u64 {
        None
    } else {
        Some(v as i64)
    }
}

/// Parses a float as Redis's `string2d`/`getDoubleFromObject` does: C `strtod` syntax over
/// the whole string, no leading space, NaN rejected. Accepts `inf`, `+inf`, `-inf`,
/// `infinity`, hexadecimal floats are not accepted (they are rare and Rust has no parser).
pub fn parse_f64(s: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(s).ok()?;
    if text.is_empty() || text.len() > 5120 {
        return None;
    }
    let first = text.as_bytes()[0];
    if first.is_ascii_whitespace() {
        return None;
    }
    let body = text.strip_prefix(['+', '-']).unwrap_or(text);
    let lower = body.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return Some(if text.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    // Rust's parser accepts "nan", "inf" and friends that we handled or must reject, and
    // rejects forms strtod accepts like "1." and ".5"? (it accepts both). Reject letters other
    // than an exponent marker so only C float syntax gets through.
    if !body
        .bytes()
        .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    let v: f64 = text.parse().ok()?;
    if v.is_nan() {
        None
    } else {
        Some(v)
    }
}

/// An argument as C sees it: the bytes up to its first NUL. Redis compares option names
/// with `strcasecmp` and prints arguments with `%s`, both of which stop there. **O(n).**
pub fn c_bytes(arg: &[u8]) -> &[u8] {
    let end = arg.iter().position(|&b| b == 0).unwrap_or(arg.len());
    &arg[..end]
}

/// A key count as Redis reads it: a strict integer, or failing that what C's `atoi` makes
/// of the text (Redis falls back to its `getkeys_proc`, which uses `atoi`: `2x` is 2).
pub fn atoi_key_count(arg: &[u8]) -> i64 {
    if let Some(n) = parse_i64(arg) {
        return n;
    }
    let text = arg.trim_ascii_start();
    let (neg, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let mut n: i64 = 0;
    for &b in digits.iter().take_while(|b| b.is_ascii_digit()) {
        n = n.saturating_mul(10).saturating_add(i64::from(b - b'0'));
    }
    if neg {
        -n
    } else {
        n
    }
}

/// What C's `strtod` makes of a byte string.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Strtod {
    /// The value (0 when nothing was parsed).
    pub value: f64,
    /// How many bytes were consumed (`eptr - s`); 0 when no number was found.
    pub consumed: usize,
    /// True when `errno` would be `ERANGE`: the value overflowed to ±inf or underflowed
    /// to zero or a subnormal.
    pub range_error: bool,
}

/// C's `strtod` (glibc, "C" locale) over `s`: optional leading white space, a sign, then a
/// decimal float, a hexadecimal float (`0x1.8p3`), `inf`/`infinity` or `nan`/`nan(…)`, all
/// case-insensitive. Returns the value, the bytes consumed and the `ERANGE` flag.
pub fn strtod(s: &[u8]) -> Strtod {
    let none = Strtod {
        value: 0.0,
        consumed: 0,
        range_error: false,
    };
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        i += 1;
    }
    let neg = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let sign = |v: f64| if neg { -v } else { v };
    let rest = &s[i..];
    let starts =
        |word: &[u8]| rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word);
    if starts(b"infinity") {
        return Strtod {
            value: sign(f64::INFINITY),
            consumed: i + 8,
            range_error: false,
        };
    }
    if starts(b"inf") {
        return Strtod {
            value: sign(f64::INFINITY),
            consumed: i + 3,
            range_error: false,
        };
    }
    if starts(b"nan") {
        let mut end = i + 3;
        // "nan(n-char-sequence)" is consumed whole when the parenthesis closes.
        if s.get(end) == Some(&b'(') {
            let mut j = end + 1;
            while j < s.len() && (s[j].is_ascii_alphanumeric() || s[j] == b'_') {
                j += 1;
            }
            if s.get(j) == Some(&b')') {
                end = j + 1;
            }
        }
        return Strtod {
            value: f64::NAN,
            consumed: end,
            range_error: false,
        };
    }
    if rest.len() >= 2 && rest[0] == b'0' && (rest[1] | 0x20) == b'x' {
        if let Some((v, used, exact)) = parse_hex_float(&rest[2..]) {
            let v = sign(v);
            // glibc reports an underflow only when the tiny result is also inexact:
            // 0x1p-1074 is a subnormal held exactly, 0x1p-1075 rounds to zero.
            let tiny = v == 0.0 || !v.is_normal();
            return Strtod {
                value: v,
                consumed: i + 2 + used,
                range_error: v.is_infinite() || (tiny && !exact),
            };
        }
        // "0x" with no hex digits: strtod reads the "0" alone.
        return Strtod {
            value: sign(0.0),
            consumed: i + 1,
            range_error: false,
        };
    }
    // Decimal: digits [. digits] [e [sign] digits], at least one mantissa digit.
    let start = i;
    let mut j = i;
    let mut digits = 0;
    let mut nonzero = false;
    while j < s.len() && s[j].is_ascii_digit() {
        nonzero |= s[j] != b'0';
        j += 1;
        digits += 1;
    }
    if j < s.len() && s[j] == b'.' {
        j += 1;
        while j < s.len() && s[j].is_ascii_digit() {
            nonzero |= s[j] != b'0';
            j += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return none;
    }
    if j < s.len() && (s[j] | 0x20) == b'e' {
        let mut k = j + 1;
        if k < s.len() && (s[k] == b'+' || s[k] == b'-') {
            k += 1;
        }
        if k < s.len() && s[k].is_ascii_digit() {
            while k < s.len() && s[k].is_ascii_digit() {
                k += 1;
            }
            j = k;
        }
    }
    // The slice holds only ASCII digits, '.', 'e' and a sign, so it is UTF-8. Rust's parser
    // accepts "5." and ".5" like strtod, rounds correctly like glibc, and saturates huge
    // exponents to inf or 0 (flagged as range errors below).
    let text = std::str::from_utf8(&s[start..j]).unwrap_or("0");
    let v: f64 = text.parse().unwrap_or(0.0);
    let v = sign(v);
    Strtod {
        value: v,
        consumed: j,
        range_error: v.is_infinite() || (nonzero && !v.is_normal()),
    }
}

/// Parses the hexadecimal float after `0x`: hex digits with an optional point, then an
/// optional binary exponent `p[+-]digits`. Returns the magnitude, the bytes used and
/// whether the magnitude is exact (zero, or every nonzero bit written fits in a double at
/// its place), or `None` when there is no hex digit.
fn parse_hex_float(s: &[u8]) -> Option<(f64, usize, bool)> {
    let mut mant: u64 = 0;
    let mut exp: i64 = 0;
    let mut sticky = false;
    let mut digits = 0;
    let mut j = 0;
    let mut seen_point = false;
    while j < s.len() {
        let c = s[j];
        if c == b'.' && !seen_point {
            seen_point = true;
            j += 1;
            continue;
        }
        let Some(d) = (c as char).to_digit(16) else {
            break;
        };
        digits += 1;
        if mant >> 60 == 0 {
            mant = (mant << 4) | u64::from(d);
            if seen_point {
                exp -= 4;
            }
        } else {
            sticky |= d != 0;
            if !seen_point {
                exp += 4;
            }
        }
        j += 1;
    }
    if digits == 0 {
        return None;
    }
    if j < s.len() && (s[j] | 0x20) == b'p' {
        let mut k = j + 1;
        let mut eneg = false;
        if k < s.len() && (s[k] == b'+' || s[k] == b'-') {
            eneg = s[k] == b'-';
            k += 1;
        }
        if k < s.len() && s[k].is_ascii_digit() {
            let mut e: i64 = 0;
            while k < s.len() && s[k].is_ascii_digit() {
                e = (e * 10 + i64::from(s[k] - b'0')).min(1 << 20);
                k += 1;
            }
            exp += if eneg { -e } else { e };
            j = k;
        }
    }
    // Exact when no digit was dropped and the odd part of the mantissa fits in 53 bits at
    // an exponent no lower than that of the smallest subnormal, 2^-1074.
    let exact = mant == 0
        || (!sticky && {
            let tz = mant.trailing_zeros();
            (mant >> tz) < 1 << 53 && exp + i64::from(tz) >= -1074
        });
    if sticky {
        mant |= 1;
    }
    // mant as f64 rounds to nearest once; scaling by a power of two is exact unless the
    // result leaves the normal range, where the tiny double-rounding risk is accepted.
    let mut v = mant as f64;
    let mut e = exp;
    while e > 0 {
        let step = e.min(1000);
        v *= 2f64.powi(step as i32);
        e -= step;
    }
    while e < 0 {
        let step = (-e).min(1000);
        v /= 2f64.powi(step as i32);
        e += step;
    }
    Some((v, j, exact))
}

/// Reads a score as Redis's `string2d` does (ZADD, ZINCRBY): `strtod` over the whole
/// argument, no leading space, no overflow or underflow to zero, no NaN.
pub fn parse_score(arg: &[u8]) -> Option<f64> {
    if arg.is_empty() || matches!(arg[0], b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        return None;
    }
    let r = strtod(arg);
    if r.consumed != arg.len()
        || r.value.is_nan()
        || (r.range_error && (r.value.is_infinite() || r.value == 0.0))
    {
        return None;
    }
    Some(r.value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i64_parsing_is_strict() {
        assert_eq!(parse_i64(b"0"), Some(0));
        assert_eq!(parse_i64(b"-1"), Some(-1));
        assert_eq!(parse_i64(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
        for bad in [
            &b"9223372036854775808"[..],
            b"01",
            b"+1",
            b" 1",
            b"1 ",
            b"",
            b"-",
            b"-0",
            b"1a",
        ] {
            assert_eq!(parse_i64(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn f64_parsing_matches_strtod_subset() {
        assert_eq!(parse_f64(b"1.5"), Some(1.5));
        assert_eq!(parse_f64(b"-inf"), Some(f64::NEG_INFINITY));
        assert_eq!(parse_f64(b"+inf"), Some(f64::INFINITY));
        assert_eq!(parse_f64(b"1e3"), Some(1000.0));
        assert_eq!(parse_f64(b".5"), Some(0.5));
        for bad in [&b"nan"[..], b"", b" 1", b"1 ", b"abc", b"1.2.3", b"0x10"] {
            assert_eq!(parse_f64(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }
}
