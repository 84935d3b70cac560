//! Validation and rendering of parameter values as `CONFIG SET` checks them: numbers with units,
//! enumerations, and the special parameters (`save`, `client-output-buffer-limit`,
//! `notify-keyspace-events`, …).

use super::spec::{Kind, Param, Special, Unit};
use crate::engine::args::parse_i64;

/// Checks one parameter's value (split into `args` for multi-argument parameters) and
/// returns the normalised text.
pub(super) fn check(
    param: &Param,
    text: &str,
    args: &[&str],
    current: &str,
) -> Result<String, String> {
    match param.kind {
        Kind::Bool => {
            if text.eq_ignore_ascii_case("yes") {
                Ok("yes".into())
            } else if text.eq_ignore_ascii_case("no") {
                Ok("no".into())
            } else {
                Err("argument must be 'yes' or 'no'".into())
            }
        }
        Kind::Int { min, max, unit } => {
            let v = parse_number(text, unit)?;
            if unit == Unit::MemoryOrPercent && v < 0 {
                if v < min {
                    return Err(format!(
                        "percentage argument must be less or equal to {}",
                        -min
                    ));
                }
            } else if v < min || v > max {
                return Err(format!(
                    "argument must be between {min} and {max} inclusive"
                ));
            }
            Ok(show_number(v, unit))
        }
        Kind::Uint { min, max, unit } => {
            let v = parse_number(text, unit)? as u64;
            if v < min || v > max {
                return Err(if unit == Unit::Octal {
                    format!("argument must be between {min:o} and {max:o} inclusive")
                } else {
                    format!("argument must be between {min} and {max} inclusive")
                });
            }
            Ok(match unit {
                Unit::Octal => format!("{v:o}"),
                Unit::Memory => v.to_string(),
                _ => (v as i64).to_string(),
            })
        }
        Kind::Enum(names) => {
            let value = match args {
                [one] => names
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(one))
                    .map(|(_, v)| *v),
                _ => None,
            };
            let Some(value) = value else {
                return Err(enum_error(names));
            };
            Ok(names
                .iter()
                .find(|(_, v)| *v == value)
                .map(|(n, _)| n.to_string())
                .unwrap_or_default())
        }
        Kind::EnumFlags(names) => {
            if args.is_empty() {
                return Err(enum_error(names));
            }
            let mut bits = 0;
            for a in args {
                let Some((_, v)) = names.iter().find(|(n, _)| n.eq_ignore_ascii_case(a)) else {
                    return Err(enum_error(names));
                };
                bits |= v;
            }
            if bits & 1 != 0 && bits & 2 != 0 {
                return Err("shutdown options SAVE and NOSAVE can't be used simultaneously".into());
            }
            if let Some((n, _)) = names.iter().find(|(_, v)| *v == bits) {
                return Ok(n.to_string());
            }
            // Several flags are shown in table order, as Redis's `configEnumGetName` does.
            let mut out: Vec<&str> = Vec::new();
            for (n, v) in names.iter() {
                if *v != 0 && bits & v == *v {
                    out.push(n);
                }
            }
            Ok(out.join(" "))
        }
        Kind::Str => Ok(text.to_string()),
        Kind::Special(s) => check_special(s, text, args, current),
    }
}

fn enum_error(names: &[(&str, u32)]) -> String {
    let list: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
    format!(
        "argument(s) must be one of the following: {}",
        list.join(", ")
    )
}

/// Parses a numeric value as Redis's `numericParseString` does for the given unit.
fn parse_number(text: &str, unit: Unit) -> Result<i64, String> {
    match unit {
        Unit::Plain => {
            parse_i64(text.as_bytes()).ok_or("argument couldn't be parsed into an integer".into())
        }
        Unit::Memory => parse_memory(text)
            .map(|v| v as i64)
            .ok_or("argument must be a memory value".into()),
        Unit::MemoryOrPercent => {
            if let Some(v) = parse_memory(text) {
                return Ok(v as i64);
            }
            if text.len() > 1 {
                if let Some(n) = text
                    .strip_suffix('%')
                    .and_then(|d| parse_i64(d.as_bytes()))
                    .filter(|n| *n >= 0)
                {
                    return Ok(-n);
                }
            }
            Err("argument must be a memory or percent value".into())
        }
        Unit::Octal => {
            let (neg, digits) = match text.strip_prefix('-') {
                Some(d) => (true, d),
                None => (false, text.strip_prefix('+').unwrap_or(text)),
            };
            if digits.is_empty() || !digits.bytes().all(|c| (b'0'..=b'7').contains(&c)) {
                return Err("argument couldn't be parsed as an octal number".into());
            }
            let v = i64::from_str_radix(digits, 8)
                .map_err(|_| "argument couldn't be parsed as an octal number".to_string())?;
            Ok(if neg { -v } else { v })
        }
    }
}

