//! DUMP against a real `redis-server` 7.0: the same commands build a value on both sides,
//! then
//!
//! * for the encodings whose bytes the value and the configuration decide (strings,
//!   listpack hashes and sorted sets, skiplist sorted sets, intsets, lists and streams
//!   built by appending) kvlab's payload must equal Redis's byte for byte;
//! * for every value, kvlab's payload is `RESTORE`d into the redis-server (which checks
//!   the listpacks deeply: `sanitize-dump-payload yes`) under a new key, and must read
//!   back as the original there, with the `OBJECT ENCODING` Redis's own payload restores
//!   to (Redis re-encodes some values on load: a hash-table set of integers loads as an
//!   intset, a shrunk hash table as a listpack).
//!
//! Values are read back by type: `GET`, `HGETALL` and `SMEMBERS` sorted, `LRANGE`,
//! `ZRANGE … WITHSCORES`, and for streams `XINFO STREAM key FULL` (entries, node counts,
//! IDs, groups with their PEL and consumers) with the millisecond times blanked, since
//! each side stamps deliveries and seen-times with its own clock.
//!
//! Random values and the timing measurement are in `dump_random.rs`. Run alone with
//! `cargo test --test differential dump::`.

use kvlab::engine::Reply;

#[path = "dump_random.rs"]
mod random;

use super::support::sides::Sides;

/// Both servers, side by side.
struct Pair {
    sides: Sides,
    /// How many payloads were compared byte for byte, and restored.
    exact: usize,
    restored: usize,
}

fn args(line: &[&[u8]]) -> Vec<Vec<u8>> {
    line.iter().map(|a| a.to_vec()).collect()
}

fn words(line: &str) -> Vec<Vec<u8>> {
    line.split_whitespace()
        .map(|w| w.as_bytes().to_vec())
        .collect()
}

fn show(r: &Reply) -> String {
    let s = format!("{r:?}");
    if s.len() > 300 {
        format!("{}… ({} chars)", &s[..300], s.len())
    } else {
        s
    }
}

impl Pair {
    fn start() -> Pair {
        Pair {
            sides: Sides::start(&["--sanitize-dump-payload", "yes"]),
            exact: 0,
            restored: 0,
        }
    }

    fn redis(&mut self, argv: &[Vec<u8>]) -> Reply {
        self.sides.redis(argv)
    }

    fn kvlab(&mut self, argv: &[Vec<u8>]) -> Reply {
        self.sides.kvlab(argv)
    }

    /// Runs a command on both sides; the replies must agree.
    fn run(&mut self, argv: Vec<Vec<u8>>) {
        let r = self.redis(&argv);
        let k = self.kvlab(&argv);
        assert_eq!(
            show(&r),
            show(&k),
            "{:?}",
            String::from_utf8_lossy(&argv.concat())
        );
    }

    fn line(&mut self, line: &str) {
        self.run(words(line));
    }

    fn dumps(&mut self, key: &[u8]) -> (Vec<u8>, Vec<u8>) {
        let argv = args(&[b"DUMP", key]);
        match (self.redis(&argv), self.kvlab(&argv)) {
            (Reply::Bulk(r), Reply::Bulk(k)) => (r, k),
            (r, k) => panic!("DUMP {}: {r:?} / {k:?}", String::from_utf8_lossy(key)),
        }
    }

    /// kvlab's payload of `key` equals Redis's, and restores as the next check says.
    fn exact(&mut self, key: &str) {
        let (r, k) = self.dumps(key.as_bytes());
        assert!(
            r == k,
            "DUMP {key} differs\n redis: {}\n kvlab: {}",
            hex(&r),
            hex(&k)
        );
        self.exact += 1;
        self.restores(key);
    }

