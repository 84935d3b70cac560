//! The conformance cases (`conformance.lua`) with the answers redis-server 7.0.15 gave
//! (`conformance.txt`, written by `record.py`), shared by tests/conformance.rs (host) and
//! tests/wasm.rs (headless Chromium): both targets must give Redis's answers.

/// One case: its name, its chunk, and Redis's answer.
pub struct Case {
    pub name: String,
    pub code: String,
    pub want: Vec<u8>,
}

pub fn all() -> Vec<Case> {
    let mut codes = Vec::new();
    for line in include_str!("conformance.lua").lines() {
        if let Some(name) = line.strip_prefix("-- case: ") {
            codes.push((name.trim().to_string(), String::new()));
        } else if let Some((_, code)) = codes.last_mut() {
            code.push_str(line);
            code.push('\n');
        }
    }
    let mut wants = std::collections::HashMap::new();
    for line in include_str!("conformance.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
    {
        let (name, want) = line.split_once('\t').expect("name<TAB>answer");
        wants.insert(name.to_string(), unescape(want));
    }
    let cases: Vec<Case> = codes
        .into_iter()
        .map(|(name, code)| {
            let want = wants
                .remove(&name)
                .unwrap_or_else(|| panic!("no recorded answer for {name:?}: run record.py"));
            Case {
                name,
                code: code.trim().to_string() + "\n",
                want,
            }
        })
        .collect();
    assert!(
        wants.is_empty(),
        "answers without a case: {:?}",
        wants.keys()
    );
    cases
}

fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            match b[i + 1] {
                b'n' => out.push(b'\n'),
                b't' => out.push(b'\t'),
                b'\\' => out.push(b'\\'),
                b'x' => {
                    out.push(u8::from_str_radix(&s[i + 2..i + 4], 16).unwrap());
                    i += 2;
                }
                c => panic!("unknown escape \\{}", c as char),
            }
            i += 2;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// Runs every case on a fresh state, as Redis names a script (`@user_script`); returns
/// how many ran and a report of those whose answer differs from Redis's.
pub fn run_all() -> (usize, Vec<String>) {
    let cases = all();
    let mut failures = Vec::new();
    for case in &cases {
        let mut lua = kvlab_lua::Lua::new();
        let got = match lua.run("@user_script", case.code.as_bytes()) {
            Ok(mut values) if values.len() == 1 => values.remove(0),
            Ok(values) => format!("{} values instead of one", values.len()).into_bytes(),
            Err(e) => [b"error: ".as_slice(), &e.0].concat(),
        };
        if got != case.want {
            failures.push(diff(&case.name, &case.want, &got));
        }
    }
    (cases.len(), failures)
}

/// The first differing line of the two answers.
fn diff(name: &str, want: &[u8], got: &[u8]) -> String {
    let (w, g) = (String::from_utf8_lossy(want), String::from_utf8_lossy(got));
    for (i, (a, b)) in w.split('\n').zip(g.split('\n')).enumerate() {
        if a != b {
            let words = a.split(' ').zip(b.split(' ')).position(|(x, y)| x != y);
            return format!(
                "{name}, line {}{}:\n  redis: {a}\n  ours:  {b}",
                i + 1,
                words
                    .map(|k| format!(", word {}", k + 1))
                    .unwrap_or_default()
            );
        }
    }
    format!("{name}:\n  redis: {w}\n  ours:  {g}")
}

/// Runs every case and fails, listing the differences, unless each answer is
/// redis-server's (the host's test and the browser's).
pub fn assert_all_match() {
    let (n, failures) = run_all();
    assert!(n >= 30, "only {n} cases");
    assert!(
        failures.is_empty(),
        "{} of {n} cases differ from redis-server:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