fn show_number(v: i64, unit: Unit) -> String {
    match unit {
        Unit::MemoryOrPercent if v < 0 => format!("{}%", v.unsigned_abs()),
        Unit::Memory | Unit::MemoryOrPercent => (v as u64).to_string(),
        Unit::Octal => format!("{v:o}"),
        Unit::Plain => v.to_string(),
    }
}

/// Redis's `memtoull`: decimal digits followed by an optional unit (`b`, `k` = 1000, `kb`
/// = 1024, `m`, `mb`, `g`, `gb`, any case). A leading `-` or anything else fails. Like
/// Redis, a product that overflows wraps.
pub fn parse_memory(text: &str) -> Option<u64> {
    let digits_end = text
        .bytes()
        .position(|c| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(digits_end);
    let mul: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" => 1000,
        "kb" => 1024,
        "m" => 1000 * 1000,
        "mb" => 1024 * 1024,
        "g" => 1000 * 1000 * 1000,
        "gb" => 1024 * 1024 * 1024,
        _ => return None,
    };
    if digits.is_empty() {
        // strtoull("") gives 0 with no error.
        return Some(0);
    }
    let v = digits
        .bytes()
        .try_fold(0u64, |acc, c| {
            acc.checked_mul(10)?.checked_add(u64::from(c - b'0'))
        })
        .unwrap_or(u64::MAX);
    Some(v.wrapping_mul(mul))
}

/// C's `strtoll(s, &end, 10)` requiring `*end == '\0'`: optional leading spaces and sign,
/// digits, saturating on overflow. `None` when there is no digit or junk follows.
fn strtoll_whole(s: &str) -> Option<i64> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() {
        // Nothing was parsed: strtoll leaves end at the start, which is '\0' only for "".
        return if s.is_empty() { Some(0) } else { None };
    }
    if !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut v: i128 = 0;
    for c in digits.bytes() {
        v = (v * 10 + i128::from(c - b'0')).min(i128::from(i64::MAX) + 1);
    }
    let v = if neg { -v } else { v };
    Some(v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64)
}

fn check_special(
    kind: Special,
    text: &str,
    args: &[&str],
    current: &str,
) -> Result<String, String> {
    match kind {
        Special::Save => {
            if args.len() % 2 != 0 {
                return Err("Invalid save parameters".into());
            }
            let mut nums = Vec::with_capacity(args.len());
            for (j, a) in args.iter().enumerate() {
                let v = strtoll_whole(a).ok_or("Invalid save parameters")?;
                if (j % 2 == 0 && v < 1) || (j % 2 == 1 && v < 0) {
                    return Err("Invalid save parameters".into());
                }
                nums.push(v);
            }
            Ok(nums
                .chunks(2)
                .map(|p| format!("{} {}", p[0], p[1] as i32))
                .collect::<Vec<_>>()
                .join(" "))
        }
        Special::NotifyKeyspaceEvents => {
            let flags = keyspace_event_flags(text)
                .ok_or("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")?;
            // Kept lossless: the display form collapses the classes into `A`, which does not
            // include `n` (new-key events), yet Redis keeps `n` set behind it. `CONFIG GET`
            // shows the display form.
            let mut stored = keyspace_event_string(flags);
            if flags & ALL == ALL && flags & NEW != 0 {
                stored.push('n');
            }
            Ok(stored)
        }
        Special::Bind => {
            if args.len() > 16 {
                return Err("Too many bind addresses specified.".into());
            }
            Ok(args.join(" "))
        }
        Special::ClientOutputBufferLimit => {
            if args.len() % 4 != 0 {
                return Err("Wrong number of arguments in buffer limit configuration.".into());
            }
            // normal, slave, pubsub: the classes named replace the current ones.
            let mut classes = parse_obuf(current);
            for group in args.chunks(4) {
                let class = match group[0].to_ascii_lowercase().as_str() {
                    "normal" => 0,
                    "slave" | "replica" => 1,
                    "pubsub" => 2,
                    _ => {
                        return Err(
                            "Invalid client class specified in buffer limit configuration.".into(),
                        )
                    }
                };
                let err =
                    "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
                let hard = parse_memory(group[1]).ok_or(err)?;
                let soft = parse_memory(group[2]).ok_or(err)?;
                let secs = strtoll_whole(group[3]).filter(|s| *s >= 0).ok_or(err)?;
                classes[class] = (hard, soft, secs);
            }
            Ok(render_obuf(&classes))
        }
        Special::OomScoreAdjValues => {
            if args.len() != 3 {
                return Err("wrong number of arguments".into());
            }
            let mut out = Vec::new();
            for a in args {
                let v = strtoll_whole(a)
                    .filter(|v| (-2000..=2000).contains(v))
                    .ok_or(
                        "Invalid oom-score-adj-values, elements must be between -2000 and 2000.",
                    )?;
                out.push(v.to_string());
            }
            Ok(out.join(" "))
        }
        Special::LatencyPercentiles => {
            if args.len() == 1 && args[0].is_empty() {
                return Ok(String::new());
            }
            let mut out = Vec::new();
            for a in args {
                let v = crate::engine::args::parse_f64(a.as_bytes())
                    .ok_or("Invalid latency-tracking-info-percentiles parameters")?;
                if !(0.0..=100.0).contains(&v) {
                    return Err(
                        "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
                            .into(),
                    );
                }
                let fixed = format!("{v:.6}");
                out.push(
                    fixed
                        .trim_end_matches('0')
                        .trim_end_matches('.')
                        .to_string(),
                );
            }
            Ok(out.join(" "))
        }
    }
}

