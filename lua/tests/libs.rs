//! Redis's scripting libraries (cjson, struct, cmsgpack, bit) against outputs recorded
//! from a real redis-server 7.0.15, plus round-trip and garbage-input properties.
//!
//! The cases are data: `tests/libs/*.txt`, each a line of Lua and the line
//! `=> <output>` that `tests/libs/record.py` wrote from redis-server. Every case runs in
//! a fresh state as `<prelude> return show(pcall(function() ... end))` (prelude.lua
//! turns values into text), so the outputs compare byte for byte.
use kvlab_lua::Lua;

const PRELUDE: &str = include_str!("libs/prelude.lua");

/// The chunk a case line runs as (the same text record.py sends to redis-server).
fn chunk(line: &str) -> String {
    let body = match line.strip_prefix('!') {
        Some(stmts) => stmts.to_string(),
        None => format!("return {line}"),
    };
    format!(
        "{} return show(pcall(function() {body} end))",
        PRELUDE.trim_end_matches('\n')
    )
}

/// Runs a chunk as Redis names scripts, and returns its first result as text.
fn run(lua: &mut Lua, chunk: &str) -> String {
    match lua.run("@user_script", chunk.as_bytes()) {
        Ok(v) => v
            .first()
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default(),
        Err(e) => format!("ERR! {}", String::from_utf8_lossy(&e.0)),
    }
}

/// Runs every case of `file` and reports each mismatch.
fn check_file(file: &str) {
    let path = format!("{}/tests/libs/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut failures = Vec::new();
    let mut cases = 0;
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') || line.starts_with("=> ") {
            continue;
        }
        let expected = lines
            .get(i + 1)
            .and_then(|l| l.strip_prefix("=> "))
            .unwrap_or_else(|| panic!("{file}:{}: no recorded output", i + 1));
        let got = run(&mut Lua::new(), &chunk(line)).replace('\n', "\\n");
        cases += 1;
        if got != expected {
            failures.push(format!(
                "{file}:{}: {line}\n  redis: {expected}\n  kvlab: {got}",
                i + 1
            ));
        }
    }
    assert!(cases > 0, "{file}: no cases");
    assert!(
        failures.is_empty(),
        "{} of {cases} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn bit_matches_redis() {
    check_file("bit.txt");
}

#[test]
fn struct_matches_redis() {
    check_file("struct.txt");
}

#[test]
fn cmsgpack_matches_redis() {
    check_file("cmsgpack.txt");
}

#[test]
fn cjson_matches_redis() {
    check_file("cjson.txt");
}
