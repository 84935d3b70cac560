//! Export and import of a dataset, in forms a real Redis and people can read.
//!
//! * **Commands** ([`to_commands`], rendered by [`to_cli_text`] or [`to_resp`]): the
//!   commands that rebuild the dataset in an empty Redis — `SELECT`, then per key `SET` (with
//!   `PXAT` for a deadline), `RPUSH`, `SADD`, `ZADD`, `HSET` (long collections in several
//!   commands of at most [`BATCH`] elements) and `PEXPIREAT`. Deadlines are absolute Unix
//!   milliseconds, so a key expires at the same instant wherever the file is loaded.
//!   - [`to_cli_text`]: one command per line, every argument quoted as redis-cli quotes
//!     (`"…"` with `\xHH` escapes), so `redis-cli < file` loads it, binary keys included.
//!   - [`to_resp`]: the RESP encoding, for `redis-cli --pipe < file`.
//! * **JSON** ([`to_json`]): `{"format":"kvlab-export","version":1,"exported_ms":…,"keys":[…]}`
//!   with one object per key: `db`, `key`, `type`, `value`, and `expire_at_ms` when
//!   volatile. A byte string is a JSON string when it is valid UTF-8, else
//!   `{"hex":"…"}`. Values: string → byte string; list and set → array; hash → array of
//!   `[field, value]`; zset → array of `[member, score]` (score a number, or the strings
//!   `"inf"`/`"-inf"`).
//!
//! Import ([`import_cli_text`], [`import_resp`]) runs the commands through the engine as a
//! client would, so every imported write produces its effects and is persisted like a
//! typed one. Keys already expired when exported are left out.

use super::cli::{quote, split_args_bytes};
use super::keyspace::Db;
use super::types::Value;
use super::{ClientId, Engine, Reply};

/// Most elements (or field/value pairs) per generated command.
pub const BATCH: usize = 1000;

fn push_batches(
    out: &mut Vec<Vec<Vec<u8>>>,
    head: &[&[u8]],
    items: impl Iterator<Item = Vec<Vec<u8>>>,
) {
    let mut cmd: Vec<Vec<u8>> = Vec::new();
    let mut n = 0;
    for item in items {
        if n == 0 {
            cmd = head.iter().map(|h| h.to_vec()).collect();
        }
        cmd.extend(item);
        n += 1;
        if n == BATCH {
            out.push(std::mem::take(&mut cmd));
            n = 0;
        }
    }
    if n > 0 {
        out.push(cmd);
    }
}

/// A score as text Redis parses back to the same `f64` (shortest round-trip form).
pub fn score_text(s: f64) -> String {
    if s == f64::INFINITY {
        "inf".into()
    } else if s == f64::NEG_INFINITY {
        "-inf".into()
    } else {
        format!("{s}")
    }
}

/// The commands that rebuild `dbs` (keys still alive at `now_ms`) in an empty Redis.
/// **O(size of the dataset).**
pub fn to_commands(dbs: &[Db], now_ms: i64) -> Vec<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    for (i, db) in dbs.iter().enumerate() {
        let mut selected = false;
        for (key, e) in db.iter() {
            if e.is_expired_at(now_ms) {
                continue;
            }
            if !selected {
                out.push(vec![b"SELECT".to_vec(), i.to_string().into_bytes()]);
                selected = true;
            }
            let k = key;
            match &e.value {
                Value::Str(s) => {
                    let mut cmd = vec![b"SET".to_vec(), key.to_vec(), s.as_bytes().to_vec()];
                    if let Some(t) = e.expire_at() {
                        cmd.push(b"PXAT".to_vec());
                        cmd.push(t.to_string().into_bytes());
                    }
                    out.push(cmd);
                    continue;
                }
                Value::List(l) => {
                    push_batches(&mut out, &[b"RPUSH", k], l.iter().map(|x| vec![x.to_vec()]))
                }
                Value::Set(s) => {
                    push_batches(&mut out, &[b"SADD", k], s.iter().map(|x| vec![x.to_vec()]))
                }
                Value::ZSet(z) => push_batches(
                    &mut out,
                    &[b"ZADD", k],
                    z.iter()
                        .map(|(m, s)| vec![score_text(s).into_bytes(), m.to_vec()]),
                ),
                Value::Hash(h) => push_batches(
                    &mut out,
                    &[b"HSET", k],
                    h.iter().map(|(f, v)| vec![f.to_vec(), v.to_vec()]),
                ),
                Value::Stream(st) => out.extend(st.rewrite(k)),
            }
            if let Some(t) = e.expire_at() {
                out.push(vec![
                    b"PEXPIREAT".to_vec(),
                    key.to_vec(),
                    t.to_string().into_bytes(),
                ]);
            }
        }
    }
    out
}