    /// kvlab's payload of `key`, restored into Redis, reads back as the original, with the
    /// encoding Redis's own payload restores to.
    fn restores(&mut self, key: &str) {
        let (r, k) = self.dumps(key.as_bytes());
        let ours = format!("{key}:from-kvlab");
        let theirs = format!("{key}:from-redis");
        for (name, payload) in [(&ours, &k), (&theirs, &r)] {
            let argv = args(&[b"RESTORE", name.as_bytes(), b"0", payload, b"REPLACE"]);
            let reply = self.redis(&argv);
            assert_eq!(
                reply,
                Reply::Status("OK".into()),
                "RESTORE {name} of {}",
                hex(payload)
            );
        }
        let want = self.read_back(key);
        let got = self.read_back(&ours);
        assert_eq!(
            show(&want),
            show(&got),
            "{key} restored from kvlab's payload"
        );
        assert_eq!(want, got, "{key} restored from kvlab's payload");
        let enc = |p: &mut Pair, k: &str| p.redis(&words(&format!("OBJECT ENCODING {k}")));
        assert_eq!(
            enc(self, &theirs),
            enc(self, &ours),
            "encoding of restored {key}"
        );
        self.restored += 1;
        let del = words(&format!("DEL {ours} {theirs}"));
        self.redis(&del);
    }

    /// The value at `key` on the redis-server, in a form that compares by value.
    fn read_back(&mut self, key: &str) -> Reply {
        let ty = match self.redis(&words(&format!("TYPE {key}"))) {
            Reply::Status(s) => s,
            other => panic!("TYPE {key}: {other:?}"),
        };
        let cmd = match &*ty {
            "string" => "GET",
            "hash" => "HGETALL",
            "list" => "LRANGE",
            "set" => "SMEMBERS",
            "zset" => "ZRANGE",
            "stream" => "XINFO",
            other => panic!("{key} is a {other}"),
        };
        let argv = match cmd {
            "LRANGE" => words(&format!("LRANGE {key} 0 -1")),
            "ZRANGE" => words(&format!("ZRANGE {key} 0 -1 WITHSCORES")),
            "XINFO" => words(&format!("XINFO STREAM {key} FULL COUNT 0")),
            _ => words(&format!("{cmd} {key}")),
        };
        let mut r = self.redis(&argv);
        match cmd {
            "HGETALL" => sort_pairs(&mut r),
            "SMEMBERS" => sort_items(&mut r),
            "XINFO" => blank_times(&mut r),
            _ => {}
        }
        r
    }
}

fn hex(b: &[u8]) -> String {
    let s: String = b.iter().map(|x| format!("{x:02x}")).collect();
    if s.len() > 2000 {
        format!("{}… ({} bytes)", &s[..2000], b.len())
    } else {
        s
    }
}

fn sort_items(r: &mut Reply) {
    if let Reply::Array(xs) = r {
        xs.sort_by_key(|x| format!("{x:?}"));
    }
}

fn sort_pairs(r: &mut Reply) {
    if let Reply::Array(xs) = r {
        let mut pairs: Vec<Vec<Reply>> = xs.chunks(2).map(|c| c.to_vec()).collect();
        pairs.sort_by_key(|p| format!("{p:?}"));
        *xs = pairs.concat();
    }
}

/// Blanks the Unix-millisecond times (deliveries, seen-times) of `XINFO STREAM FULL`.
fn blank_times(r: &mut Reply) {
    match r {
        Reply::Integer(i) if *i > 1_000_000_000_000 => *i = 0,
        Reply::Array(xs) => xs.iter_mut().for_each(blank_times),
        _ => {}
    }
}

fn bytes_line(cmd: &str, key: &str, rest: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut argv = vec![cmd.as_bytes().to_vec(), key.as_bytes().to_vec()];
    argv.extend(rest.iter().cloned());
    argv
}

/// Integers of every listpack width, both signs, and strings that look like integers but
/// are not canonical ones.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "127",
    "128",
    "-1",
    "4095",
    "-4096",
    "4096",
    "32767",
    "-32768",
    "32768",
    "8388607",
    "-8388608",
    "8388608",
    "2147483647",
    "-2147483648",
    "2147483648",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "-0",
    "01",
    "+1",
    " 1",
    "1.0",
];

fn binary() -> Vec<u8> {
    (0..=255u8).chain(0..=255u8).collect()
}

