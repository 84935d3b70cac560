//! The Rust half of the small libc that Lua is compiled against for wasm32 (`c/libc`):
//! what is easier to get exactly right in Rust than in C.
//!
//! - The digits of a double for printf's `%e %f %g` (and their capitals, and `#`), as glibc
//!   prints them: Rust's `{:.*e}` and `{:.*}` are exact (the binary value rounded half to
//!   even), which is what glibc does in the default rounding mode. C adds sign and padding.
//! - `strtod`, as glibc parses in the "C" locale: whitespace, sign, decimal (through Rust's
//!   correctly rounded parser), hexadecimal with a binary exponent (`0x1.8p3`), `inf`,
//!   `infinity`, `nan`, `nan(...)`, any case.
//! - `malloc` and friends on Rust's allocator, the math functions (the `libm` crate), and
//!   stdout/stderr to the browser's console, a line at a time.
//!
//! The formatting and parsing functions are plain Rust and are tested on the host against
//! glibc itself (`tests` below); the `extern "C"` symbols exist only in wasm32.

/// The body of `%<conv>` for `|x|` (finite): digits, point, exponent; no sign, no padding.
/// `prec` < 0 means the default (6).
pub(crate) fn format_double(x: f64, conv: u8, prec: i32, alt: bool) -> String {
    let x = x.abs();
    let upper = conv.is_ascii_uppercase();
    let prec = if prec < 0 { 6 } else { prec as usize };
    let mut s = match conv.to_ascii_lowercase() {
        b'f' => fixed(x, prec, alt),
        b'e' => exponential(x, prec, alt),
        _ => {
            let p = prec.max(1);
            let exp = if x == 0.0 {
                0
            } else {
                split_exponential(&format!("{:.*e}", p - 1, x)).1
            };
            let mut s = if exp < p as i32 && exp >= -4 {
                fixed(x, (p as i32 - 1 - exp) as usize, alt)
            } else if alt && exp == p as i32 && split_exponential(&format!("{x:e}")).1 == exp - 1 {
                // glibc's quirk: it picks the style by the unrounded exponent (P-1: fixed, no
                // fraction digits), and when rounding carries to P it keeps those 0 digits
                // in exponential style: "%#.2g" of 99.5 is "1.e+02", not "1.0e+02".
                exponential(x, 0, alt)
            } else {
                exponential(x, p - 1, alt)
            };
            if !alt {
                strip_zeros(&mut s);
            }
            s
        }
    };
    if upper {
        s.make_ascii_uppercase();
    }
    s
}

fn fixed(x: f64, prec: usize, alt: bool) -> String {
    let mut s = format!("{x:.prec$}");
    if alt && prec == 0 {
        s.push('.');
    }
    s
}

fn exponential(x: f64, prec: usize, alt: bool) -> String {
    let text = format!("{x:.prec$e}");
    let (mantissa, exp) = split_exponential(&text);
    let point = if alt && prec == 0 { "." } else { "" };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}{point}e{sign}{:02}", exp.unsigned_abs())
}

/// Rust's `1.5e-7` as ("1.5", -7).
fn split_exponential(s: &str) -> (&str, i32) {
    let (m, e) = s.split_once('e').expect("an exponent");
    (m, e.parse().expect("an integer exponent"))
}

/// `%g` without `#`: trailing zeros of the fraction go, and the point if nothing follows it.
fn strip_zeros(s: &mut String) {
    let exp = s.find('e').map(|i| s.split_off(i)).unwrap_or_default();
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
    s.push_str(&exp);
}

/// `strtod` on `s` (without its NUL): the value and how many bytes it used (0: none,
/// nothing converted).
pub(crate) fn parse_double(s: &[u8]) -> (f64, usize) {
    let mut i = 0;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    let rest = &s[i..];
    let (magnitude, used) = if starts_with_ci(rest, b"inf") {
        (
            f64::INFINITY,
            if starts_with_ci(rest, b"infinity") {
                8
            } else {
                3
            },
        )
    } else if starts_with_ci(rest, b"nan") {
        let mut n = 3;
        if rest.get(3) == Some(&b'(') {
            let close = rest[4..]
                .iter()
                .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_'));
            if let Some(k) = close.filter(|&k| rest[4 + k] == b')') {
                n = 4 + k + 1;
            }
        }
        (f64::NAN, n)
    } else if rest.len() > 1 && rest[0] == b'0' && (rest[1] | 0x20) == b'x' {
        match parse_hex(&rest[2..]) {
            Some((v, n)) => (v, 2 + n),
            None => (0.0, 1), // just the "0"
        }
    } else {
        match decimal_len(rest) {
            0 => return (0.0, 0),
            n => {
                let text = std::str::from_utf8(&rest[..n]).expect("ASCII");
                (
                    text.parse::<f64>().expect("a decimal number Rust parses"),
                    n,
                )
            }
        }
    };
    (if neg { -magnitude } else { magnitude }, i + used)
}

