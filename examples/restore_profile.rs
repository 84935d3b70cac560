//! Where restore time goes, on the host: encode then decode a snapshot of 100,000 mixed
//! keys (the shape of `bench/persist.sh`), timing each step. `cargo run --release --example
//! restore_profile`.

use std::time::Instant;

use kvlab::engine::snapshot::{decode_snapshot, encode_snapshot, install, recover};
use kvlab::engine::{Engine, SystemClock};

fn main() {
    let mut e = Engine::new(Box::new(SystemClock), 1);
    let c = e.connect();
    let mut rng = fastrand::Rng::with_seed(1);
    for i in 0..100_000 {
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
        e.execute(c, cmd.into_iter().map(String::into_bytes).collect());
    }
    e.take_effects();
    let now = e.now_ms();
    for round in 0..3 {
        let t = Instant::now();
        let bytes = encode_snapshot(e.dbs(), 0, now);
        let enc = t.elapsed();
        let t = Instant::now();
        let d = decode_snapshot(&bytes).unwrap();
        let dec = t.elapsed();
        drop(d);
        let t = Instant::now();
        let r = recover(Some(&bytes), &[], now).unwrap();
        let rec = t.elapsed();
        let t = Instant::now();
        let mut e2 = Engine::new(Box::new(SystemClock), 2);
        install(&mut e2, r.dbs);
        let inst = t.elapsed();
        let t = Instant::now();
        drop(e2);
        let free = t.elapsed();
        println!(
            "round {round}: {} bytes; encode {enc:?}, decode {dec:?}, recover {rec:?}, install {inst:?}, drop {free:?}",
            bytes.len()
        );
    }
}
