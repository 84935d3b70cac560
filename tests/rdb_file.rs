//! `dump.rdb` files against a real redis-server 7.0, both ways, key by key with TTLs:
//!
//! * kvlab → Redis: a random dataset (the differential test's generators, run on the
//!   engine) is saved with `SAVE` through a storage that writes files; redis-server is
//!   started on that file (`--dir`, `--dbfilename`) and every key is compared.
//! * Redis → kvlab: the same generators run on redis-server, `SAVE`, and the engine loads
//!   the file; then every key is compared.
//! * Redis's own old-format files (tests/data/rdb/*.rdb, copied from Redis 7.0's
//!   tests/assets: ziplists, zipmaps, quicklists, intsets of RDB 6-9) load into kvlab as
//!   they load into redis-server.
//! * Damaged files (cut, bit flips, random bytes written over) never panic the loader and
//!   never change the engine's dataset; with the checksum on, a flipped bit is always found.
//!
//! Skipped with a message when redis-server is not installed.
#![cfg(not(target_arch = "wasm32"))]

#[allow(dead_code)]
#[path = "differential/gen.rs"]
mod gen;
mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kvlab::engine::core::persist::Storage;
use kvlab::engine::{ClientId, Engine, ManualClock, Reply, SystemClock};
use support::process;
use support::resp::{parse_bytes, RespClient};