fn is_space(c: u8) -> bool {
    c == b' ' || (b'\t'..=b'\r').contains(&c)
}

fn starts_with_ci(s: &[u8], word: &[u8]) -> bool {
    s.len() >= word.len() && s[..word.len()].eq_ignore_ascii_case(word)
}

fn digits(s: &[u8], pred: fn(&u8) -> bool) -> usize {
    s.iter().take_while(|c| pred(c)).count()
}

/// How long the decimal number at the start of `s` is: digits, a fraction, an exponent
/// (only when digits follow its `e`), with at least one digit in the mantissa.
fn decimal_len(s: &[u8]) -> usize {
    let int = digits(s, u8::is_ascii_digit);
    let mut n = int;
    let mut frac = 0;
    if s.get(n) == Some(&b'.') {
        frac = digits(&s[n + 1..], u8::is_ascii_digit);
        n += 1 + frac;
    }
    if int + frac == 0 {
        return 0;
    }
    exponent_len(&s[n..], b'e').map_or(n, |e| n + e)
}

/// The length of `e[+-]digits` (or `p...`) at the start of `s`, if it is complete.
fn exponent_len(s: &[u8], letter: u8) -> Option<usize> {
    if s.first().map(|c| c | 0x20) != Some(letter) {
        return None;
    }
    let sign = usize::from(matches!(s.get(1), Some(b'+' | b'-')));
    match digits(&s[1 + sign..], u8::is_ascii_digit) {
        0 => None,
        d => Some(1 + sign + d),
    }
}

/// A hexadecimal float after its `0x`: the value and the bytes used, or `None` when no hex
/// digit follows.
fn parse_hex(s: &[u8]) -> Option<(f64, usize)> {
    let (mut m, mut exp, mut sticky) = (0u64, 0i64, false);
    let mut add = |d: u64, fraction: bool| {
        if m >> 60 == 0 {
            m = m << 4 | d;
            if fraction {
                exp -= 4;
            }
        } else {
            sticky |= d != 0;
            if !fraction {
                exp += 4;
            }
        }
    };
    let int = digits(s, u8::is_ascii_hexdigit);
    s[..int].iter().for_each(|&c| add(hex(c), false));
    let mut n = int;
    let mut frac = 0;
    if s.get(n) == Some(&b'.') {
        frac = digits(&s[n + 1..], u8::is_ascii_hexdigit);
        s[n + 1..n + 1 + frac]
            .iter()
            .for_each(|&c| add(hex(c), true));
        n += 1 + frac;
    }
    if int + frac == 0 {
        return None;
    }
    if let Some(e) = exponent_len(&s[n..], b'p') {
        let text = std::str::from_utf8(&s[n + 1..n + e]).expect("ASCII");
        // Saturated: past a few thousand, the value is 0 or infinite anyway.
        let p = text.parse::<i64>().unwrap_or(if text.starts_with('-') {
            -100_000
        } else {
            100_000
        });
        exp += p.clamp(-100_000, 100_000);
        n += e;
    }
    Some((round_binary(m, exp, sticky), n))
}

fn hex(c: u8) -> u64 {
    (c as char).to_digit(16).expect("a hex digit") as u64
}

/// `m * 2^exp` (plus a little more when `sticky`) rounded to the nearest double, ties to
/// even, with subnormals and overflow.
fn round_binary(m: u64, exp: i64, sticky: bool) -> f64 {
    if m == 0 {
        return 0.0;
    }
    let lz = m.leading_zeros();
    let (m, e) = (m << lz, exp - lz as i64); // m in [2^63, 2^64)
    let top = e + 63; // the exponent of the leading bit
    if top > 1023 {
        return f64::INFINITY;
    }
    let keep = if top >= -1022 { 53 } else { 53 - (-1022 - top) };
    if keep <= 0 {
        // Below half the smallest subnormal, or at it: rounds to 0 or to 2^-1074.
        let above_half = keep == 0 && ((m << 1) != 0 || sticky);
        return if above_half { f64::from_bits(1) } else { 0.0 };
    }
    let drop = 64 - keep as u32;
    let (mut q, rem, half) = (m >> drop, m & ((1u64 << drop) - 1), 1u64 << (drop - 1));
    if rem > half || (rem == half && (sticky || q & 1 == 1)) {
        q += 1;
    }
    scale(q as f64, e + drop as i64)
}

