//! Pretty-printing a string that holds a JSON object or array, for the string view's JSON
//! mode.
//!
//! Hand-written because it was measured to be needed: the same view on serde_json (its
//! `RawValue`, writing each scalar and key back as written; commit 84c0ef0, reverted by
//! d88292f) grew the release build's first load by 4,585 bytes gzip -9 (283,645 -> 288,230,
//! 2026-12-02): the wasm split moves serde_json's code out of start-up but not its data, and
//! the view does not otherwise need it. (It also showed as text what this reader takes for
//! JSON although it is not: `[NaN]`, `[01]`, `[+1]`, bad escapes, raw tabs in strings.) It is
//! not `engine/json.rs`'s reader either: that one decodes strings to bytes for import, and
//! this view shows every key and scalar as it was written.

/// Re-indents `src` if it is a JSON object or array; `None` if it does not parse.
pub fn pretty_json(src: &str) -> Option<String> {
    let t = src.trim();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    let mut p = Json {
        s: t.as_bytes(),
        i: 0,
        out: String::new(),
        depth: 0,
    };
    p.value()?;
    p.ws();
    (p.i == p.s.len()).then_some(p.out)
}

/// A small JSON reader that writes what it reads, indented by two spaces.
struct Json<'a> {
    s: &'a [u8],
    i: usize,
    out: String,
    depth: usize,
}

impl Json<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
    }

    fn value(&mut self) -> Option<()> {
        if self.depth > 64 {
            return None;
        }
        self.ws();
        match *self.s.get(self.i)? {
            b'{' => self.container(b'}', true),
            b'[' => self.container(b']', false),
            b'"' => self.string(),
            _ => {
                let start = self.i;
                while self
                    .s
                    .get(self.i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || b"+-.".contains(c))
                {
                    self.i += 1;
                }
                let word = std::str::from_utf8(self.s.get(start..self.i)?).ok()?;
                let ok = matches!(word, "true" | "false" | "null") || word.parse::<f64>().is_ok();
                ok.then(|| self.out.push_str(word))
            }
        }
    }

    fn string(&mut self) -> Option<()> {
        let start = self.i;
        self.i += 1;
        loop {
            match *self.s.get(self.i)? {
                b'\\' => self.i += 2,
                b'"' => {
                    self.i += 1;
                    break;
                }
                _ => self.i += 1,
            }
        }
        self.out
            .push_str(std::str::from_utf8(self.s.get(start..self.i)?).ok()?);
        Some(())
    }

    fn container(&mut self, close: u8, object: bool) -> Option<()> {
        self.out.push(self.s[self.i] as char);
        self.i += 1;
        self.ws();
        if self.s.get(self.i) == Some(&close) {
            self.i += 1;
            self.out.push(close as char);
            return Some(());
        }
        self.depth += 1;
        loop {
            self.newline();
            if object {
                self.ws();
                if self.s.get(self.i) != Some(&b'"') {
                    return None;
                }
                self.string()?;
                self.ws();
                if self.s.get(self.i) != Some(&b':') {
                    return None;
                }
                self.i += 1;
                self.out.push_str(": ");
            }
            self.value()?;
            self.ws();
            match *self.s.get(self.i)? {
                b',' => {
                    self.i += 1;
                    self.out.push(',');
                }
                c if c == close => {
                    self.i += 1;
                    self.depth -= 1;
                    self.newline();
                    self.out.push(close as char);
                    return Some(());
                }
                _ => return None,
            }
        }
    }
}