fn redis_installed() -> bool {
    std::process::Command::new("redis-server")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn argv(words: &[&[u8]]) -> Vec<Vec<u8>> {
    words.iter().map(|w| w.to_vec()).collect()
}

/// A storage that writes plain files (the test's own, so the engine's is tested apart
/// from kvlab-server's; the server's is exercised in `kvlab_server_saves_and_loads`).
struct Files;

impl Storage for Files {
    fn write(&mut self, dir: &str, name: &str, bytes: &[u8]) -> Result<(), String> {
        std::fs::write(Path::new(dir).join(name), bytes).map_err(|e| e.to_string())
    }
    fn write_background(&mut self, dir: &str, name: &str, bytes: Vec<u8>) -> Result<(), String> {
        self.write(dir, name, &bytes)
    }
    fn poll(&mut self) -> Option<Result<(), String>> {
        Some(Ok(()))
    }
    fn cancel(&mut self) {}
    fn read(&mut self, dir: &str, name: &str) -> Result<Option<Vec<u8>>, String> {
        Ok(std::fs::read(Path::new(dir).join(name)).ok())
    }
}

/// One side of a comparison.
trait Side {
    fn call(&mut self, argv: &[Vec<u8>]) -> Reply;
}

impl Side for RespClient {
    fn call(&mut self, argv: &[Vec<u8>]) -> Reply {
        RespClient::call(self, argv).expect("redis replies")
    }
}

struct Local(Engine, ClientId);

impl Side for Local {
    fn call(&mut self, argv: &[Vec<u8>]) -> Reply {
        let r = self.0.execute(self.1, argv.to_vec());
        parse_bytes(&r.to_resp(2)).expect("engine reply survives RESP2")
    }
}

fn text(r: &Reply) -> String {
    kvlab::engine::cli::format_reply(r)
}

fn items(r: Reply) -> Vec<Reply> {
    match r {
        Reply::Array(v) | Reply::Set(v) => v,
        other => vec![other],
    }
}

/// Every key of the 16 databases: (db, key) → (type, its value in a canonical text,
/// whether it has a TTL, the PTTL).
type Dump = BTreeMap<(usize, Vec<u8>), (String, String, i64)>;

fn dump(side: &mut dyn Side) -> Dump {
    let mut out = Dump::new();
    for db in 0..16 {
        side.call(&argv(&[b"SELECT", db.to_string().as_bytes()]));
        let keys = items(side.call(&argv(&[b"KEYS", b"*"])));
        for k in keys {
            let Reply::Bulk(key) = k else { continue };
            let ty = text(&side.call(&argv(&[b"TYPE", &key])));
            let read = |side: &mut dyn Side, words: &[&[u8]]| side.call(&argv(words));
            let value = match ty.as_str() {
                "string" => text(&read(side, &[b"GET", &key])),
                "list" => text(&read(side, &[b"LRANGE", &key, b"0", b"-1"])),
                "set" => {
                    let mut m: Vec<String> = items(read(side, &[b"SMEMBERS", &key]))
                        .iter()
                        .map(text)
                        .collect();
                    m.sort();
                    m.join("\n")
                }
                "zset" => text(&read(side, &[b"ZRANGE", &key, b"0", b"-1", b"WITHSCORES"])),
                "hash" => {
                    let flat = items(read(side, &[b"HGETALL", &key]));
                    let mut pairs: Vec<String> = flat
                        .chunks(2)
                        .map(|p| p.iter().map(text).collect::<Vec<_>>().join(" => "))
                        .collect();
                    pairs.sort();
                    pairs.join("\n")
                }
                "stream" => {
                    let entries = text(&read(side, &[b"XRANGE", &key, b"-", b"+"]));
                    let groups = text(&read(side, &[b"XINFO", b"GROUPS", &key]));
                    let info = items(read(side, &[b"XINFO", b"STREAM", &key]));
                    // last-generated-id, max-deleted-entry-id, entries-added.
                    let mut meta = Vec::new();
                    for pair in info.chunks(2) {
                        let name = text(&pair[0]);
                        if ["last-generated-id", "max-deleted-entry-id", "entries-added"]
                            .iter()
                            .any(|n| name.contains(n))
                        {
                            meta.push(format!("{name}={}", text(&pair[1])));
                        }
                    }
                    format!("{entries}\n{groups}\n{}", meta.join(" "))
                }
                other => panic!("unexpected type {other}"),
            };
            let pttl = match side.call(&argv(&[b"PTTL", &key])) {
                Reply::Integer(n) => n,
                other => panic!("PTTL gave {other:?}"),
            };
            out.insert((db, key), (ty, value, pttl));
        }
    }
    side.call(&argv(&[b"SELECT", b"0"]));
    out
}

/// Compares two dumps: same keys, types, values; TTLs both absent or within 5 s.
fn compare(what: &str, a: &Dump, b: &Dump) {
    let ka: Vec<_> = a.keys().collect();
    let kb: Vec<_> = b.keys().collect();
    assert_eq!(ka, kb, "{what}: the key sets differ");
    for (k, (ta, va, pa)) in a {
        let (tb, vb, pb) = &b[k];
        let name = String::from_utf8_lossy(&k.1);
        assert_eq!(ta, tb, "{what}: type of {name} in db {}", k.0);
        assert_eq!(va, vb, "{what}: value of {name} (a {ta}) in db {}", k.0);
        let close = (*pa < 0 && pa == pb) || (*pa >= 0 && *pb >= 0 && (pa - pb).abs() < 5000);
        assert!(close, "{what}: PTTL of {name}: {pa} vs {pb}");
    }
}

/// Rows that don't make data or that need more than one connection.
fn usable(row: &gen::Row) -> bool {
    !matches!(
        row.name,
        "_watch" | "xread" | "xreadgroup" | "_unknown command" | "eval" | "eval_ro" | "evalsha"
    )
}

/// Runs `n` random commands of the differential generators on `side`.
fn populate(side: &mut dyn Side, seed: u64, n: usize) {
    let base = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0);
    let mut g = gen::G::new(seed, base);
    let rows: Vec<&gen::Row> = gen::ROWS.iter().filter(|r| usable(r)).collect();
    let total: u32 = rows.iter().map(|r| r.weight).sum();
    for _ in 0..n {
        let mut pick = g.rng.u32(0..total);
        let row = rows
            .iter()
            .find(|r| {
                if pick < r.weight {
                    true
                } else {
                    pick -= r.weight;
                    false
                }
            })
            .expect("a row");
        let cmd = (row.gen)(&mut g);
        side.call(&cmd.argv);
    }
    // A database other than 0, and a large compressible value, in every run.
    side.call(&argv(&[b"SELECT", b"5"]));
    side.call(&argv(&[b"SET", b"big", &[b'z'; 5000]]));
    side.call(&argv(&[b"SET", b"ttl", b"v", b"EX", b"100000"]));
    side.call(&argv(&[b"SELECT", b"0"]));
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kvlab-rdb-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn engine_on(dir: &Path, name: &str) -> Local {
    let mut e = Engine::new(Box::new(SystemClock), 7);
    e.configure("dir", &dir.to_string_lossy()).expect("dir");
    e.configure("dbfilename", name).expect("dbfilename");
    e.set_storage(Box::new(Files));
    let id = e.connect();
    Local(e, id)
}

fn seeds() -> Vec<u64> {
    std::env::var("KVLAB_RDB_SEEDS")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1, 2, 3])
}

