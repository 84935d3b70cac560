//! C's `%.<P>g` for doubles, exactly as glibc prints it (Rust's float formatting is
//! exact, as glibc's is): what Redis uses to turn a Lua number into a command argument
//! (`%.17g`).

/// `printf("%.<precision>g", x)`.
pub fn format_g(x: f64, precision: usize) -> String {
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
    let p = precision.max(1);
    // The exponent after rounding to p significant digits.
    let sci = format!("{:.*e}", p - 1, x);
    let (mantissa, exp) = sci.split_once('e').expect("exponent");
    let exp: i32 = exp.parse().expect("exponent digits");
    if exp < -4 || exp >= p as i32 {
        let mantissa = trim_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
    } else {
        let decimals = (p as i32 - 1 - exp) as usize;
        trim_zeros(&format!("{:.*}", decimals, x)).to_string()
    }
}

/// `%.17g`.
pub fn g17(x: f64) -> String {
    format_g(x, 17)
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_glibc() {
        // Printed by glibc's printf("%.17g") and ("%.14g").
        let cases: &[(f64, &str, &str)] = &[
            (0.1, "0.10000000000000001", "0.1"),
            (3.0, "3", "3"),
            (-0.0, "-0", "-0"),
            (1e21, "1e+21", "1e+21"),
            (
                123456789012345678.0,
                "1.2345678901234568e+17",
                "1.2345678901235e+17",
            ),
            (1e-5, "1.0000000000000001e-05", "1e-05"),
            (0.0001, "0.0001", "0.0001"),
            (1.0 / 3.0, "0.33333333333333331", "0.33333333333333"),
            (2f64.powi(53), "9007199254740992", "9.007199254741e+15"),
            (1e16, "10000000000000000", "1e+16"),
            (1e17, "1e+17", "1e+17"),
            (f64::MAX, "1.7976931348623157e+308", "1.7976931348623e+308"),
            (5e-324, "4.9406564584124654e-324", "4.9406564584125e-324"),
            (99999999999999.5, "99999999999999.5", "1e+14"),
        ];
        for &(x, g17s, g14) in cases {
            assert_eq!(format_g(x, 17), g17s, "{x} %.17g");
            assert_eq!(format_g(x, 14), g14, "{x} %.14g");
        }
        assert_eq!(format_g(f64::INFINITY, 17), "inf");
        assert_eq!(format_g(-f64::NAN, 17), "-nan");
    }
}