#[test]
fn dump_strings() {
    let mut p = Pair::start();
    for (i, n) in NUMBERS.iter().enumerate() {
        p.run(bytes_line(
            "SET",
            &format!("n{i}"),
            &[n.as_bytes().to_vec()],
        ));
        p.exact(&format!("n{i}"));
    }
    p.line("SET empty ''");
    p.run(args(&[b"SET", b"empty", b""]));
    p.exact("empty");
    p.line("SET short hello");
    p.exact("short");
    p.run(bytes_line("SET", "long", &[vec![b'a'; 100]]));
    p.exact("long");
    p.run(bytes_line("SET", "bin", &[binary()]));
    p.exact("bin");
    p.run(bytes_line("SET", "mixed", &[b"ab".repeat(30)]));
    p.exact("mixed");
    p.line("INCRBYFLOAT float 1.5");
    p.exact("float");
    p.line("INCRBYFLOAT float2 10");
    p.exact("float2");
    p.line("SET app 12");
    p.line("APPEND app 34");
    p.exact("app");
    p.line("SETRANGE range 30 x");
    p.exact("range");
    p.line("INCR counter");
    p.line("INCRBY counter 9999999999");
    p.exact("counter");
    // Without LZF.
    p.line("CONFIG SET rdbcompression no");
    p.exact("long");
    p.exact("mixed");
    p.line("CONFIG SET rdbcompression yes");
    let missing = args(&[b"DUMP", b"missing"]);
    assert_eq!(p.redis(&missing), Reply::Nil);
    assert_eq!(p.kvlab(&missing), Reply::Nil);
    eprintln!("strings: {} exact, {} restored", p.exact, p.restored);
}

#[test]
fn dump_hashes() {
    let mut p = Pair::start();
    let mut argv = vec![];
    for (i, n) in NUMBERS.iter().enumerate() {
        argv.push(n.as_bytes().to_vec());
        argv.push(NUMBERS[NUMBERS.len() - 1 - i].as_bytes().to_vec());
    }
    p.run(bytes_line("HSET", "nums", &argv));
    p.exact("nums");
    p.run(bytes_line(
        "HSET",
        "odd",
        &[
            b"".to_vec(),
            b"".to_vec(),
            b"bin".to_vec(),
            binary()[..64].to_vec(),
            vec![b'k'; 64],
            vec![b'v'; 63],
        ],
    ));
    p.exact("odd");
    // Deletions keep the listpack order; a long listpack is LZF-compressed.
    for i in 0..300 {
        p.line(&format!("HSET big f{i} value-{}", i % 7));
    }
    p.line("HDEL big f0 f150 f299");
    p.line("HSET big f10 changed");
    p.exact("big");
    p.line("CONFIG SET rdbcompression no");
    p.exact("big");
    p.line("CONFIG SET rdbcompression yes");
    // Hash tables: too many fields, a value too long, and one that shrank again.
    for i in 0..600 {
        p.line(&format!("HSET table f{i} {i}"));
    }
    p.restores("table");
    p.run(bytes_line(
        "HSET",
        "longval",
        &[b"f".to_vec(), vec![b'x'; 65]],
    ));
    p.restores("longval");
    for i in 0..600 {
        p.line(&format!("HDEL table f{i}"));
        if i == 590 {
            break;
        }
    }
    p.restores("table");
    eprintln!("hashes: {} exact, {} restored", p.exact, p.restored);
}

#[test]
fn dump_sets() {
    let mut p = Pair::start();
    p.line("SADD small 3 1 2");
    p.exact("small");
    p.line("SADD neg -5 -32768 32767 0");
    p.exact("neg");
    p.line("SADD w32 1 -2147483648 2147483647 40000");
    p.exact("w32");
    p.line("SADD w64 1 9223372036854775807 -9223372036854775808");
    p.exact("w64");
    for i in 0..512 {
        p.line(&format!("SADD full {}", i * 7919 - 1_000_000));
    }
    p.exact("full");
    // Redis keeps an intset's width after its widest member goes: kvlab narrows it, so
    // only the value is compared.
    p.line("SADD shrunk 1 2 5000000000");
    p.line("SREM shrunk 5000000000");
    p.restores("shrunk");
    // Hash tables.
    p.line("SADD strs a b c 1 2");
    p.restores("strs");
    p.run(bytes_line("SADD", "bins", &[binary(), b"".to_vec()]));
    p.restores("bins");
    for i in 0..513 {
        p.line(&format!("SADD many {i}"));
    }
    p.restores("many");
    p.line("SADD back 1 2 x");
    p.line("SREM back x");
    p.restores("back");
    p.line("SADD noncanon 1 01 -0");
    p.restores("noncanon");
    eprintln!("sets: {} exact, {} restored", p.exact, p.restored);
}