/// Commands as a redis-cli command file: one per line, each argument quoted.
pub fn to_cli_text(commands: &[Vec<Vec<u8>>]) -> String {
    let mut s = String::new();
    for cmd in commands {
        for (i, a) in cmd.iter().enumerate() {
            if i > 0 {
                s.push(' ');
            }
            s.push_str(&quote(a));
        }
        s.push('\n');
    }
    s
}

/// Commands in RESP, for `redis-cli --pipe`.
pub fn to_resp(commands: &[Vec<Vec<u8>>]) -> Vec<u8> {
    let mut out = Vec::new();
    for cmd in commands {
        out.extend_from_slice(format!("*{}\r\n", cmd.len()).as_bytes());
        for a in cmd {
            out.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
            out.extend_from_slice(a);
            out.extend_from_slice(b"\r\n");
        }
    }
    out
}

fn json_bytes(out: &mut String, b: &[u8]) {
    match std::str::from_utf8(b) {
        Ok(s) => super::json::write_str(out, s),
        Err(_) => {
            out.push_str("{\"hex\":\"");
            for x in b {
                out.push_str(&format!("{x:02x}"));
            }
            out.push_str("\"}");
        }
    }
}

fn json_score(out: &mut String, s: f64) {
    if s.is_finite() {
        out.push_str(&format!("{s:?}"));
    } else {
        out.push_str(if s > 0.0 { "\"inf\"" } else { "\"-inf\"" });
    }
}

/// The dataset (keys alive at `now_ms`) as JSON (see the module docs for the shape).
pub fn to_json(dbs: &[Db], now_ms: i64) -> String {
    let mut out =
        format!("{{\"format\":\"kvlab-export\",\"version\":1,\"exported_ms\":{now_ms},\"keys\":[");
    let mut first = true;
    for (i, db) in dbs.iter().enumerate() {
        for (key, e) in db.iter() {
            if e.is_expired_at(now_ms) {
                continue;
            }
            if !first {
                out.push(',');
            }
            first = false;
            out.push_str(&format!("\n{{\"db\":{i},\"key\":"));
            json_bytes(&mut out, key);
            out.push_str(&format!(",\"type\":\"{}\"", e.value.type_name()));
            if let Some(t) = e.expire_at() {
                out.push_str(&format!(",\"expire_at_ms\":{t}"));
            }
            out.push_str(",\"value\":");
            let list = |out: &mut String, items: &mut dyn Iterator<Item = &[u8]>| {
                out.push('[');
                for (j, x) in items.enumerate() {
                    if j > 0 {
                        out.push(',');
                    }
                    json_bytes(out, x);
                }
                out.push(']');
            };
            match &e.value {
                Value::Str(s) => json_bytes(&mut out, s.as_bytes()),
                Value::List(l) => list(&mut out, &mut l.iter()),
                Value::Set(s) => list(&mut out, &mut s.iter()),
                Value::ZSet(z) => {
                    out.push('[');
                    for (j, (m, s)) in z.iter().enumerate() {
                        if j > 0 {
                            out.push(',');
                        }
                        out.push('[');
                        json_bytes(&mut out, m);
                        out.push(',');
                        json_score(&mut out, s);
                        out.push(']');
                    }
                    out.push(']');
                }
                Value::Stream(st) => {
                    // The commands that rebuild it (entries, IDs, groups, pending lists).
                    out.push('[');
                    for (j, argv) in st.rewrite(key).iter().enumerate() {
                        if j > 0 {
                            out.push(',');
                        }
                        list(&mut out, &mut argv.iter().map(Vec::as_slice));
                    }
                    out.push(']');
                }
                Value::Hash(h) => {
                    out.push('[');
                    for (j, (f, v)) in h.iter().enumerate() {
                        if j > 0 {
                            out.push(',');
                        }
                        out.push('[');
                        json_bytes(&mut out, f);
                        out.push(',');
                        json_bytes(&mut out, v);
                        out.push(']');
                    }
                    out.push(']');
                }
            }
            out.push('}');
        }
    }
    out.push_str("\n]}\n");
    out
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ImportReport {
    /// Commands run.
    pub commands: usize,
    /// Errors replied, with the 1-based line (or command) number.
    pub errors: Vec<(usize, String)>,
}

fn run_all(
    engine: &mut Engine,
    client: ClientId,
    cmds: impl Iterator<Item = (usize, Vec<Vec<u8>>)>,
) -> ImportReport {
    let mut report = ImportReport::default();
    for (n, argv) in cmds {
        if argv.is_empty() {
            continue;
        }
        report.commands += 1;
        if let Reply::Error(e) = engine.execute(client, argv) {
            report.errors.push((n, e));
        }
    }
    report
}

/// Runs a redis-cli command file (one command per line, as [`to_cli_text`] writes) for
/// `client`. A line that does not split (unbalanced quotes) is reported and skipped.
pub fn import_cli_text(engine: &mut Engine, client: ClientId, text: &[u8]) -> ImportReport {
    let mut bad = Vec::new();
    let cmds: Vec<(usize, Vec<Vec<u8>>)> = text
        .split(|&b| b == b'\n')
        .enumerate()
        .filter_map(|(i, line)| {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            match split_args_bytes(line) {
                Some(argv) => Some((i + 1, argv)),
                None => {
                    bad.push((i + 1, "Invalid argument(s)".to_string()));
                    None
                }
            }
        })
        .collect();
    let mut report = run_all(engine, client, cmds.into_iter());
    report.errors.extend(bad);
    crate::sorting::sort(&mut report.errors);
    report
}

/// Parses RESP commands (arrays of bulk strings, as [`to_resp`] writes and
/// `redis-cli --pipe` reads). Returns the commands and, if the input ends in the middle of
/// one or is not RESP, the byte offset where parsing stopped.
pub fn parse_resp(bytes: &[u8]) -> (Vec<Vec<Vec<u8>>>, Option<usize>) {
    fn line(b: &[u8], at: usize) -> Option<(&[u8], usize)> {
        let rest = b.get(at..)?;
        let end = rest.windows(2).position(|w| w == b"\r\n")?;
        Some((&rest[..end], at + end + 2))
    }
    fn num(s: &[u8]) -> Option<usize> {
        std::str::from_utf8(s).ok()?.parse().ok()
    }
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let start = at;
        let parsed = (|| {
            let (l, next) = line(bytes, at)?;
            let n = num(l.strip_prefix(b"*")?)?;
            let mut pos = next;
            let mut argv = Vec::with_capacity(n.min(1024));
            for _ in 0..n {
                let (l, next) = line(bytes, pos)?;
                let len = num(l.strip_prefix(b"$")?)?;
                let data = bytes.get(next..next.checked_add(len)?)?;
                if bytes.get(next + len..next + len + 2)? != b"\r\n" {
                    return None;
                }
                argv.push(data.to_vec());
                pos = next + len + 2;
            }
            Some((argv, pos))
        })();
        match parsed {
            Some((argv, next)) => {
                out.push(argv);
                at = next;
            }
            None => return (out, Some(start)),
        }
    }
    (out, None)
}

