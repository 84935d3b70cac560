//! C `long double` arithmetic as Redis 7.0 does it on x86-64, for INCRBYFLOAT and
//! HINCRBYFLOAT.
//!
//! Redis parses both operands with `strtold`, adds them as x87 80-bit extended floats
//! (64-bit significand, 15-bit exponent) and prints the sum with `"%.17Lf"`, then strips
//! trailing zeros and a trailing `.` (`ld2string` in `LD_STR_HUMAN` mode). An `f64`
//! gives other digits (`10.5 + 0.1` is `10.6` in extended precision but `10.59999…` or
//! `10.6000…` depending on how doubles are printed), so we compute with the same format:
//!
//! * **Parsing** ([`LongDouble::parse`]) follows Redis's `string2ld`: the whole string must be
//!   a C float (`strtold` syntax: decimal with optional exponent, hexadecimal `0x…p…`,
//!   `inf`/`infinity`), no leading space, not NaN, shorter than 5120 bytes, and not a finite
//!   number that overflows to infinity or underflows to zero. The conversion itself, with
//!   correct round-to-nearest-even as glibc's `strtold` does, is `rustc_apfloat`'s (LLVM's
//!   APFloat, pure Rust, builds for wasm32).
//! * **Addition** is APFloat's, rounded to nearest-even in 64-bit precision, which is what
//!   the x87 unit does at its default precision control.
//! * **Printing** ([`LongDouble::to_human`]) is our own: the value is `sig × 2^e` exactly;
//!   we round `|value| × 10^17` to an integer (ties to even, as glibc's `printf` does in the
//!   default rounding mode) and write it with 17 decimals, then strip as Redis does.
//!
//! Redis quirks that fall out of `string2ld` and are kept: `"inf"` is a valid operand (the sum
//! is then rejected as infinite by the commands), hexadecimal floats are accepted, a
//! denormal is accepted while a value that underflows to zero is not, and `"-0"` prints as
//! `"0"`.

use rustc_apfloat::ieee::X87DoubleExtended;
use rustc_apfloat::{Float, Round, Status};

/// `MAX_LONG_DOUBLE_CHARS` in Redis: strings this long or longer are not parsed.
const MAX_LONG_DOUBLE_CHARS: usize = 5 * 1024;

/// An x87 80-bit extended-precision float.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LongDouble(X87DoubleExtended);

impl LongDouble {
    /// Zero.
    pub fn zero() -> LongDouble {
        LongDouble(X87DoubleExtended::ZERO)
    }

    /// The exact value of `n` (every `i64` fits in 64 significand bits).
    pub fn from_i64(n: i64) -> LongDouble {
        LongDouble(X87DoubleExtended::from_i128(i128::from(n)).value)
    }

