//! A small JSON reader for importing kvlab's JSON export ([`super::export::import_json`]).
//!
//! # Representation
//! A document becomes a tree of [`Json`] values, each with the 1-based line it starts on,
//! so that an import error can name the line of the offending key. Strings are kept as
//! bytes: the export writes byte strings that are valid UTF-8 as JSON strings, and `\uXXXX`
//! escapes (surrogate pairs included) are turned back into UTF-8. Numbers keep their text,
//! so integers (`db`, `expire_at_ms`) are read exactly as `i64` and scores as `f64` with
//! Rust's correctly rounded parser.
//!
//! # Invariants and limits
//! The reader never panics on any input: every index is checked, nesting deeper than
//! [`MAX_DEPTH`] is an error (no stack overflow on `[[[[…`), and an error says on which
//! line and what was expected. It accepts exactly RFC 8259 JSON (no comments, no trailing
//! commas); a lone surrogate escape is an error, since it cannot be UTF-8.
//!
//! # Why not serde_json
//! Measured: serde_json in the browser build grows the first load by about 4.6 KB gzip
//! whichever module uses it (the value view tried it, 283,645 -> 288,230 bytes gzip -9 on
//! 2026-12-02), because the wasm split moves its code out of start-up but not its data. This
//! reader is 350 lines, tested by `tests/export.rs`, and gives the line numbers the import's
//! errors name.

use std::fmt;

/// Deepest nesting accepted (the export nests four levels).
pub const MAX_DEPTH: usize = 64;

/// A parsed JSON value and the line it starts on.
#[derive(Debug, Clone, PartialEq)]
pub struct Json {
    /// 1-based line of the value's first character.
    pub line: usize,
    /// The value.
    pub kind: Kind,
}

/// What a JSON value is.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as written.
    Number(String),
    /// A string, as UTF-8 bytes.
    Str(Vec<u8>),
    /// An array.
    Array(Vec<Json>),
    /// An object's members, in order (duplicates kept).
    Object(Vec<(Vec<u8>, Json)>),
}

impl Json {
    /// The member `name` of an object (the first, if repeated).
    pub fn get(&self, name: &str) -> Option<&Json> {
        match &self.kind {
            Kind::Object(m) => m
                .iter()
                .find(|(k, _)| k.as_slice() == name.as_bytes())
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// A short name of the value's type, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self.kind {
            Kind::Null => "null",
            Kind::Bool(_) => "a boolean",
            Kind::Number(_) => "a number",
            Kind::Str(_) => "a string",
            Kind::Array(_) => "an array",
            Kind::Object(_) => "an object",
        }
    }
}

/// A syntax error: where and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// 1-based line.
    pub line: usize,
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    line: usize,
}

/// Parses a whole JSON document (surrounding whitespace allowed). **O(n).**
///
/// # Errors
/// The first syntax error, with its line.
pub fn parse(text: &[u8]) -> Result<Json, SyntaxError> {
    let text = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text);
    let mut p = Parser {
        s: text,
        pos: 0,
        line: 1,
    };
    let v = p.value(0)?;
    p.ws();
    if p.pos < p.s.len() {
        return Err(p.err("unexpected text after the end of the document"));
    }
    Ok(v)
}

/// Writes `s` as a JSON string (quoted, with `"`, `\\` and control characters escaped):
/// the inverse of what [`parse`] reads into [`Kind::Str`].
pub fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