/// Runs RESP-encoded commands for `client`; a damaged tail is reported as an error.
pub fn import_resp(engine: &mut Engine, client: ClientId, bytes: &[u8]) -> ImportReport {
    let (cmds, stop) = parse_resp(bytes);
    let n = cmds.len();
    let mut report = run_all(
        engine,
        client,
        cmds.into_iter().enumerate().map(|(i, c)| (i + 1, c)),
    );
    if let Some(at) = stop {
        report
            .errors
            .push((n + 1, format!("Protocol error: not RESP at byte {at}")));
    }
    report
}

/// Why a JSON import was refused: the line (and key, once known) of the first problem.
/// Nothing is imported when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonImportError {
    /// 1-based line in the file.
    pub line: usize,
    /// The key being read, shown as the export writes it, when the problem is inside one.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for JsonImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.key {
            Some(k) => write!(f, "line {}, key {}: {}", self.line, k, self.message),
            None => write!(f, "line {}: {}", self.line, self.message),
        }
    }
}

/// A JSON export read and checked, ready to be run as commands ([`json_plan`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JsonPlan {
    /// The commands that add the new keys (`SELECT` first where the database changes).
    /// Run them on a client of its own: they change its selected database.
    pub commands: Vec<Vec<Vec<u8>>>,
    /// Keys the commands add.
    pub keys: usize,
    /// Keys left out because their deadline has passed.
    pub expired: usize,
    /// Keys left out because the workspace already has a key of that name (database,
    /// key as the export writes it): an import never overwrites.
    pub existing: Vec<(usize, String)>,
}

fn json_err(line: usize, key: Option<&str>, message: impl Into<String>) -> JsonImportError {
    JsonImportError {
        line,
        key: key.map(str::to_string),
        message: message.into(),
    }
}