/// `x * 2^k`, exact while the result is representable.
fn scale(mut x: f64, mut k: i64) -> f64 {
    let pow2 = |j: i64| f64::from_bits(((1023 + j) as u64) << 52);
    while k > 1000 {
        x *= pow2(1000);
        k -= 1000;
    }
    while k < -1000 {
        x *= pow2(-1000);
        k += 1000;
    }
    x * pow2(k)
}

#[cfg(target_arch = "wasm32")]
mod exports {
    //! The C symbols of `c/libc` that live in Rust.
    use std::alloc::{alloc, dealloc, realloc, Layout};
    use std::cell::RefCell;
    use std::ffi::{c_char, c_int, c_void, CStr};
    use wasm_bindgen::prelude::wasm_bindgen;

    #[no_mangle]
    unsafe extern "C" fn kvlab_rs_format_double(
        out: *mut c_char,
        cap: usize,
        x: f64,
        conv: c_int,
        prec: c_int,
        alt: c_int,
    ) -> usize {
        let s = super::format_double(x, conv as u8, prec, alt != 0);
        let n = s.len().min(cap);
        // SAFETY: out has room for cap bytes (c/libc/libc.c).
        unsafe { std::ptr::copy_nonoverlapping(s.as_ptr(), out as *mut u8, n) };
        n
    }

    #[no_mangle]
    unsafe extern "C" fn kvlab_strtod(s: *const c_char, end: *mut *mut c_char) -> f64 {
        // SAFETY: a NUL-terminated string from C.
        let bytes = unsafe { CStr::from_ptr(s) }.to_bytes();
        let (v, n) = super::parse_double(bytes);
        if !end.is_null() {
            // SAFETY: end points to a char* (strtod's contract); s + n is within s.
            unsafe { *end = s.add(n) as *mut c_char };
        }
        v
    }

    /// Every block carries its size in front of it, for `free` and `realloc`.
    const HEADER: usize = 8;

    fn layout(n: usize) -> Layout {
        Layout::from_size_align(n + HEADER, 8).expect("a block size")
    }

    #[no_mangle]
    unsafe extern "C" fn kvlab_malloc(n: usize) -> *mut c_void {
        // SAFETY: the layout has a nonzero size; the header is written before use.
        unsafe {
            let p = alloc(layout(n));
            if p.is_null() {
                return p as *mut c_void;
            }
            (p as *mut usize).write(n);
            p.add(HEADER) as *mut c_void
        }
    }

    #[no_mangle]
    unsafe extern "C" fn kvlab_calloc(n: usize, size: usize) -> *mut c_void {
        let Some(total) = n.checked_mul(size) else {
            return std::ptr::null_mut();
        };
        // SAFETY: a fresh block of total bytes.
        unsafe {
            let p = kvlab_malloc(total);
            if !p.is_null() {
                std::ptr::write_bytes(p as *mut u8, 0, total);
            }
            p
        }
    }

    #[no_mangle]
    unsafe extern "C" fn kvlab_free(p: *mut c_void) {
        if p.is_null() {
            return;
        }
        // SAFETY: p came from kvlab_malloc/kvlab_realloc, so its header precedes it.
        unsafe {
            let base = (p as *mut u8).sub(HEADER);
            dealloc(base, layout((base as *const usize).read()));
        }
    }

    #[no_mangle]
    unsafe extern "C" fn kvlab_realloc(p: *mut c_void, n: usize) -> *mut c_void {
        if p.is_null() {
            // SAFETY: as malloc.
            return unsafe { kvlab_malloc(n) };
        }
        // SAFETY: p came from here (see kvlab_free).
        unsafe {
            let base = (p as *mut u8).sub(HEADER);
            let old = (base as *const usize).read();
            let q = realloc(base, layout(old), n + HEADER);
            if q.is_null() {
                return q as *mut c_void;
            }
            (q as *mut usize).write(n);
            q.add(HEADER) as *mut c_void
        }
    }