    /// Parses `s` as Redis's `string2ld` does; `None` where Redis says the value is not a
    /// valid float.
    pub fn parse(s: &[u8]) -> Option<LongDouble> {
        if s.is_empty() || s.len() >= MAX_LONG_DOUBLE_CHARS {
            return None;
        }
        // strtold must consume every byte: a NUL inside ends the C string early, and Redis
        // then rejects the value because fewer bytes were read than given.
        if s.contains(&0) {
            return None;
        }
        if matches!(s[0], b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r') {
            return None;
        }
        let (neg, body) = match s[0] {
            b'-' => (true, &s[1..]),
            b'+' => (false, &s[1..]),
            _ => (false, s),
        };
        if body.eq_ignore_ascii_case(b"inf") || body.eq_ignore_ascii_case(b"infinity") {
            let inf = X87DoubleExtended::INFINITY;
            return Some(LongDouble(if neg { -inf } else { inf }));
        }
        let text = std::str::from_utf8(body).ok()?;
        let normalized =
            if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
                normalize_hex(hex)?
            } else {
                check_decimal(text)?;
                text.to_string()
            };
        let parsed = X87DoubleExtended::from_str_r(&normalized, Round::NearestTiesToEven).ok()?;
        let v = parsed.value;
        if v.is_infinite() || v.is_nan() {
            // strtold returns HUGE_VALL with ERANGE on overflow; Redis rejects it.
            return None;
        }
        if v.is_zero()
            && parsed
                .status
                .intersects(Status::UNDERFLOW | Status::INEXACT)
        {
            // Underflow to zero (ERANGE with a zero result) is rejected too.
            return None;
        }
        Some(LongDouble(if neg { -v } else { v }))
    }

    /// `ceill(self × factor)` as a C `long long` cast of it would give on x86-64:
    /// `i64::MIN` when the product is infinite, NaN or outside the `i64` range (the
    /// instruction's "integer indefinite" value). Redis 7.0 converts blocking timeouts this
    /// way, so `BLPOP k 1e400` reports a *negative* timeout.
    pub fn mul_ceil_to_i64(self, factor: i64) -> i64 {
        let f = X87DoubleExtended::from_i128(i128::from(factor)).value;
        let product = (self.0 * f).value;
        if !product.is_finite() {
            return i64::MIN;
        }
        let ceiled = product.round_to_integral(Round::TowardPositive).value;
        let mut exact = false;
        let n = ceiled.to_i128_r(128, Round::TowardZero, &mut exact).value;
        i64::try_from(n).unwrap_or(i64::MIN)
    }

    /// True unless infinite or NaN.
    pub fn is_finite(self) -> bool {
        self.0.is_finite()
    }

    /// The text Redis stores for this value: `"%.17Lf"` with trailing zeros and a trailing
    /// `.` removed, `"-0"` turned into `"0"`, and `inf`/`-inf` for infinities.
    pub fn to_human(self) -> String {
        if self.0.is_infinite() {
            return if self.0.is_negative() { "-inf" } else { "inf" }.to_string();
        }
        if self.0.is_nan() {
            // Redis never stores NaN (the commands reject it first); glibc prints "nan".
            return if self.0.is_negative() { "-nan" } else { "nan" }.to_string();
        }
        let mut out = fixed17(self);
        if out.contains('.') {
            while out.ends_with('0') {
                out.pop();
            }
            if out.ends_with('.') {
                out.pop();
            }
        }
        if out == "-0" {
            out = "0".to_string();
        }
        out
    }
}

impl std::ops::Add for LongDouble {
    type Output = LongDouble;

    /// `self + other`, rounded to nearest-even in extended precision, as the x87 unit adds.
    fn add(self, other: LongDouble) -> LongDouble {
        LongDouble(self.0.add_r(other.0, Round::NearestTiesToEven).value)
    }
}

/// Checks the `strtold` decimal syntax over the whole text: digits with at most one `.`
/// and at least one digit, then optionally `e`/`E`, an optional sign and at least one digit.
fn check_decimal(text: &str) -> Option<()> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut digits = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    (i == b.len()).then_some(())
}

