//! Argument parsing, written once: a cursor over a command's arguments and Redis's number
//! parsers.
//!
//! Redis is strict about numbers: `string2ll` accepts an optional `-` and decimal digits with
//! no leading `+`, no leading zeros (except `0` itself), no spaces, and nothing that
//! overflows `i64`; `strtod`-based parsing accepts C's float syntax including `inf`, but
//! rejects NaN, empty strings and surrounding spaces. Every handler goes through these
//! functions so that every command rejects the same inputs.

use super::error::{CmdResult, Error};

/// A cursor over the arguments of one command, positioned after the command name (and after
/// the subcommand name for container commands).
#[derive(Debug)]
pub struct Args {
    argv: Vec<Vec<u8>>,
    pos: usize,
}

impl Args {
    /// A cursor over `argv` starting at index `pos`.
    pub fn new(argv: Vec<Vec<u8>>, pos: usize) -> Args {
        Args { argv, pos }
    }

    /// All arguments, including the command name.
    pub fn argv(&self) -> &[Vec<u8>] {
        &self.argv
    }

    /// Takes the whole argument vector back (for propagation).
    pub fn into_argv(self) -> Vec<Vec<u8>> {
        self.argv
    }

    /// The command name as sent, lowercased.
    pub fn name(&self) -> String {
        String::from_utf8_lossy(&self.argv[0]).to_ascii_lowercase()
    }

    /// Number of arguments not yet consumed.
    pub fn remaining(&self) -> usize {
        self.argv.len() - self.pos
    }

    /// True when every argument was consumed.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The current position (index into [`Args::argv`]).
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The next argument without consuming it.
    pub fn peek(&self) -> Option<&[u8]> {
        self.argv.get(self.pos).map(|v| v.as_slice())
    }

    /// Consumes the next argument. Arity has been checked centrally, so a handler that asks
    /// for an argument its arity guarantees always gets one; past the end it gets a syntax
    /// error rather than a panic.
    pub fn next_bytes(&mut self) -> CmdResult<&[u8]> {
        match self.argv.get(self.pos) {
            Some(v) => {
                self.pos += 1;
                Ok(v.as_slice())
            }
            None => Err(Error::Syntax),
        }
    }

    /// Consumes the next argument as an owned copy. The argument vector itself stays intact:
    /// it is the command's replayable effect unless the handler propagates something else.
    pub fn next_owned(&mut self) -> CmdResult<Vec<u8>> {
        self.next_bytes().map(<[u8]>::to_vec)
    }

    /// Consumes the next argument as an `i64` (`ERR value is not an integer or out of range`).
    pub fn next_i64(&mut self) -> CmdResult<i64> {
        parse_i64(self.next_bytes()?).ok_or(Error::NotInteger)
    }

    /// Consumes the next argument as an `f64` (`ERR value is not a valid float`).
    pub fn next_f64(&mut self) -> CmdResult<f64> {
        parse_f64(self.next_bytes()?).ok_or(Error::NotFloat)
    }

    /// Consumes the next argument if it equals `word`, ignoring ASCII case.
    pub fn eat(&mut self, word: &str) -> bool {
        if self
            .peek()
            .is_some_and(|a| a.eq_ignore_ascii_case(word.as_bytes()))
        {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Consumes the next argument and returns it uppercased as text, for option keywords.
    pub fn next_keyword(&mut self) -> CmdResult<String> {
        Ok(String::from_utf8_lossy(self.next_bytes()?).to_ascii_uppercase())
    }

    /// The unconsumed arguments, consuming them all.
    pub fn rest(&mut self) -> Vec<Vec<u8>> {
        let out = self.argv[self.pos..].to_vec();
        self.pos = self.argv.len();
        out
    }

    /// Fails with a syntax error if arguments are left over.
    pub fn finish(&self) -> CmdResult<()> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(Error::Syntax)
        }
    }
}

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

/// Parses a glob-free, case-insensitive keyword.
pub fn eq_kw(arg: &[u8], word: &str) -> bool {
    arg.eq_ignore_ascii_case(word.as_bytes())
}

/// An argument as C sees it: the bytes up to its first NUL. Redis compares option names
/// with `strcasecmp` and prints arguments with `%s`, both of which stop there. **O(n).**
pub fn c_bytes(arg: &[u8]) -> &[u8] {
    let end = arg.iter().position(|&b| b == 0).unwrap_or(arg.len());
    &arg[..end]
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