#[test]
fn dump_sorted_sets() {
    let mut p = Pair::start();
    let scores = [
        "0",
        "-0",
        "1",
        "-1",
        "127",
        "128",
        "-4096",
        "40000",
        "-9000000",
        "3000000000",
        "4611686018427387904",
        "4611686018427389952",
        "-4611686018427387904",
        "1e300",
        "-1e-300",
        "1.5",
        "0.1",
        "3.141592653589793",
        "inf",
        "-inf",
    ];
    for (i, s) in scores.iter().enumerate() {
        p.line(&format!("ZADD small {s} m{i}"));
    }
    p.exact("small");
    p.run(bytes_line(
        "ZADD",
        "members",
        &[
            b"1".to_vec(),
            b"".to_vec(),
            b"1".to_vec(),
            b"12".to_vec(),
            b"1".to_vec(),
            binary()[..64].to_vec(),
            b"2".to_vec(),
            b"-5".to_vec(),
        ],
    ));
    p.exact("members");
    for i in 0..128 {
        p.line(&format!("ZADD full {} member:{i}", i % 10));
    }
    p.line("ZINCRBY full 0.25 member:3");
    p.line("ZREM full member:77");
    p.exact("full");
    // Skiplists: written greatest first, a deterministic order, so equal bytes too.
    for i in 0..200 {
        p.line(&format!("ZADD sk {} e{i}", (i * 37) % 50));
    }
    p.line("ZADD sk inf top -inf bottom 2.5 mid");
    p.exact("sk");
    p.run(bytes_line(
        "ZADD",
        "longm",
        &[b"1".to_vec(), vec![b'm'; 65]],
    ));
    p.exact("longm");
    p.line("CONFIG SET rdbcompression no");
    p.exact("sk");
    p.exact("full");
    p.line("CONFIG SET rdbcompression yes");
    // A skiplist shrunk to a few members still dumps as one; Redis loads it as a listpack.
    for i in 0..195 {
        p.line(&format!("ZREM sk e{i}"));
    }
    p.exact("sk");
    eprintln!("sorted sets: {} exact, {} restored", p.exact, p.restored);
}

#[test]
fn dump_lists() {
    let mut p = Pair::start();
    let mut argv = vec![b"RPUSH".to_vec(), b"nums".to_vec()];
    argv.extend(NUMBERS.iter().map(|n| n.as_bytes().to_vec()));
    argv.push(b"".to_vec());
    argv.push(binary());
    p.run(argv);
    p.exact("nums");
    // Many 8 KB nodes, elements of mixed sizes, and elements too big to share a node.
    for i in 0..3000 {
        p.line(&format!("RPUSH many item-{i}-{}", "x".repeat(i % 40)));
    }
    p.exact("many");
    for i in 0..6 {
        p.run(bytes_line("RPUSH", "huge", &[vec![b'a' + i; 9000]]));
        p.line(&format!("RPUSH huge small{i}"));
    }
    p.exact("huge");
    p.line("CONFIG SET rdbcompression no");
    p.exact("many");
    p.line("CONFIG SET rdbcompression yes");
    // Other fills, set before the list is made (Redis keeps a list's fill).
    for fill in ["5", "1", "-1", "-5", "0"] {
        p.line(&format!("CONFIG SET list-max-listpack-size {fill}"));
        let key = format!("fill{fill}");
        for i in 0..700 {
            p.line(&format!("RPUSH {key} {i}-{}", "y".repeat(i % 30)));
        }
        p.exact(&key);
    }
    p.line("CONFIG SET list-max-listpack-size -2");
    // Compressed inner nodes, at several depths.
    for depth in ["1", "2", "3"] {
        p.line(&format!("CONFIG SET list-compress-depth {depth}"));
        let key = format!("depth{depth}");
        for i in 0..2500 {
            p.line(&format!("RPUSH {key} compressible-element-{}", i % 100));
        }
        p.exact(&key);
        // Only a few nodes: nothing or little to compress.
        let short = format!("short{depth}");
        for i in 0..(400 * depth.parse::<usize>().unwrap_or(1)) {
            p.line(&format!("RPUSH {short} compressible-element-{}", i % 100));
        }
        p.exact(&short);
    }
    p.line("CONFIG SET list-compress-depth 0");
    // Built at the head or edited: node boundaries follow Redis's history, so only the
    // value is compared.
    for i in 0..2000 {
        p.line(&format!("LPUSH lpushed element-{i}"));
    }
    p.line("LINSERT lpushed BEFORE element-5 inserted");
    p.line("LREM lpushed 0 element-7");
    p.restores("lpushed");
    eprintln!("lists: {} exact, {} restored", p.exact, p.restored);
}