    macro_rules! math {
        ($($name:ident($($a:ident),*) => $f:path;)*) => {$(
            #[no_mangle]
            extern "C" fn $name($($a: f64),*) -> f64 { $f($($a),*) }
        )*};
    }
    math! {
        kvlab_fmod(x, y) => libm::fmod;
        kvlab_pow(x, y) => libm::pow;
        kvlab_sin(x) => libm::sin;
        kvlab_cos(x) => libm::cos;
        kvlab_tan(x) => libm::tan;
        kvlab_asin(x) => libm::asin;
        kvlab_acos(x) => libm::acos;
        kvlab_atan(x) => libm::atan;
        kvlab_atan2(y, x) => libm::atan2;
        kvlab_sinh(x) => libm::sinh;
        kvlab_cosh(x) => libm::cosh;
        kvlab_tanh(x) => libm::tanh;
        kvlab_exp(x) => libm::exp;
        kvlab_log(x) => libm::log;
        kvlab_log10(x) => libm::log10;
    }

    #[no_mangle]
    unsafe extern "C" fn kvlab_frexp(x: f64, e: *mut c_int) -> f64 {
        let (m, exp) = libm::frexp(x);
        // SAFETY: frexp's out parameter.
        unsafe { *e = exp };
        m
    }

    #[no_mangle]
    extern "C" fn kvlab_ldexp(x: f64, e: c_int) -> f64 {
        libm::ldexp(x, e)
    }

    #[no_mangle]
    unsafe extern "C" fn kvlab_modf(x: f64, ip: *mut f64) -> f64 {
        let (frac, int) = libm::modf(x);
        // SAFETY: modf's out parameter.
        unsafe { *ip = int };
        frac
    }

    #[wasm_bindgen]
    extern "C" {
        #[wasm_bindgen(js_namespace = console, js_name = log)]
        fn console_log(s: &str);
        #[wasm_bindgen(js_namespace = console, js_name = error)]
        fn console_error(s: &str);
    }

    thread_local! {
        /// What stdout (0) and stderr (1) hold of their current line.
        static LINES: RefCell<[Vec<u8>; 2]> = const { RefCell::new([Vec::new(), Vec::new()]) };
    }

