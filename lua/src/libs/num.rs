//! Numbers as text, the way the C library under Redis writes and reads them: `%.<p>g`
//! (what cjson prints numbers with) and `strtod` (what it reads them with), written
//! here so that both targets give glibc's results.

/// `printf("%.<prec>g", x)` for `prec` in 1..=17: `prec` significant digits, correctly
/// rounded (ties to even on the exact binary value), in fixed notation when the
/// exponent is in -4..prec, else as `d.ddde±XX`; trailing zeros dropped.
pub(crate) fn fmt_g(x: f64, prec: usize) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() {
            "-nan".into()
        } else {
            "nan".into()
        };
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf".into() } else { "inf".into() };
    }
    let prec = prec.max(1);
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // d.ddddde<exp>, correctly rounded to `prec` digits.
    let sci = format!("{:.*e}", prec - 1, x);
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (neg, mant) = match mant.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mant),
    };
    let digits: Vec<u8> = mant.bytes().filter(|b| b.is_ascii_digit()).collect();
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if exp < -4 || exp >= prec as i32 {
        out.push(digits[0] as char);
        let frac = trim_zeros(&digits[1..]);
        if !frac.is_empty() {
            out.push('.');
            out.extend(frac.iter().map(|&b| b as char));
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.unsigned_abs()));
    } else if exp >= 0 {
        let int_len = exp as usize + 1;
        out.extend(digits[..int_len].iter().map(|&b| b as char));
        let frac = trim_zeros(&digits[int_len..]);
        if !frac.is_empty() {
            out.push('.');
            out.extend(frac.iter().map(|&b| b as char));
        }
    } else {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.extend(trim_zeros(&digits).iter().map(|&b| b as char));
    }
    out
}

fn trim_zeros(d: &[u8]) -> &[u8] {
    let end = d.iter().rposition(|&b| b != b'0').map_or(0, |i| i + 1);
    &d[..end]
}

