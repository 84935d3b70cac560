//! Browser tests of the storage layer (`src/persist`) against Chromium's real IndexedDB:
//! `cargo test --target wasm32-unknown-unknown --test wasm_persist`.
//!
//! The ignored test `bench_persist_100k_mixed_keys` is the persistence benchmark; run it in
//! release with `bash bench/persist.sh` (it prints its figures to the console).
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;
use std::rc::Rc;

use kvlab::engine::keyspace::Db;
use kvlab::engine::snapshot::{canonical_dump, data_dump, install};
use kvlab::engine::types::Value;
use kvlab::engine::{Engine, FnClock, Reply};
use kvlab::persist::{self, Mode};
use wasm_bindgen_test::{console_log, wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn engine() -> Rc<RefCell<Engine>> {
    Rc::new(RefCell::new(Engine::new(
        Box::new(FnClock::wall(js_sys::Date::now)),
        7,
    )))
}

fn argv(line: &str) -> Vec<Vec<u8>> {
    kvlab::engine::cli::split_args(line).expect("balanced")
}

/// Runs `line` and hands its effects to the persister, as the UI hook does.
fn run(e: &Rc<RefCell<Engine>>, p: &persist::Persister, line: &str) {
    let mut e = e.borrow_mut();
    let c = e.connect();
    e.execute(c, argv(line));
    let now = e.now_ms();
    p.record(e.take_effects(), now);
}

fn unique(name: &str) -> String {
    format!("{name}-{}", js_sys::Math::random())
}

#[wasm_bindgen_test]
async fn writes_come_back_after_reopening_and_after_a_compaction() {
    let ws = unique("roundtrip");
    let (p, dbs, _) = persist::open(&ws).await;
    assert_eq!(p.status().mode, Mode::Saved);
    assert!(dbs.iter().all(|d| d.is_empty()));
    let e = engine();
    install(&mut e.borrow_mut(), dbs);
    p.attach(&e);
    run(&e, &p, "SET a 1");
    run(&e, &p, "RPUSH l x y z");
    run(&e, &p, "ZADD z 1 a 2 b");
    p.flushed().await;
    assert!(p.status().appended >= 1);
    assert!(p.compact().await.is_some());
    run(&e, &p, "HSET h f v");
    run(&e, &p, "INCR a");
    p.close().await;

    let (p2, dbs, _) = persist::open(&ws).await;
    assert_eq!(
        p2.status().mode,
        Mode::Saved,
        "the lock was released by close()"
    );
    assert!(p2.status().snapshot_bytes > 0);
    assert_eq!(canonical_dump(&dbs), canonical_dump(e.borrow().dbs()));
    p2.close().await;
    persist::delete_workspace(&ws).await.unwrap();
}

#[wasm_bindgen_test]
async fn scripts_come_back_after_reopening_and_a_flush_forgets_them() {
    use kvlab::app::engine::{EngineService, ScriptChange};
    let ws = unique("scripts");
    let (p, _, _) = persist::open(&ws).await;
    assert!(p.take_scripts().is_empty());
    // The engine service reports each change of the script cache; the persister stores it,
    // with a write of the same moment or on its own, pending until committed.
    let service = EngineService::new(Engine::new(Box::new(FnClock::wall(js_sys::Date::now)), 7));
    let q = p.clone();
    service.observe_scripts(Rc::new(move |c: &ScriptChange| q.record_scripts(c)));
    let q = p.clone();
    service.observe(Rc::new(move |e: &[kvlab::engine::Effect]| {
        q.record(e.to_vec(), js_sys::Date::now() as i64)
    }));
    let c = service.connect();
    service.submit(c, argv("SCRIPT LOAD \"return 'one'\""));
    assert!(
        p.status().pending,
        "a loaded script is pending until committed"
    );
    service.submit(c, argv("EVAL \"redis.call('SET', 'k', 'v') return 2\" 0"));
    p.flushed().await;
    assert!(!p.status().pending);
    p.close().await;

    let (p, dbs, _) = persist::open(&ws).await;
    let mut bodies = p.take_scripts();
    bodies.sort();
    assert_eq!(
        bodies,
        vec![
            b"redis.call('SET', 'k', 'v') return 2".to_vec(),
            b"return 'one'".to_vec()
        ]
    );
    assert_eq!(dbs[0].len(), 1, "the script's write is in the log too");
    // Put back, they run by SHA-1; a flush deletes them from storage too.
    let service = EngineService::new(Engine::new(Box::new(FnClock::wall(js_sys::Date::now)), 7));
    assert_eq!(service.restore_scripts(&bodies), 2);
    let q = p.clone();
    service.observe_scripts(Rc::new(move |c: &ScriptChange| q.record_scripts(c)));
    let c = service.connect();
    let sha = kvlab::engine::scripting::sha1hex(b"return 'one'");
    let out = service.submit(c, argv(&format!("EVALSHA {sha} 0")));
    assert_eq!(
        out.output_of(c).collect::<Vec<_>>(),
        [&Reply::Bulk(b"one".to_vec())]
    );
    service.submit(c, argv("SCRIPT FLUSH"));
    service.submit(c, argv("SCRIPT LOAD \"return 'after'\""));
    p.flushed().await;
    p.close().await;
    let (p, _, _) = persist::open(&ws).await;
    assert_eq!(p.take_scripts(), vec![b"return 'after'".to_vec()]);
    p.close().await;
    persist::delete_workspace(&ws).await.unwrap();
}

#[wasm_bindgen_test]
async fn a_second_opener_of_a_held_workspace_reads_but_does_not_write() {
    let ws = unique("held");
    let (p, dbs, _) = persist::open(&ws).await;
    let e = engine();
    install(&mut e.borrow_mut(), dbs);
    p.attach(&e);
    run(&e, &p, "SET owner first");
    p.flushed().await;
    let (q, dbs, _) = persist::open(&ws).await;
    assert_eq!(q.status().mode, Mode::OtherTab);
    assert_eq!(dbs[0].len(), 1);
    assert!(!q.is_saving());
    p.close().await;
    q.close().await;
    persist::delete_workspace(&ws).await.unwrap();
}

#[wasm_bindgen_test]
async fn workspaces_are_listed_and_deleted() {
    let ws = unique("listed");
    let (p, _, _) = persist::open(&ws).await;
    p.close().await;
    assert!(persist::list_workspaces().await.contains(&ws));
    persist::delete_workspace(&ws).await.unwrap();
    assert!(!persist::list_workspaces().await.contains(&ws));
}

/// Issue 18: a sorted set of 1,000,000 members (scores in order, random and tied; a fifth
/// of the members long enough to be stored out of line) comes back from IndexedDB with
/// every member and score: first from the effect log alone, then from a snapshot.
#[wasm_bindgen_test]
async fn a_million_member_sorted_set_survives_the_log_and_a_snapshot() {
    const MEMBERS: usize = 1_000_000;
    let ws = unique("zset-1m");
    let (p, dbs, _) = persist::open(&ws).await;
    let e = engine();
    install(&mut e.borrow_mut(), dbs);
    p.attach(&e);
    let t0 = perf_now();
    {
        let mut en = e.borrow_mut();
        let c = en.connect();
        let mut rng = fastrand::Rng::with_seed(18);
        for s in (0..MEMBERS).step_by(1000) {
            let mut argv = vec![b"ZADD".to_vec(), b"z".to_vec()];
            for i in s..s + 1000 {
                let score = match i % 3 {
                    0 => i as f64,
                    1 => rng.f64() * 1e6,
                    _ => (i % 64) as f64,
                };
                argv.push(format!("{score:?}").into_bytes());
                argv.push(if i % 5 == 0 {
                    format!("a member long enough to be stored out of line {i}").into_bytes()
                } else {
                    format!("m{i}").into_bytes()
                });
            }
            assert_eq!(en.execute(c, argv), Reply::Integer(1000));
        }
        let now = en.now_ms();
        p.record(en.take_effects(), now);
    }
    p.flushed().await;
    p.close().await;
    let built_ms = perf_now() - t0;
    let same_set = |restored: &[Db]| {
        let got = restored[0].get_raw(b"z").map(|entry| &entry.value);
        let want = e.borrow().dbs()[0]
            .get_raw(b"z")
            .map(|entry| entry.value.clone());
        let (Some(Value::ZSet(got)), Some(Value::ZSet(want))) = (got, want) else {
            panic!("z is not a sorted set after the restore");
        };
        assert_eq!(got.len(), MEMBERS);
        got.check_invariants().unwrap();
        assert!(*got == want, "members or scores differ after the restore");
    };

    let t0 = perf_now();
    let (p2, dbs, _) = persist::open(&ws).await;
    let from_log_ms = perf_now() - t0;
    same_set(&dbs);
    let e2 = engine();
    install(&mut e2.borrow_mut(), dbs);
    p2.attach(&e2);
    assert!(p2.compact().await.is_some());
    let snapshot_bytes = p2.status().snapshot_bytes;
    p2.close().await;

    let t0 = perf_now();
    let (p3, dbs, _) = persist::open(&ws).await;
    let from_snapshot_ms = perf_now() - t0;
    same_set(&dbs);
    p3.close().await;
    persist::delete_workspace(&ws).await.unwrap();
    console_log!(
        "1M-member sorted set: built and logged in {built_ms:.0} ms, restored from the log in \
         {from_log_ms:.0} ms, from a snapshot of {snapshot_bytes} bytes in {from_snapshot_ms:.0} ms"
    );
}

fn perf_now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

/// Restore and snapshot of 100,000 keys of mixed types, the latency a write sees from
/// persistence, and stored bytes per key. Run in release: `bash bench/persist.sh`.
#[wasm_bindgen_test]
#[ignore]
async fn bench_persist_100k_mixed_keys() {
    const KEYS: usize = 100_000;
    let ws = unique("bench");
    let (p, dbs, _) = persist::open(&ws).await;
    let e = engine();
    install(&mut e.borrow_mut(), dbs);
    p.attach(&e);
    // 60% strings, 10% each lists, sets, sorted sets and hashes of 1–8 elements.
    let mut payload = 0usize;
    {
        let mut en = e.borrow_mut();
        let c = en.connect();
        let mut rng = fastrand::Rng::with_seed(1);
        for i in 0..KEYS {
            let key = format!("key:{i:06}");
            let n = rng.usize(1..=8);
            let cmd: Vec<String> = match i % 10 {
                0 => (0..n).fold(vec!["RPUSH".into(), key.clone()], |mut v, j| {
                    v.push(format!("item-{j}"));
                    v
                }),
                1 => (0..n).fold(vec!["SADD".into(), key.clone()], |mut v, j| {
                    v.push(format!("m{}", rng.u32(..1000) + j as u32));
                    v
                }),
                2 => (0..n).fold(vec!["ZADD".into(), key.clone()], |mut v, j| {
                    v.push(format!("{}", rng.f64() * 100.0));
                    v.push(format!("member-{j}"));
                    v
                }),
                3 => (0..n).fold(vec!["HSET".into(), key.clone()], |mut v, j| {
                    v.push(format!("field{j}"));
                    v.push(format!("value-{}", rng.u32(..100_000)));
                    v
                }),
                _ => vec![
                    "SET".into(),
                    key.clone(),
                    format!("value-{}", rng.u64(..u64::MAX)),
                ],
            };
            payload += cmd.iter().skip(1).map(String::len).sum::<usize>();
            en.execute(c, cmd.into_iter().map(String::into_bytes).collect());
        }
        en.take_effects();
    }
    console_log!("persist bench: dataset built");
    let t0 = perf_now();
    assert!(p.compact().await.is_some());
    let snapshot_total_ms = perf_now() - t0;
    let s = p.status();
    let snapshot_bytes = s.snapshot_bytes;
    let encode_ms = s.snapshot_encode_ms;

    console_log!("persist bench: snapshot {snapshot_total_ms:.0} ms");
    // Write latency: one SET at a time, from the command to its commit.
    let mut commit = Vec::new();
    let mut exec = Vec::new();
    for i in 0..100 {
        let t = perf_now();
        run(&e, &p, &format!("SET lat:{i} v{i}"));
        exec.push(perf_now() - t);
        p.flushed().await;
        commit.push(p.status().last_commit_ms);
    }
    commit.sort_by(f64::total_cmp);
    exec.sort_by(f64::total_cmp);
    p.close().await;

    let t0 = perf_now();
    let (p2, dbs, _) = persist::open(&ws).await;
    let e2 = engine();
    install(&mut e2.borrow_mut(), dbs);
    let restore_ms = perf_now() - t0;
    assert_eq!(data_dump(e2.borrow().dbs()), data_dump(e.borrow().dbs()));
    p2.close().await;
    persist::delete_workspace(&ws).await.unwrap();

    console_log!(
        "persist bench: {KEYS} mixed keys; snapshot {:.0} ms (encode {:.0} ms on the page + IndexedDB commit), \
         restore {:.0} ms (read + decode + replay {:.0} ms + install); snapshot {} bytes = {:.1} bytes/key \
         vs {:.1} bytes/key of keys+values; write: record() p50 {:.3} ms, commit p50 {:.1} ms p95 {:.1} ms max {:.1} ms",
        snapshot_total_ms,
        encode_ms,
        restore_ms,
        p2.status().restore_ms,
        snapshot_bytes,
        snapshot_bytes as f64 / KEYS as f64,
        payload as f64 / KEYS as f64,
        exec[exec.len() / 2],
        commit[commit.len() / 2],
        commit[commit.len() * 95 / 100],
        commit[commit.len() - 1],
    );
}