#[test]
fn dump_streams() {
    let mut p = Pair::start();
    p.line("XADD s 1-1 a 1 b 2");
    p.line("XADD s 1-2 a 3 b 4");
    p.line("XADD s 2-0 c 5");
    p.exact("s");
    // Values of every width, binary, empty; IDs far apart (wide deltas).
    for (i, n) in NUMBERS.iter().enumerate() {
        p.line(&format!(
            "XADD s {}-{} f {n} g x",
            1000 + i * 100_000_007,
            i * 3
        ));
    }
    p.run(bytes_line(
        "XADD",
        "s",
        &[
            b"9000000000000-5".to_vec(),
            b"f".to_vec(),
            binary(),
            b"".to_vec(),
            b"".to_vec(),
        ],
    ));
    p.exact("s");
    // Many nodes by entries, by bytes; a trim of whole nodes; XSETID.
    p.line("CONFIG SET stream-node-max-entries 7");
    for i in 1..=100 {
        let fields = if i % 3 == 0 { "x 1 y 2" } else { "x 1 z 3" };
        p.line(&format!("XADD ent {i}-0 {fields}"));
    }
    p.exact("ent");
    p.line("XTRIM ent MAXLEN ~ 50");
    p.exact("ent");
    p.line("XSETID ent 500-0 ENTRIESADDED 1000 MAXDELETEDID 10-0");
    p.exact("ent");
    p.line("CONFIG SET stream-node-max-entries 100");
    p.line("CONFIG SET stream-node-max-bytes 300");
    for i in 1..=60 {
        p.line(&format!(
            "XADD bytes {i}-{i} field value-{i} other {}",
            "q".repeat(i)
        ));
    }
    p.exact("bytes");
    p.line("CONFIG SET stream-node-max-bytes 4096");
    // A long node, LZF-compressed or not.
    for i in 1..=100 {
        p.line(&format!(
            "XADD long {i}-0 sensor temperature reading {}",
            i % 5
        ));
    }
    p.exact("long");
    p.line("CONFIG SET rdbcompression no");
    p.exact("long");
    p.line("CONFIG SET rdbcompression yes");
    // Emptied by XDEL (the node goes), and a group with no consumers.
    p.line("XADD gone 5-5 a b");
    p.line("XDEL gone 5-5");
    p.exact("gone");
    p.line("XGROUP CREATE long g1 $");
    p.line("XGROUP CREATE long g0 50-0");
    p.exact("long");
    // Consumers and PELs carry times: compared by value.
    p.line("XREADGROUP GROUP g0 alice COUNT 3 STREAMS long >");
    p.line("XREADGROUP GROUP g0 bob COUNT 2 STREAMS long >");
    p.line("XACK long g0 51-0");
    p.line("XCLAIM long g0 carol 0 52-0");
    p.line("XGROUP CREATECONSUMER long g1 idle");
    p.restores("long");
    // Entries deleted inside nodes: Redis keeps them flagged, kvlab does not.
    p.line("XDEL ent 60-0 61-0 99-0");
    p.restores("ent");
    p.line("XTRIM long MAXLEN 37");
    p.restores("long");
    p.line("XTRIM long MAXLEN 0");
    p.restores("long");
    // A node left with deleted entries alone, then entries below its master ID (after
    // XSETID lowered the last ID), which Redis appends to it with negative deltas.
    for i in 10..16 {
        p.line(&format!("XADD strays {i}-0 k v{i}"));
    }
    p.line("XDEL strays 13-0 14-0 15-0");
    p.line("XTRIM strays MINID 13-0");
    p.restores("strays");
    p.line("XSETID strays 5-0");
    p.line("XADD strays 6-0 k v6");
    p.line("XADD strays 7-3 other v7");
    p.line("XADD strays 20-0 k v20");
    p.restores("strays");
    eprintln!("streams: {} exact, {} restored", p.exact, p.restored);
}