/// A byte string as the export writes it: a JSON string, or `{"hex": "…"}`.
fn json_to_bytes(v: &super::json::Json) -> Option<Vec<u8>> {
    use super::json::Kind;
    match &v.kind {
        Kind::Str(s) => Some(s.clone()),
        Kind::Object(m) if m.len() == 1 => {
            let hex = v.get("hex")?;
            let Kind::Str(h) = &hex.kind else {
                return None;
            };
            if h.len() % 2 != 0 {
                return None;
            }
            h.chunks(2)
                .map(|p| {
                    std::str::from_utf8(p)
                        .ok()
                        .and_then(|p| u8::from_str_radix(p, 16).ok())
                })
                .collect()
        }
        _ => None,
    }
}

fn key_label(key: &[u8]) -> String {
    let mut s = String::new();
    json_bytes(&mut s, key);
    s
}

/// Reads one key object of a JSON export into its database number, key and entry.
fn json_entry(
    item: &super::json::Json,
    now_ms: i64,
) -> Result<(usize, Vec<u8>, super::keyspace::Entry), JsonImportError> {
    use super::json::Kind;
    use super::types::{HashValue, SetValue, StrValue, ZSet};
    let line = item.line;
    if !matches!(item.kind, Kind::Object(_)) {
        return Err(json_err(line, None, "each key must be an object"));
    }
    let key = item
        .get("key")
        .and_then(json_to_bytes)
        .ok_or_else(|| json_err(line, None, "\"key\" missing or not a byte string"))?;
    let label = key_label(&key);
    let err = |line: usize, m: String| json_err(line, Some(&label), m);
    let db = match item.get("db").map(|d| &d.kind) {
        None => 0,
        Some(Kind::Number(n)) => n
            .parse::<usize>()
            .ok()
            .filter(|&d| d < super::NUM_DBS)
            .ok_or_else(|| err(line, format!("\"db\" must be 0 to {}", super::NUM_DBS - 1)))?,
        Some(_) => return Err(err(line, "\"db\" must be a number".into())),
    };
    let expire_at = match item.get("expire_at_ms") {
        None => None,
        Some(v) => match &v.kind {
            Kind::Null => None,
            Kind::Number(n) => Some(n.parse::<i64>().map_err(|_| {
                err(
                    v.line,
                    "\"expire_at_ms\" must be whole Unix milliseconds".into(),
                )
            })?),
            _ => return Err(err(v.line, "\"expire_at_ms\" must be a number".into())),
        },
    };
    let Some(Kind::Str(ty)) = item.get("type").map(|t| &t.kind) else {
        return Err(err(line, "\"type\" missing or not a string".into()));
    };
    let value = item
        .get("value")
        .ok_or_else(|| err(line, "\"value\" missing".into()))?;
    let vline = value.line;
    let ty = String::from_utf8_lossy(ty).into_owned();
    let items = || match &value.kind {
        Kind::Array(a) if !a.is_empty() => Ok(a),
        Kind::Array(_) => Err(err(vline, format!("a {ty} value must not be empty"))),
        _ => Err(err(vline, format!("a {ty} value must be an array"))),
    };
    let bytes = |v: &super::json::Json| {
        json_to_bytes(v).ok_or_else(|| {
            err(
                v.line,
                format!("expected a byte string, found {}", v.type_name()),
            )
        })
    };
    fn two(v: &super::json::Json) -> Option<(&super::json::Json, &super::json::Json)> {
        match &v.kind {
            Kind::Array(p) if p.len() == 2 => Some((p.first()?, p.get(1)?)),
            _ => None,
        }
    }
    let pair =
        |v| two(v).ok_or_else(|| err(v.line, format!("a {ty} element must be a pair [a, b]")));
    let value = match ty.as_str() {
        "string" => Value::Str(StrValue::new(bytes(value)?)),
        "list" => Value::List(items()?.iter().map(bytes).collect::<Result<_, _>>()?),
        "set" => Value::Set(
            items()?
                .iter()
                .map(bytes)
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .collect::<SetValue>(),
        ),
        "zset" => {
            let mut z = ZSet::new();
            for p in items()? {
                let (m, s) = pair(p)?;
                let score = match &s.kind {
                    Kind::Number(n) => n.parse::<f64>().ok(),
                    Kind::Str(t) if t == b"inf" => Some(f64::INFINITY),
                    Kind::Str(t) if t == b"-inf" => Some(f64::NEG_INFINITY),
                    _ => None,
                }
                .filter(|s| !s.is_nan())
                .ok_or_else(|| {
                    err(
                        s.line,
                        "a score must be a number, \"inf\" or \"-inf\"".into(),
                    )
                })?;
                z.add(&bytes(m)?, score);
            }
            Value::ZSet(z)
        }
        "hash" => {
            let mut h = HashValue::default();
            for p in items()? {
                let (f, v) = pair(p)?;
                h.insert(bytes(f)?, bytes(v)?, Default::default());
            }
            Value::Hash(h)
        }
        "stream" => {
            let mut commands = Vec::new();
            for c in items()? {
                let Kind::Array(words) = &c.kind else {
                    return Err(err(c.line, "a stream value is an array of commands".into()));
                };
                commands.push(words.iter().map(bytes).collect::<Result<Vec<_>, _>>()?);
            }
            if commands.first().and_then(|c| c.get(1)) != Some(&key) {
                return Err(err(vline, "the stream's commands name another key".into()));
            }
            super::snapshot::stream_from_commands(commands, "stream", now_ms)
                .map_err(|e| err(vline, e.to_string()))?
        }
        other => return Err(err(line, format!("unknown type \"{other}\""))),
    };
    Ok((
        db,
        key,
        super::keyspace::Entry::new(value, expire_at, now_ms),
    ))
}