/// Reads a normalised `client-output-buffer-limit` value (normal, slave, pubsub).
pub(super) fn parse_obuf(text: &str) -> [(u64, u64, i64); 3] {
    let mut out = [
        (0, 0, 0),
        (268435456, 67108864, 60),
        (33554432, 8388608, 60),
    ];
    let words: Vec<&str> = text.split(' ').collect();
    for (slot, group) in out.iter_mut().zip(words.chunks(4)) {
        if let [_, h, s, t] = group {
            *slot = (
                h.parse().unwrap_or(0),
                s.parse().unwrap_or(0),
                t.parse().unwrap_or(0),
            );
        }
    }
    out
}

/// The `client-output-buffer-limit` text.
fn render_obuf(classes: &[(u64, u64, i64); 3]) -> String {
    let names = ["normal", "slave", "pubsub"];
    names
        .iter()
        .zip(classes.iter())
        .map(|(n, (h, s, t))| format!("{n} {h} {s} {t}"))
        .collect::<Vec<_>>()
        .join(" ")
}

use crate::engine::pubsub::class::{
    ALL, EVICTED, EXPIRED, GENERIC as G, HASH, KEYEVENT as E, KEYSPACE as K, KEY_MISS as MISS,
    LIST, MODULE, NEW, SET, STREAM, STRING, ZSET,
};

/// Parses `notify-keyspace-events` class characters into flags (`None` for an unknown one).
pub fn keyspace_event_flags(classes: &str) -> Option<u32> {
    let mut flags = 0;
    for c in classes.chars() {
        flags |= match c {
            'A' => ALL,
            'g' => G,
            '$' => STRING,
            'l' => LIST,
            's' => SET,
            'h' => HASH,
            'z' => ZSET,
            'x' => EXPIRED,
            'e' => EVICTED,
            'K' => K,
            'E' => E,
            't' => STREAM,
            'm' => MISS,
            'd' => MODULE,
            'n' => NEW,
            _ => return None,
        };
    }
    Some(flags)
}

/// The canonical text of keyspace-event flags, as `CONFIG GET` shows it.
pub fn keyspace_event_string(flags: u32) -> String {
    let mut s = String::new();
    if flags & ALL == ALL {
        s.push('A');
    } else {
        for (bit, c) in [
            (G, 'g'),
            (STRING, '$'),
            (LIST, 'l'),
            (SET, 's'),
            (HASH, 'h'),
            (ZSET, 'z'),
            (EXPIRED, 'x'),
            (EVICTED, 'e'),
            (STREAM, 't'),
            (MODULE, 'd'),
            (NEW, 'n'),
        ] {
            if flags & bit != 0 {
                s.push(c);
            }
        }
    }
    for (bit, c) in [(K, 'K'), (E, 'E'), (MISS, 'm')] {
        if flags & bit != 0 {
            s.push(c);
        }
    }
    s
}