    /// fd 1 (stdout) or 2 (stderr): each whole line goes to console.log / console.error.
    #[no_mangle]
    unsafe extern "C" fn kvlab_rs_write(fd: c_int, s: *const c_char, n: usize) {
        // SAFETY: n bytes at s (fwrite's contract).
        let bytes = unsafe { std::slice::from_raw_parts(s as *const u8, n) };
        let i = usize::from(fd == 2);
        let mut done = Vec::new();
        LINES.with(|lines| {
            let line = &mut lines.borrow_mut()[i];
            for &b in bytes {
                if b == b'\n' {
                    done.push(std::mem::take(line));
                } else {
                    line.push(b);
                }
            }
        });
        for line in done {
            let text = String::from_utf8_lossy(&line);
            if i == 0 {
                console_log(&text);
            } else {
                console_error(&text);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! Against glibc itself: its snprintf and strtod, on the host.
    use super::*;
    use std::ffi::{c_char, c_int, CString};

    extern "C" {
        fn snprintf(buf: *mut c_char, n: usize, fmt: *const c_char, ...) -> c_int;
        fn strtod(s: *const c_char, end: *mut *mut c_char) -> f64;
    }

    fn glibc(spec: &str, x: f64) -> String {
        let fmt = CString::new(spec).unwrap();
        let mut buf = vec![0u8; 2048];
        // SAFETY: the buffer's size is passed; one double for one conversion.
        let n = unsafe { snprintf(buf.as_mut_ptr() as *mut c_char, buf.len(), fmt.as_ptr(), x) };
        buf.truncate(n as usize);
        String::from_utf8(buf).unwrap()
    }

    fn ours(conv: u8, prec: i32, alt: bool, x: f64) -> String {
        let body = format_double(x, conv, prec, alt);
        if x.is_sign_negative() {
            format!("-{body}")
        } else {
            body
        }
    }

    /// A spread of doubles: specials, boundaries, halves, random bit patterns.
    fn samples() -> Vec<f64> {
        let mut v = vec![
            0.0,
            -0.0,
            0.1,
            0.5,
            1.5,
            2.5,
            0.125,
            0.375,
            1e15,
            1e16,
            1e17,
            1e21,
            1e22,
            1e23,
            1e100,
            1e300,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            4.9e-324,
            2.0f64.powi(53),
            123456789012345678.0,
            1.0 / 3.0,
            2.0 / 3.0,
            9.5,
            99.5,
            999999.5,
            0.000123456,
            0.0001,
            0.00001,
            123456.0,
            1234567.0,
            9.9999995,
            0.99999999999999999,
            3.0625,
            2.6875,
            1e-5,
            1e-4,
            100.0,
            1000000.0,
        ];
        let mut state = 0x9E3779B97F4A7C15u64;
        for _ in 0..3000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let x = f64::from_bits(state);
            if x.is_finite() {
                v.push(x);
            }
            // And numbers of ordinary size with few digits.
            v.push(((state >> 11) % 2_000_000) as f64 / 64.0 - 15000.0);
        }
        v
    }

    #[test]
    fn formatting_matches_glibc() {
        let precs = [-1, 0, 1, 2, 5, 6, 13, 14, 16, 17, 20, 40];
        for x in samples() {
            for conv in [b'e', b'E', b'f', b'g', b'G'] {
                for &prec in &precs {
                    if conv == b'f' && x.abs() > 1e30 && prec > 20 {
                        continue;
                    }
                    for alt in [false, true] {
                        let spec = format!(
                            "%{}{}{}",
                            if alt { "#" } else { "" },
                            if prec < 0 {
                                String::new()
                            } else {
                                format!(".{prec}")
                            },
                            conv as char
                        );
                        assert_eq!(ours(conv, prec, alt, x), glibc(&spec, x), "{spec} of {x:e}");
                    }
                }
            }
        }
    }

    fn glibc_strtod(s: &str) -> (f64, usize) {
        let c = CString::new(s).unwrap();
        let mut end: *mut c_char = std::ptr::null_mut();
        // SAFETY: a NUL-terminated string and an out pointer.
        let v = unsafe { strtod(c.as_ptr(), &mut end) };
        (v, end as usize - c.as_ptr() as usize)
    }

    #[test]
    fn parsing_matches_glibc() {
        let mut inputs: Vec<String> = [
            "",
            " ",
            "0",
            "-0",
            "+1",
            " 0x10 ",
            "0x",
            "0X1F",
            "0x.8",
            "0x1p4",
            "0x1P-2",
            "0x1p",
            "0x1p+",
            "0x1.8",
            "0x.",
            "0xg",
            "-0x10",
            "1e5",
            "1e",
            "1e+",
            "1e-3",
            "1E5",
            ".5",
            "5.",
            ".",
            "-.",
            "  12  ",
            "\t\n12",
            "inf",
            "-inf",
            "INF",
            "infinity",
            "Infinity",
            "infinit",
            "nan",
            "NaN",
            "-nan",
            "nan(123)",
            "nan(",
            "nan(12",
            "nanx",
            "1.5e308",
            "1.8e308",
            "4.9e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "1e-400",
            "123456789012345678901234567890",
            "0x123456789abcdef0123",
            "0x1.fffffffffffff8p1023",
            "0x1.fffffffffffff7p1023",
            "0x1p-1074",
            "0x1p-1075",
            "0x1.1p-1075",
            "0x1.8p-1074",
            "0x3p-1076",
            "0x1p-1076",
            "0x0.0000000000001p-1022",
            "0x1.00000000000008p0",
            "0x1.00000000000008000001p0",
            "0x1.00000000000018p0",
            "0x1p99999999999999999999",
            "0x1p-99999999999",
            "1e99999999999999999",
            "12abc",
            "0x12abcz",
            "--1",
            "+-1",
            "0.000000000000000000000000000001e30",
            "9007199254740993",
            "1.00000000000000011102230246251565404236316680908203125",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut state = 12345u64;
        for _ in 0..2000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let x = f64::from_bits(state);
            inputs.push(format!("{x:e}"));
            inputs.push(format!("{:.20e}", x));
            inputs.push(format!(
                "0x{:x}p{}",
                state >> 3,
                (state % 2200) as i64 - 1100
            ));
        }
        for s in &inputs {
            let (want, wn) = glibc_strtod(s);
            let (got, gn) = parse_double(s.as_bytes());
            assert_eq!(gn, wn, "length for {s:?}");
            assert!(
                want.to_bits() == got.to_bits()
                    || (want.is_nan()
                        && got.is_nan()
                        && want.is_sign_negative() == got.is_sign_negative()),
                "{s:?}: glibc {want:e}, ours {got:e}"
            );
        }
    }
}
