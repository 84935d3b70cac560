//! Numbers as the page shows them: byte counts (`1.4 KB`) and milliseconds with one
//! decimal (`3.2`).
//!
//! Integer arithmetic only, on purpose: `format!("{:.1}", x)` links core's exact float
//! formatting (`flt2dec::dragon`/`grisu`, about 6 KB of code), and start-up shows these
//! figures, so that code would ride in the first load (`scripts/split.mjs` keeps what
//! start-up runs). Rounding is half away from zero, which a display does not mind.

/// A byte count as a learner reads it: `72 B`, `1.4 KB`, `12 KB`, `3.2 MB` (1 KB = 1024 B):
/// one decimal below 10 of a unit, whole units from there.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let n = u128::from(n);
    let mut unit = 0;
    let mut div: u128 = 1024;
    // The unit in which the value, rounded as shown, stays below 1024.
    while unit + 1 < UNITS.len() && (n + div / 2) / div >= 1024 {
        div *= 1024;
        unit += 1;
    }
    let tenths = (n * 10 + div / 2) / div;
    if tenths < 100 {
        format!("{}.{} {}", tenths / 10, tenths % 10, UNITS[unit])
    } else {
        format!("{} {}", (n + div / 2) / div, UNITS[unit])
    }
}

/// `x` with one decimal, `{:.1}` as a display needs it (`0.0`, `12.3`, `-0.5`); a value
/// that is not finite prints as Rust prints it.
pub fn tenths(x: f64) -> String {
    if !x.is_finite() || x.abs() >= 1e15 {
        return x.to_string();
    }
    let t = (x * 10.0).round() as i64;
    let sign = if t < 0 { "-" } else { "" };
    let t = t.unsigned_abs();
    format!("{sign}{}.{}", t / 10, t % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_read_as_a_learner_reads_them() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1024), "1.0 KB");
        assert_eq!(human_bytes(1434), "1.4 KB");
        assert_eq!(human_bytes(10_188), "9.9 KB");
        // 9.96 KB rounds to 10: whole units from there.
        assert_eq!(human_bytes(10_199), "10 KB");
        assert_eq!(human_bytes(12 * 1024 + 600), "13 KB");
        assert_eq!(human_bytes(1023 * 1024), "1023 KB");
        // 1023.7 KB would show as 1024 KB: the next unit reads better.
        assert_eq!(human_bytes(1024 * 1024 - 300), "1.0 MB");
        assert_eq!(human_bytes(3_355_443), "3.2 MB");
        assert_eq!(human_bytes(5 << 30), "5.0 GB");
        assert_eq!(human_bytes(u64::MAX), "16777216 TB");
    }

    #[test]
    fn tenths_match_one_decimal_formatting() {
        for (x, want) in [
            (0.0, "0.0"),
            (0.04, "0.0"),
            (0.06, "0.1"),
            (1.25, "1.3"),
            (12.345, "12.3"),
            (-0.5, "-0.5"),
            (-0.04, "0.0"),
            (1234.56, "1234.6"),
        ] {
            assert_eq!(tenths(x), want, "{x}");
        }
        assert_eq!(tenths(f64::NAN), "NaN");
        assert_eq!(tenths(f64::INFINITY), "inf");
        // Agrees with `{:.1}` wherever the value is not a tie.
        for i in 0..20_000 {
            let x = f64::from(i) * 0.0137 - 100.0;
            let exact = format!("{x:.1}");
            let ours = tenths(x);
            let tie = ((x * 10.0).fract().abs() - 0.5).abs() < 1e-6;
            assert!(
                tie || ours == exact || (exact == "-0.0" && ours == "0.0"),
                "{x}: {ours} vs {exact}"
            );
        }
    }
}