/// Checks the `strtold` hexadecimal syntax after `0x` (hex digits with at most one `.` and
/// at least one digit, then optionally `p`/`P`, a sign and decimal digits) and returns the
/// text APFloat parses, which must carry an exponent.
fn normalize_hex(hex: &str) -> Option<String> {
    let b = hex.as_bytes();
    let mut i = 0;
    let mut digits = 0;
    while i < b.len() && b[i].is_ascii_hexdigit() {
        i += 1;
        digits += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_hexdigit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    let mantissa = &hex[..i];
    let exponent = if i < b.len() && (b[i] == b'p' || b[i] == b'P') {
        let rest = &hex[i + 1..];
        let digits = rest.strip_prefix(['+', '-']).unwrap_or(rest);
        if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        rest.to_string()
    } else if i == b.len() {
        "0".to_string()
    } else {
        return None;
    };
    Some(format!("0x{mantissa}p{exponent}"))
}

/// `printf("%.17Lf", v)` for a finite `v`, exactly.
fn fixed17(v: LongDouble) -> String {
    const SCALE: u128 = 100_000_000_000_000_000; // 10^17
    let bits = v.0.to_bits();
    let neg = (bits >> 79) & 1 == 1;
    let biased = ((bits >> 64) & 0x7fff) as i32;
    let sig = (bits & u128::from(u64::MAX)) as u64;
    // value = sig × 2^e; denormals (biased exponent 0) use the minimum exponent.
    let e = if biased == 0 { 1 } else { biased } - 16383 - 63;
    let sign = if neg { "-" } else { "" };
    if e >= 0 {
        // An integer: sig << e, written out in decimal.
        let digits = big_shl_to_decimal(sig, e as u32);
        return format!("{sign}{digits}.00000000000000000");
    }
    // |value| × 10^17 = sig × 10^17 / 2^k with sig × 10^17 < 2^121: exact in u128.
    let k = (-e) as u32;
    let m = u128::from(sig) * SCALE;
    let n = if k >= 128 {
        0 // below 2^-7 × 2^121 / 2^128: less than a half, rounds to zero.
    } else {
        let q = m >> k;
        let rem = m & ((1u128 << k) - 1);
        let half = 1u128 << (k - 1);
        if rem > half || (rem == half && q & 1 == 1) {
            q + 1
        } else {
            q
        }
    };
    format!("{sign}{}.{:017}", n / SCALE, n % SCALE)
}

/// The decimal digits of `sig × 2^shift`.
fn big_shl_to_decimal(sig: u64, shift: u32) -> String {
    // Little-endian base-2^32 limbs.
    let word = (shift / 32) as usize;
    let bit = shift % 32;
    let mut limbs = vec![0u32; word];
    let wide = u128::from(sig) << bit;
    for i in 0..3 {
        limbs.push((wide >> (32 * i)) as u32);
    }
    while limbs.last() == Some(&0) && limbs.len() > 1 {
        limbs.pop();
    }
    // Repeated division by 10^9, collecting 9-digit groups from the least significant.
    let mut groups = Vec::new();
    while !(limbs.len() == 1 && limbs[0] == 0) {
        let mut rem = 0u64;
        for l in limbs.iter_mut().rev() {
            let cur = (rem << 32) | u64::from(*l);
            *l = (cur / 1_000_000_000) as u32;
            rem = cur % 1_000_000_000;
        }
        groups.push(rem as u32);
        while limbs.last() == Some(&0) && limbs.len() > 1 {
            limbs.pop();
        }
    }
    let mut out = String::new();
    match groups.pop() {
        Some(top) => out.push_str(&top.to_string()),
        None => return "0".to_string(),
    }
    for g in groups.iter().rev() {
        out.push_str(&format!("{g:09}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `SET k <start>` then `INCRBYFLOAT k <by>` answers in Redis.
    fn incr(start: &str, by: &str) -> String {
        match (
            LongDouble::parse(start.as_bytes()),
            LongDouble::parse(by.as_bytes()),
        ) {
            (Some(a), Some(b)) => {
                let s = a + b;
                if s.is_finite() {
                    s.to_human()
                } else {
                    "ERR increment would produce NaN or Infinity".to_string()
                }
            }
            _ => "ERR value is not a valid float".to_string(),
        }
    }

    /// Replies of a real Redis 7.0.15 (x86-64) to `SET k <a>`, `INCRBYFLOAT k <b>`: random
    /// operands of every shape, ties at the 17th decimal, extremes of the range, and errors.
    #[rustfmt::skip]
    const FROM_REDIS: &[(&str, &str, &str)] = &[
        ("18446744073709551616", "1", "18446744073709551616"),
        ("1e-4900", "459705e24", "459705000000000000015686696960"),
        ("85832e27", "7.64879e37", "76487985832000000001166545517753139200"),
        ("1.5e-300", "23333e37", "233329999999999999996680543427861820735488"),
        ("1385240", "-8365.23396280110432237", "1376874.76603719889567401"),
        ("5.20990e-10", "-95074.35967733027235504", "-95074.35967732975136357"),
        ("-71.68117432713550386", "0.3", "-71.38117432713550386"),
        ("-445977", "0x2p-70", "-445977"),
        ("-749913e-22", "0.000000000000000015", "-0.00000000000000006"),
        ("1.38", "543794e-38", "1.38"),
        ("-0.1129997255370", "24.64652045005471027", "24.53352072451771027"),
        ("892213693619529088", "-1e-4900", "892213693619529088"),
        ("0xe.8p1", "-533435e-25", "29"),
        ("-474163.924107514403400", "-466093.20014322421", "-940257.12425073861339797"),
        ("2695656811738521", "0x0454f31af3176813e02ep-70", "2695656811738538.327392578125"),
        ("0xb469908a466p3", "-5193", "99182744768231"),
        ("-114583e34", "801208e6", "-1145829999999999999982697283498520084480"),
        ("-0.1", "3710508", "3710507.90000000000009095"),
        ("-1e-4900", "-763", "-763"),
        ("36202627625770", "29.0565630481373433", "36202627625799.0565643310546875"),
        ("0x0b188p3", "-33018203399546", "-33018203035962"),
        ("1.34972e14", "-688380e8", "66134000000000"),
        ("811961e-33", "951758e-40", "0"),
        ("-26037408", "-3923075060214845", "-3923075086252253"),
        ("1e-4900", "-20253.55239948174261", "-20253.55239948174260967"),
        ("-54445", "412427", "357982"),
        ("201044291767", "523.666014", "201044292290.66601400077342987"),
        ("-301276e38", "81236e2", "-30127600000000000000657833948880304213065728"),
        ("-896111.89098689444", "683580e-25", "-896111.89098689444000456"),
        ("-7.595737", "0x8e394.8p1", "1165089.40426300000001447"),
        ("0x185689900c986f1e0dep3", "9904.29281096716498983944", "57466564007919593922560"),
        ("-1.5e-300", "-8.80095e-8", "-0.0000000880095"),
        ("2.2582761", "4.25837e-13", "2.25827610000042584"),
        ("-347035e26", "-49453", "-34703499999999999999467222728704"),
        ("48.28", "-84009211", "-84009162.72000000000116415"),
        ("-0.3", "53.02", "52.72"),
        ("607666e39", "0xde57a12d6e.8p1", "607665999999999999992251469415362825837084672"),
        ("0.1", "377404e-11", "0.10000377404"),
        ("85510", "-93", "85417"),
        ("779668.676739545401364", "1e-4900", "779668.67673954540134673"),
        ("-571.623556331605", "749.1943887435701", "177.57083241196509998"),
        ("0x4fbbf39d98a6ee9.8p1", "-10.08436825467810329", "718181700979711432.9375"),
        ("-1.5e-300", "-830853977476246", "-830853977476246"),
        ("-90579.20598399788443837068", "-1.57690e25", "-15769000000000000000000000"),
        ("69522.5883619496243658410", "222649e-39", "69522.58836194962436394"),
        ("9.99999999999999999e4931", "9.99999999999999999e4931", "ERR increment would produce NaN or Infinity"),
        ("1", "inf", "ERR increment would produce NaN or Infinity"),
        ("inf", "1", "ERR increment would produce NaN or Infinity"),
        ("abc", "1", "ERR value is not a valid float"),
        ("1", "abc", "ERR value is not a valid float"),
        ("1.18973149535723176502e+4932", "1e4913", "ERR increment would produce NaN or Infinity"),
        ("0.000003814697265625", "0", "0.00000381469726562"),
        ("0.000011444091796875", "0", "0.00001144409179688"),
        ("-0.000003814697265625", "0", "-0.00000381469726562"),
        ("0x1p-16445", "0", "0"),
        ("-0", "-0", "0"),
        ("-1e-30", "0", "0"),
        ("1e-17", "0", "0.00000000000000001"),
        ("5e-18", "0", "0"),
        ("5.000000000000001e-18", "0", "0.00000000000000001"),
        ("1.5e-17", "0", "0.00000000000000002"),
        ("2.5e-17", "0", "0.00000000000000002"),
        ("-2.5e-17", "0", "-0.00000000000000002"),
        (" 1", "1", "ERR value is not a valid float"),
        ("1", "1 ", "ERR value is not a valid float"),
        ("0x1p63", "0x1p63", "18446744073709551616"),
        ("9223372036854775807", "1", "9223372036854775808"),
        ("18446744073709551615", "1", "18446744073709551616"),
        ("18446744073709551616", "1", "18446744073709551616"),
        ("36893488147419103233", "0", "36893488147419103232"),
        ("0", "0.1", "0.1"),
        ("0.1", "0.1", "0.2"),
        ("0.2", "0.1", "0.3"),
        ("10.5", "0.1", "10.6"),
        ("10.5", "0.1", "10.6"),
        ("1e300", "-0x5a8e48f68p3", "1000000000000000000008997324079559193870523944273290747938260082321265646596180935755849152083750497190350372508614274835903592556184672983913096260520748646287327135641843653294084255107606016789726652932370030551382947620994540294772781889620606179267611627097410650567187386105690089424915104006144"),
        ("1e300", "582.428100771594", "1000000000000000000008997324079559193870523944273290747938260082321265646596180935755849152083750497190350372508614274835903592556184672983913096260520748646287327135641843653294084255107606016789726652932370030551382947620994540294772781889620606179267611627097410650567187386105690089424915104006144"),
    ];

    #[test]
    fn sums_match_real_redis_digit_for_digit() {
        for &(a, b, want) in FROM_REDIS {
            assert_eq!(incr(a, b), want, "{a} + {b}");
        }
    }

    #[test]
    fn extreme_values_print_every_digit() {
        let max = LongDouble::parse(b"0x1.fffffffffffffffep16383")
            .unwrap()
            .to_human();
        assert_eq!(max.len(), 4933);
        assert!(max.starts_with("118973149535723176502126385303097020516906"));
        assert!(max.ends_with("552086811989770240"));
        assert_eq!(
            incr("1.18973149535723176509e+4932", "0"),
            "ERR value is not a valid float"
        );
        assert_eq!(incr("10.5", "0.1"), "10.6");
        assert_eq!(incr("1e-4950", "0"), "0");
    }

    #[test]
    fn parse_rejects_what_string2ld_rejects() {
        for bad in [
            "",
            " 1",
            "1 ",
            "\t1",
            "abc",
            "1.2.3",
            "nan",
            "-nan",
            "NaN",
            "nan(1)",
            "1e",
            "1e+",
            "0x",
            "0xg",
            "0x1p",
            "1e99999",
            "-1e5000",
            "1e-99999",
            "infinit",
            "--1",
            "+-1",
            ".",
            "e5",
            "1,5",
            "1\0junk",
            "\0",
            "0x.p1",
            "0x1p-16446",
        ] {
            assert!(LongDouble::parse(bad.as_bytes()).is_none(), "{bad:?}");
        }
        let too_long = "1".repeat(MAX_LONG_DOUBLE_CHARS);
        assert!(LongDouble::parse(too_long.as_bytes()).is_none());
    }

    #[test]
    fn parse_accepts_c_float_syntax() {
        for (text, human) in [
            ("1", "1"),
            ("+1", "1"),
            ("-1.5", "-1.5"),
            (".5", "0.5"),
            ("5.", "5"),
            ("5.0e3", "5000"),
            ("1E2", "100"),
            ("0x10", "16"),
            ("0x1.8p1", "3"),
            ("0X.8", "0.5"),
            ("0e-99999", "0"),
            ("-0", "0"),
        ] {
            let v = LongDouble::parse(text.as_bytes()).unwrap_or_else(|| panic!("{text:?}"));
            assert_eq!(v.to_human(), human, "{text:?}");
        }
        assert!(!LongDouble::parse(b"inf").unwrap().is_finite());
        assert!(!LongDouble::parse(b"-Infinity").unwrap().is_finite());
    }
}