impl Parser<'_> {
    fn err(&self, message: &str) -> SyntaxError {
        SyntaxError {
            line: self.line,
            message: message.to_string(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn ws(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                b'\n' => self.line += 1,
                b' ' | b'\t' | b'\r' => {}
                _ => break,
            }
            self.pos += 1;
        }
    }

    /// After an object member or array item: a `,` (more follow, `false`) or `close` (the
    /// container ends, `true`); anything else is the error `what`.
    fn closes(&mut self, close: u8, what: &str) -> Result<bool, SyntaxError> {
        self.ws();
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                Ok(false)
            }
            Some(c) if c == close => {
                self.pos += 1;
                Ok(true)
            }
            _ => Err(self.err(what)),
        }
    }

    fn expect(&mut self, c: u8, what: &str) -> Result<(), SyntaxError> {
        self.ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.err(&format!("expected {what}")))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.err("nested too deeply"));
        }
        self.ws();
        let line = self.line;
        let kind = match self.peek() {
            None => return Err(self.err("unexpected end of the document")),
            Some(b'{') => {
                self.pos += 1;
                let mut members = Vec::new();
                self.ws();
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws();
                        if self.peek() != Some(b'"') {
                            return Err(self.err("expected a member name in quotes"));
                        }
                        let name = self.string()?;
                        self.expect(b':', "':' after a member name")?;
                        let v = self.value(depth + 1)?;
                        members.push((name, v));
                        if self.closes(b'}', "expected ',' or '}' in an object")? {
                            break;
                        }
                    }
                }
                Kind::Object(members)
            }
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                } else {
                    loop {
                        items.push(self.value(depth + 1)?);
                        if self.closes(b']', "expected ',' or ']' in an array")? {
                            break;
                        }
                    }
                }
                Kind::Array(items)
            }
            Some(b'"') => Kind::Str(self.string()?),
            Some(b't') => self.word(b"true", Kind::Bool(true))?,
            Some(b'f') => self.word(b"false", Kind::Bool(false))?,
            Some(b'n') => self.word(b"null", Kind::Null)?,
            Some(c) if c == b'-' || c.is_ascii_digit() => Kind::Number(self.number()?),
            Some(_) => return Err(self.err("expected a value")),
        };
        Ok(Json { line, kind })
    }

    fn word(&mut self, w: &[u8], kind: Kind) -> Result<Kind, SyntaxError> {
        if self.s.get(self.pos..self.pos + w.len()) == Some(w) {
            self.pos += w.len();
            Ok(kind)
        } else {
            Err(self.err("expected a value"))
        }
    }

    fn number(&mut self) -> Result<String, SyntaxError> {
        let start = self.pos;
        let digits = |p: &mut Parser<'_>| {
            let from = p.pos;
            while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                p.pos += 1;
            }
            p.pos > from
        };
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        if self.peek() == Some(b'0') {
            self.pos += 1;
        } else if !digits(self) {
            return Err(self.err("malformed number"));
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !digits(self) {
                return Err(self.err("malformed number"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !digits(self) {
                return Err(self.err("malformed number"));
            }
        }
        let text = self.s.get(start..self.pos).unwrap_or_default();
        Ok(String::from_utf8_lossy(text).into_owned())
    }

    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let h = self
            .s
            .get(self.pos..self.pos + 4)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| self.err("malformed \\u escape"))?;
        self.pos += 4;
        Ok(h)
    }

    /// A string starting at the opening quote, as UTF-8 bytes.
    fn string(&mut self) -> Result<Vec<u8>, SyntaxError> {
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.err("unterminated string"));
            };
            self.pos += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let Some(e) = self.peek() else {
                        return Err(self.err("unterminated string"));
                    };
                    self.pos += 1;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi) {
                                if self.s.get(self.pos..self.pos + 2) != Some(b"\\u") {
                                    return Err(self.err("lone surrogate in a \\u escape"));
                                }
                                self.pos += 2;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(self.err("lone surrogate in a \\u escape"));
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else {
                                hi
                            };
                            char::from_u32(code)
                                .ok_or_else(|| self.err("lone surrogate in a \\u escape"))?
                        }
                        _ => return Err(self.err("unknown escape in a string")),
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                c if c < 0x20 => {
                    return Err(self.err("control character in a string (write it as an escape)"))
                }
                c => out.push(c),
            }
        }
        if std::str::from_utf8(&out).is_err() {
            return Err(self.err("string is not valid UTF-8"));
        }
        Ok(out)
    }
}