#[test]
fn kvlab_saves_what_redis_loads() {
    if !redis_installed() {
        eprintln!("note: redis-server is not installed; skipped");
        return;
    }
    for seed in seeds() {
        let dir = scratch(&format!("out{seed}"));
        let mut k = engine_on(&dir, "dump.rdb");
        populate(&mut k, seed, 3000);
        assert_eq!(text(&k.call(&argv(&[b"SAVE"]))), "OK", "seed {seed}: SAVE");
        let want = dump(&mut k);
        assert!(want.len() > 20, "seed {seed}: a dataset worth comparing");
        let d = dir.to_string_lossy().into_owned();
        let guard = process::redis_server(&["--dir", &d, "--dbfilename", "dump.rdb"]);
        let mut r = guard.client();
        let got = dump(&mut r);
        compare(&format!("seed {seed}: kvlab → redis"), &want, &got);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn kvlab_loads_what_redis_saves() {
    if !redis_installed() {
        eprintln!("note: redis-server is not installed; skipped");
        return;
    }
    for seed in seeds() {
        let dir = scratch(&format!("in{seed}"));
        let d = dir.to_string_lossy().into_owned();
        let guard = process::redis_server(&["--dir", &d, "--dbfilename", "dump.rdb"]);
        let mut r = guard.client();
        populate(&mut r, seed + 100, 3000);
        assert_eq!(text(&Side::call(&mut r, &argv(&[b"SAVE"]))), "OK");
        let want = dump(&mut r);
        let bytes = std::fs::read(dir.join("dump.rdb")).expect("redis wrote dump.rdb");
        let mut k = engine_on(&dir, "dump.rdb");
        k.0.load_rdb(bytes)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let got = dump(&mut k);
        compare(&format!("seed {seed}: redis → kvlab"), &want, &got);
        // And back: what kvlab saves of it, Redis reads the same.
        assert_eq!(text(&k.call(&argv(&[b"SAVE"]))), "OK");
        drop(guard);
        let guard = process::redis_server(&["--dir", &d, "--dbfilename", "dump.rdb"]);
        let mut r = guard.client();
        compare(
            &format!("seed {seed}: redis → kvlab → redis"),
            &want,
            &dump(&mut r),
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

fn assets() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/rdb");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/data/rdb")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rdb"))
        .collect();
    files.sort();
    files
}

/// Redis's test files load into kvlab as into redis-server (or are refused by both).
#[test]
fn redis_test_assets_load_as_in_redis() {
    if !redis_installed() {
        eprintln!("note: redis-server is not installed; skipped");
        return;
    }
    for path in assets() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let dir = scratch(&format!("asset-{name}"));
        std::fs::copy(&path, dir.join(&name)).expect("copy");
        let d = dir.to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).expect("asset");
        let mut k = engine_on(&dir, &name);
        let loaded = k.0.load_rdb(bytes);
        let started = process::start(
            "redis-server",
            "redis-server",
            &[
                "--port",
                "{port}",
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--dir",
                &d,
                "--dbfilename",
                &name,
                "--daemonize",
                "no",
            ],
            false,
        );
        match (loaded, started) {
            (Ok(()), Ok(guard)) => {
                let mut r = guard.client();
                compare(
                    &format!("{name}: redis vs kvlab"),
                    &dump(&mut r),
                    &dump(&mut k),
                );
                eprintln!("{name}: loaded the same");
            }
            (Err(e), Err(_)) => eprintln!("{name}: refused by both: {e}"),
            (Ok(()), Err(e)) => panic!("{name}: kvlab loaded what redis refused: {e:?}"),
            (Err(e), Ok(_)) => panic!("{name}: kvlab refused what redis loads: {e}"),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Damage never panics, never loads half a file, and with the checksum on a bit flip is
/// always found.
#[test]
fn damaged_files_are_refused_whole() {
    use kvlab::engine::rdb::file::{load_file, LoadFileOptions};
    use kvlab::engine::rdb::read::LoadOptions;
    let mut files: Vec<Vec<u8>> = assets()
        .iter()
        .map(|p| std::fs::read(p).expect("asset"))
        .collect();
    // And one kvlab writes, of every type the generators make.
    let dir = scratch("fuzz");
    let mut k = engine_on(&dir, "dump.rdb");
    populate(&mut k, 9, 1500);
    assert_eq!(text(&k.call(&argv(&[b"SAVE"]))), "OK");
    files.push(std::fs::read(dir.join("dump.rdb")).expect("saved"));
    let _ = std::fs::remove_dir_all(&dir);

    let mut rng = fastrand::Rng::with_seed(21);
    let opts = |checksum| LoadFileOptions {
        checksum,
        now_ms: 1_700_000_000_000,
        values: LoadOptions::default(),
    };
    let mut tried = 0;
    for f in &files {
        let checked = load_file(f.clone(), opts(true)).is_ok_and(|d| !d.unchecked);
        for _ in 0..400 {
            let mut bad = f.clone();
            let kind = rng.u8(0..3);
            match kind {
                0 => bad.truncate(rng.usize(0..f.len())),
                1 => {
                    let i = rng.usize(9..f.len());
                    bad[i] ^= 1 << rng.u8(0..8);
                }
                _ => {
                    let i = rng.usize(9..f.len());
                    let n = rng.usize(1..16).min(f.len() - i);
                    for b in &mut bad[i..i + n] {
                        *b = rng.u8(..);
                    }
                }
            }
            if bad == *f {
                continue;
            }
            tried += 1;
            let strict = load_file(bad.clone(), opts(true));
            if checked && kind != 0 {
                assert!(strict.is_err(), "a damaged file with a checksum loaded");
            }
            if kind == 0 {
                assert!(strict.is_err(), "a cut file loaded");
            }
            let _ = load_file(bad.clone(), opts(false));
            // The engine keeps its dataset when a load fails.
            let mut e = Engine::new(Box::new(ManualClock::at_ms(1_700_000_000_000)), 1);
            let id = e.connect();
            e.execute(id, argv(&[b"SET", b"keep", b"me"]));
            if e.load_rdb(bad).is_err() {
                assert_eq!(
                    e.execute(id, argv(&[b"DBSIZE"])),
                    Reply::Integer(1),
                    "a failed load changed the dataset"
                );
            }
        }
    }
    assert!(tried > 1000);
}

/// kvlab-server itself: `--dir`/`--dbfilename`, `SAVE` and `SHUTDOWN` write the file
/// (through its temporary file), the next start loads it.
#[test]
fn kvlab_server_saves_and_loads() {
    let bin = env!("CARGO_BIN_EXE_kvlab-server");
    let dir = scratch("server");
    let d = dir.to_string_lossy().into_owned();
    let args = |extra: &[&str]| {
        let mut a = vec!["--bind", "127.0.0.1", "--port", "{port}", "--dir", &d];
        a.extend_from_slice(extra);
        a.iter().map(|s| s.to_string()).collect::<Vec<String>>()
    };
    let start = |extra: &[&str]| {
        let a = args(extra);
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        process::start("kvlab-server", bin, &refs, true).expect("kvlab-server starts")
    };
    let mut s = start(&["--dbfilename", "k.rdb"]);
    let mut c = s.client();
    c.call(&argv(&[b"SET", b"a", b"1"])).unwrap();
    c.call(&argv(&[b"RPUSH", b"l", b"x", b"y"])).unwrap();
    c.call(&argv(&[b"SET", b"t", b"v", b"PX", b"100000000"]))
        .unwrap();
    assert_eq!(text(&c.call(&argv(&[b"SAVE"])).unwrap()), "OK");
    assert!(dir.join("k.rdb").exists());
    let lastsave = c.call(&argv(&[b"LASTSAVE"])).unwrap();
    assert!(matches!(lastsave, Reply::Integer(n) if n > 1_600_000_000));
    c.call(&argv(&[b"SET", b"b", b"2"])).unwrap();
    assert_eq!(
        text(&c.call(&argv(&[b"BGSAVE"])).unwrap()),
        "Background saving started"
    );
    let mut done = false;
    for _ in 0..100 {
        let info = text(&c.call(&argv(&[b"INFO", b"persistence"])).unwrap());
        if info.contains("rdb_bgsave_in_progress:0") && info.contains("rdb_saves:2") {
            assert!(info.contains("rdb_changes_since_last_save:0"), "{info}");
            assert!(info.contains("rdb_last_bgsave_status:ok"), "{info}");
            done = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(done, "BGSAVE ended");
    c.call(&argv(&[b"SET", b"c", b"3"])).unwrap();
    // SHUTDOWN saves (the default save points are set), and the client gets no reply.
    assert!(c.call(&argv(&[b"SHUTDOWN"])).is_err());
    for _ in 0..100 {
        if !s.is_running() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(!s.is_running(), "SHUTDOWN stopped the server");
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("temp-"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    let s = start(&["--dbfilename", "k.rdb"]);
    let mut c = s.client();
    assert_eq!(c.call(&argv(&[b"DBSIZE"])).unwrap(), Reply::Integer(5));
    assert_eq!(
        text(&c.call(&argv(&[b"LRANGE", b"l", b"0", b"-1"])).unwrap()),
        "1) \"x\"\n2) \"y\""
    );
    let info = text(&c.call(&argv(&[b"INFO", b"persistence"])).unwrap());
    assert!(info.contains("rdb_last_load_keys_loaded:5"), "{info}");
    drop(s);
    // A damaged file stops the start, naming what is wrong.
    let mut bytes = std::fs::read(dir.join("k.rdb")).unwrap();
    let n = bytes.len();
    bytes[n - 3] ^= 0x40;
    std::fs::write(dir.join("k.rdb"), &bytes).unwrap();
    let a = args(&["--dbfilename", "k.rdb"]);
    let out = std::process::Command::new(bin)
        .args(a.iter().map(|s| s.replace("{port}", "0")))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("wrong RDB checksum"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