/// Reads a JSON export ([`to_json`]) and plans its import: every key is checked first, so
/// a malformed file imports nothing (the error names its line and key). Keys whose
/// `expire_at_ms` has passed at `now_ms` are left out, as are keys for which `exists(db,
/// key)` is true. **O(size of the file).**
///
/// # Errors
/// The first problem: bad JSON, not a kvlab export, a newer version, a malformed key, or a
/// key given twice.
pub fn json_plan(
    text: &[u8],
    now_ms: i64,
    exists: impl Fn(usize, &[u8]) -> bool,
) -> Result<JsonPlan, JsonImportError> {
    use super::json::Kind;
    let doc = super::json::parse(text).map_err(|e| json_err(e.line, None, e.message))?;
    let fmt_ok =
        matches!(doc.get("format").map(|f| &f.kind), Some(Kind::Str(f)) if f == b"kvlab-export");
    if !fmt_ok {
        return Err(json_err(
            doc.line,
            None,
            "not a kvlab JSON export (\"format\": \"kvlab-export\" missing)",
        ));
    }
    match doc.get("version").map(|v| &v.kind) {
        Some(Kind::Number(v)) if v == "1" => {}
        Some(Kind::Number(v)) => {
            return Err(json_err(
                doc.line,
                None,
                format!("export version {v} is not supported (this kvlab reads version 1)"),
            ))
        }
        _ => return Err(json_err(doc.line, None, "\"version\" missing")),
    }
    let Some(Kind::Array(items)) = doc.get("keys").map(|k| &k.kind) else {
        return Err(json_err(doc.line, None, "\"keys\" missing or not an array"));
    };
    let mut dbs: Vec<Db> = (0..super::NUM_DBS).map(|_| Db::default()).collect();
    let mut plan = JsonPlan::default();
    for item in items {
        let (db, key, entry) = json_entry(item, now_ms)?;
        let Some(d) = dbs.get_mut(db) else {
            continue;
        };
        if d.get_raw(&key).is_some() {
            return Err(json_err(
                item.line,
                Some(&key_label(&key)),
                format!("the key appears twice in database {db}"),
            ));
        }
        if entry.is_expired_at(now_ms) {
            plan.expired += 1;
        } else if exists(db, &key) {
            plan.existing.push((db, key_label(&key)));
        } else {
            plan.keys += 1;
            d.insert_entry(key, entry);
        }
    }
    plan.commands = to_commands(&dbs, now_ms);
    Ok(plan)
}

/// Imports a JSON export ([`to_json`]) into `engine`: the keys it does not have yet, as
/// commands run by a client of the import's own (so every write produces its effects and
/// is persisted like a typed one). A malformed file changes nothing.
///
/// # Errors
/// See [`json_plan`].
pub fn import_json(engine: &mut Engine, text: &[u8]) -> Result<JsonPlan, JsonImportError> {
    let plan = json_plan(text, engine.now_ms(), |db, key| {
        engine
            .dbs()
            .get(db)
            .and_then(|d| d.get_raw(key))
            .is_some_and(|e| !e.is_expired_at(engine.now_ms()))
    })?;
    let client = engine.connect();
    for argv in &plan.commands {
        engine.execute(client, argv.clone());
    }
    engine.disconnect(client);
    Ok(plan)
}