/// `strtod(s)` in the C locale, from the start of `s` (a NUL byte or the end of `s`
/// stops it): the value and how many bytes it used, or `None` when no number starts
/// there. Reads decimal and hexadecimal (`0x1.8p3`) numbers, `inf`, `infinity` and
/// `nan`, `nan(chars)`, each with an optional sign; leading white space is skipped.
pub(crate) fn strtod(s: &[u8]) -> Option<(f64, usize)> {
    let at = |i: usize| s.get(i).copied().unwrap_or(0);
    let mut i = 0;
    while matches!(at(i), b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r') {
        i += 1;
    }
    let neg = match at(i) {
        b'-' => {
            i += 1;
            true
        }
        b'+' => {
            i += 1;
            false
        }
        _ => false,
    };
    let sign = |v: f64| if neg { -v } else { v };
    let lower =
        |j: usize, word: &[u8]| (0..word.len()).all(|k| at(j + k).to_ascii_lowercase() == word[k]);
    if lower(i, b"inf") {
        let end = if lower(i + 3, b"inity") { i + 8 } else { i + 3 };
        return Some((sign(f64::INFINITY), end));
    }
    if lower(i, b"nan") {
        let mut end = i + 3;
        if at(end) == b'(' {
            let mut j = end + 1;
            while at(j).is_ascii_alphanumeric() || at(j) == b'_' {
                j += 1;
            }
            if at(j) == b')' {
                end = j + 1;
            }
        }
        return Some((sign(f64::NAN), end));
    }
    if at(i) == b'0' && (at(i + 1) | 0x20) == b'x' {
        if let Some((v, end)) = hex(s, i + 2) {
            return Some((sign(v), end));
        }
        // "0x" without hex digits: the "0" alone.
        return Some((sign(0.0), i + 1));
    }
    // Decimal: digits [. digits] [e [sign] digits], at least one digit in the mantissa.
    let start = i;
    let mut digits = 0;
    while at(i).is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    if at(i) == b'.' {
        i += 1;
        while at(i).is_ascii_digit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    if at(i) | 0x20 == b'e' {
        let mut j = i + 1;
        if matches!(at(j), b'+' | b'-') {
            j += 1;
        }
        if at(j).is_ascii_digit() {
            while at(j).is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    let text = std::str::from_utf8(&s[start..i]).ok()?;
    let v: f64 = text
        .parse()
        .ok()
        .or_else(|| format!("0{text}").parse().ok())?;
    Some((sign(v), i))
}

/// The hexadecimal mantissa and binary exponent after "0x", correctly rounded.
fn hex(s: &[u8], mut i: usize) -> Option<(f64, usize)> {
    let at = |i: usize| s.get(i).copied().unwrap_or(0);
    let mut mant: u64 = 0;
    let mut exp: i64 = 0; // value = mant * 2^exp (plus `sticky` below the last bit)
    let mut sticky = false;
    let mut digits = 0;
    let mut seen_point = false;
    loop {
        let c = at(i);
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            b'.' if !seen_point => {
                seen_point = true;
                i += 1;
                continue;
            }
            _ => break,
        };
        digits += 1;
        if mant >> 60 == 0 {
            mant = mant << 4 | d as u64;
            if seen_point {
                exp -= 4;
            }
        } else {
            sticky |= d != 0;
            if !seen_point {
                exp += 4;
            }
        }
        i += 1;
    }
    if digits == 0 {
        return None;
    }
    if at(i) | 0x20 == b'p' {
        let mut j = i + 1;
        let eneg = match at(j) {
            b'-' => {
                j += 1;
                true
            }
            b'+' => {
                j += 1;
                false
            }
            _ => false,
        };
        if at(j).is_ascii_digit() {
            let mut e: i64 = 0;
            while at(j).is_ascii_digit() {
                e = (e * 10 + (at(j) - b'0') as i64).min(1 << 40);
                j += 1;
            }
            exp += if eneg { -e } else { e };
            i = j;
        }
    }
    Some((compose(mant, exp, sticky), i))
}

/// `mant * 2^exp` (with `sticky` set if nonzero bits were dropped below `mant`), rounded
/// to the nearest double, ties to even.
fn compose(mant: u64, exp: i64, sticky: bool) -> f64 {
    if mant == 0 {
        return 0.0;
    }
    // Normalise so the top bit is bit 63: value = m * 2^(e - 63), 1 <= m/2^63 < 2.
    let lz = mant.leading_zeros() as i64;
    let m = mant << lz;
    let e = exp - lz + 63; // value = (m / 2^63) * 2^e
    if e > 1023 {
        return f64::INFINITY;
    }
    // Bits kept: 53 for a normal number, fewer for a subnormal one.
    let keep: i64 = if e >= -1022 { 53 } else { 53 - (-1022 - e) };
    if keep < 0 {
        return 0.0;
    }
    let drop = 64 - keep; // in 11..=64
    let (kept, rest) = if drop >= 64 {
        (0u64, m)
    } else {
        (m >> drop, m << keep)
    };
    let half = 1u64 << 63;
    let round_up = rest > half || (rest == half && (sticky || kept & 1 == 1));
    let mut kept = kept + round_up as u64;
    // Scale back: value = kept * 2^(e - keep + 1).
    let mut scale = e - keep + 1;
    if kept == 1 << 53 {
        kept >>= 1;
        scale += 1;
    }
    // kept fits in 53 bits and kept * 2^scale is a double (or overflows to infinity):
    // two exact multiplications by powers of two reach it without rounding.
    let v = kept as f64;
    let half_scale = scale / 2;
    v * 2f64.powi(half_scale as i32) * 2f64.powi((scale - half_scale) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_format() {
        assert_eq!(fmt_g(0.1, 14), "0.1");
        assert_eq!(fmt_g(1e15, 14), "1e+15");
        assert_eq!(fmt_g(123456789012345.0, 14), "1.2345678901234e+14");
        assert_eq!(fmt_g(100000000000000.0, 14), "1e+14");
        assert_eq!(fmt_g(0.0001, 14), "0.0001");
        assert_eq!(fmt_g(0.00001, 14), "1e-05");
        assert_eq!(fmt_g(-2.5, 1), "-2");
        assert_eq!(fmt_g(1.0 / 3.0, 3), "0.333");
        assert_eq!(fmt_g(5e-324, 14), "4.9406564584125e-324");
        assert_eq!(fmt_g(-0.0, 14), "-0");
        assert_eq!(fmt_g(1e300, 14), "1e+300");
    }

    #[test]
    fn strtod_forms() {
        assert_eq!(strtod(b"12.5e1x"), Some((125.0, 6)));
        assert_eq!(strtod(b"1e"), Some((1.0, 1)));
        assert_eq!(strtod(b".5"), Some((0.5, 2)));
        assert_eq!(strtod(b"5."), Some((5.0, 2)));
        assert_eq!(strtod(b"-"), None);
        assert_eq!(strtod(b"."), None);
        assert_eq!(strtod(b"0x10"), Some((16.0, 4)));
        assert_eq!(strtod(b"0x1.8p1"), Some((3.0, 7)));
        assert_eq!(strtod(b"0xg"), Some((0.0, 1)));
        assert_eq!(strtod(b"-Infinity"), Some((f64::NEG_INFINITY, 9)));
        assert_eq!(strtod(b"infin"), Some((f64::INFINITY, 3)));
        let (v, n) = strtod(b"nan(12)x").unwrap();
        assert!(v.is_nan() && n == 7);
        assert_eq!(strtod(b"0x1p-1074"), Some((5e-324, 9)));
        assert_eq!(strtod(b"0x1p1024"), Some((f64::INFINITY, 8)));
        assert_eq!(strtod(b"0x1.fffffffffffff8p0"), Some((2.0, 20)));
        assert_eq!(
            strtod(b"0x123456789abcdef12"),
            Some((0x123456789abcdef12u128 as f64, 19))
        );
    }

    // The C library this replaces, to compare with (native builds link it anyway).
    #[cfg(not(target_arch = "wasm32"))]
    extern "C" {
        fn snprintf(
            buf: *mut std::ffi::c_char,
            n: usize,
            fmt: *const std::ffi::c_char,
            ...
        ) -> std::ffi::c_int;
        #[link_name = "strtod"]
        fn c_strtod(s: *const std::ffi::c_char, end: *mut *mut std::ffi::c_char) -> f64;
    }

    /// A small deterministic generator (xorshift64*).
    #[cfg(not(target_arch = "wasm32"))]
    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed >> 12;
        *seed ^= *seed << 25;
        *seed ^= *seed >> 27;
        seed.wrapping_mul(0x2545f4914f6cdd1d)
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn g_format_is_glibcs() {
        let mut seed = 0x9e3779b97f4a7c15;
        for i in 0..200_000 {
            let r = rng(&mut seed);
            let x = match i % 4 {
                0 => f64::from_bits(r),
                1 => (r % 2_000_000) as f64 / 1000.0 - 1000.0,
                2 => (r >> 11) as f64 * 2f64.powi((r % 200) as i32 - 100),
                _ => ((r % 100_000) as f64 + 0.5) / 10f64.powi((r % 6) as i32),
            };
            let prec = 1 + (r >> 60) as usize % 14;
            let mut buf = [0 as std::ffi::c_char; 64];
            let fmt = std::ffi::CString::new(format!("%.{prec}g")).unwrap();
            // SAFETY: the buffer is large enough for any %g of a double at this precision.
            let want = unsafe {
                snprintf(buf.as_mut_ptr(), buf.len(), fmt.as_ptr(), x);
                std::ffi::CStr::from_ptr(buf.as_ptr())
                    .to_str()
                    .unwrap()
                    .to_string()
            };
            assert_eq!(fmt_g(x, prec), want, "{x:e} at {prec}");
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn strtod_is_glibcs() {
        let alphabet = b"0123456789012345678901234567890123456789..eE+-xXpPaAfFiInNtTyY(_)z \0";
        let mut seed = 0x1234_5678_9abc_def1;
        for i in 0..200_000 {
            let r = rng(&mut seed);
            let len = 1 + (r % 24) as usize;
            let mut s: Vec<u8> = (0..len)
                .map(|_| alphabet[(rng(&mut seed) % alphabet.len() as u64) as usize])
                .collect();
            if i % 3 == 0 {
                s.splice(0..0, b"0x".iter().copied());
            }
            if i % 7 == 0 {
                s.splice(0..0, format!("{}", f64::from_bits(r)).bytes());
            }
            s.truncate(s.iter().position(|&b| b == 0).unwrap_or(s.len()));
            let c = std::ffi::CString::new(s.clone()).unwrap();
            let mut end: *mut std::ffi::c_char = std::ptr::null_mut();
            // SAFETY: a NUL-terminated string; end points into it.
            let (v, used) = unsafe {
                let v = c_strtod(c.as_ptr(), &mut end);
                (v, end.offset_from(c.as_ptr()) as usize)
            };
            let got = super::strtod(&s);
            let want = if used == 0 { None } else { Some((v, used)) };
            let same = match (got, want) {
                (Some((a, n)), Some((b, m))) => {
                    n == m && (a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()))
                }
                (None, None) => true,
                _ => false,
            };
            assert!(
                same,
                "{:?}: {got:?} vs {want:?}",
                String::from_utf8_lossy(&s)
            );
        }
    }
}
