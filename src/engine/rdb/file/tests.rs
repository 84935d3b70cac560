use super::*;
use crate::engine::rdb::prim::put_len;
use crate::engine::types::StrValue;

const NOW: i64 = 1_700_000_000_000;

fn dataset() -> Vec<Db> {
    let mut dbs: Vec<Db> = (0..NUM_DBS).map(|_| Db::default()).collect();
    let s = |b: &[u8]| Value::Str(StrValue::new(b.to_vec()));
    dbs[0].insert_entry(b"plain".to_vec(), Entry::new(s(b"hello"), None, NOW));
    dbs[0].insert_entry(
        b"n".to_vec(),
        Entry::new(s(b"12345"), Some(NOW + 5000), NOW),
    );
    dbs[0].insert_entry(b"gone".to_vec(), Entry::new(s(b"x"), Some(NOW - 1), NOW));
    dbs[3].insert_entry(
        b"long".to_vec(),
        Entry::new(s(&[b'a'; 300]), Some(NOW + 1), NOW),
    );
    dbs
}

fn opts() -> LoadFileOptions {
    LoadFileOptions {
        checksum: true,
        now_ms: NOW,
        values: LoadOptions::default(),
    }
}

fn keys(dbs: &[Db]) -> Vec<(usize, Vec<u8>, Option<i64>)> {
    let mut out = Vec::new();
    for (i, db) in dbs.iter().enumerate() {
        for (k, e) in db.iter() {
            out.push((i, k.to_vec(), e.expire_at()));
        }
    }
    out
}

#[test]
fn a_file_reads_back_what_was_written() {
    let dbs = dataset();
    let functions =
        vec![b"#!lua name=lib\nredis.register_function('f', function() return 1 end)".to_vec()];
    let file = write_file(&dbs, &functions, NOW, &FileOptions::default()).unwrap();
    assert!(file.starts_with(b"REDIS0010\xfa\x09redis-ver\x067.0.15"));
    let data = load_file(file.clone(), opts()).unwrap();
    assert_eq!(data.keys, 3);
    assert_eq!(data.functions, functions);
    assert_eq!(data.aux("redis-bits"), Some(&b"64"[..]));
    assert!(!data.unchecked);
    let mut want = keys(&dbs);
    want.retain(|(_, k, _)| k != b"gone");
    assert_eq!(keys(&data.dbs), want);
    // Read in steps of one key: the same, and progress goes up to the whole file.
    let mut l = Loader::new(file.clone(), opts()).unwrap();
    let mut steps = 0;
    while !l.step(1).unwrap() {
        steps += 1;
        assert!(l.done_bytes() < l.total_bytes());
    }
    assert_eq!(l.done_bytes(), file.len());
    assert!(steps >= 3);
    assert_eq!(keys(&l.finish().unwrap().dbs), want);
}

#[test]
fn without_checksum_the_file_ends_in_zeros_and_loads_unchecked() {
    let o = FileOptions {
        checksum: false,
        ..FileOptions::default()
    };
    let file = write_file(&dataset(), &[], NOW, &o).unwrap();
    assert!(file.ends_with(&[0xff, 0, 0, 0, 0, 0, 0, 0, 0]));
    assert!(load_file(file, opts()).unwrap().unchecked);
}

#[test]
fn newer_and_foreign_files_are_refused_naming_why() {
    let e = load_file(b"REDIS0011\xff".to_vec(), opts()).err().unwrap();
    assert_eq!(e.problem, Problem::Version(11));
    assert!(e.to_string().contains("version 11"), "{e}");
    let e = load_file(b"*1\r\n$4\r\nPING\r\n".to_vec(), opts())
        .err()
        .unwrap();
    assert_eq!(e.problem, Problem::Signature);
}

#[test]
fn damage_is_found_and_named_never_half_loaded() {
    let file = write_file(&dataset(), &[], NOW, &FileOptions::default()).unwrap();
    // Every cut is an error (no file is a prefix of another).
    for n in 0..file.len() {
        assert!(load_file(file[..n].to_vec(), opts()).is_err(), "cut at {n}");
    }
    // Every single-bit flip: an error or (when the checksum is off) some dataset, never
    // a panic; with the checksum on, never a silent success.
    for i in 9..file.len() {
        for bit in 0..8 {
            let mut bad = file.clone();
            bad[i] ^= 1 << bit;
            let r = load_file(bad.clone(), opts());
            assert!(r.is_err(), "flip {i}:{bit} loaded");
            let _ = load_file(
                bad,
                LoadFileOptions {
                    checksum: false,
                    ..opts()
                },
            );
        }
    }
}

#[test]
fn errors_name_the_key_and_offset() {
    let mut dbs: Vec<Db> = (0..NUM_DBS).map(|_| Db::default()).collect();
    let s = Value::Str(StrValue::new(b"v".to_vec()));
    dbs[2].insert_entry(b"k".to_vec(), Entry::new(s, None, NOW));
    let mut file = write_file(&dbs, &[], NOW, &FileOptions::default()).unwrap();
    // Duplicate the key record: SELECTDB 2, RESIZEDB, then [0, 1, 'k', 1, 'v'].
    let rec = file
        .windows(5)
        .position(|w| w == b"\x00\x01k\x01v")
        .unwrap();
    let copy = file[rec..rec + 5].to_vec();
    file.splice(rec + 5..rec + 5, copy);
    let e = load_file(
        file,
        LoadFileOptions {
            checksum: false,
            ..opts()
        },
    )
    .err()
    .unwrap();
    assert_eq!(e.problem, Problem::Duplicate);
    assert_eq!(e.offset, rec + 5);
    assert_eq!(e.key, Some((2, b"k".to_vec())));
    assert_eq!(
        e.to_string(),
        format!("duplicated key at byte {} (key 'k' in DB 2)", rec + 5)
    );
}

#[test]
fn old_opcodes_and_module_records() {
    // Version 3, no checksum: EXPIRETIME in seconds, SELECTDB 1.
    let mut f = b"REDIS0003\xfe\x01".to_vec();
    f.push(opcode::EXPIRETIME);
    f.extend_from_slice(&(((NOW / 1000) + 100) as i32).to_le_bytes());
    f.extend_from_slice(b"\x00\x01a\x01b");
    f.push(opcode::IDLE);
    f.push(10);
    f.extend_from_slice(b"\x00\x01c\x01d\xff");
    let data = load_file(f, opts()).unwrap();
    assert!(data.unchecked);
    let a = data.dbs[1].get_raw(b"a").unwrap();
    assert_eq!(a.expire_at(), Some((NOW / 1000 + 100) * 1000));
    // Access times are kept to the second, as Redis's LRU clock keeps them.
    assert_eq!(
        data.dbs[1].get_raw(b"c").unwrap().accessed_ms(),
        (NOW - 10_000).div_euclid(1000) * 1000
    );
    // A module AUX record names the module.
    let id: u64 = (0..9).fold(0u64, |acc, _| (acc << 6) | 1) << 10;
    let mut m = b"REDIS0010".to_vec();
    m.push(opcode::MODULE_AUX);
    put_len(&mut m, id);
    let e = load_file(m, opts()).err().unwrap();
    assert_eq!(e.problem, Problem::ModuleAux("BBBBBBBBB".into()));
    // SELECTDB past 15.
    let e = load_file(b"REDIS0010\xfe\x10\xff".to_vec(), opts())
        .err()
        .unwrap();
    assert_eq!((e.problem, e.offset), (Problem::DbIndex(16), 9));
}

/// With nothing changing meanwhile, a background file written in steps of any size is
/// byte for byte the file written at once, checksum included.
#[test]
fn a_background_file_is_the_file_written_at_once() {
    let functions =
        vec![b"#!lua name=lib\nredis.register_function('f', function() return 1 end)".to_vec()];
    for checksum in [true, false] {
        let opts = FileOptions {
            checksum,
            ctime_s: 1234,
            used_mem: 99,
            ..FileOptions::default()
        };
        let want = write_file(&dataset(), &functions, NOW, &opts).unwrap();
        for step in [1, 2, 3, 1000] {
            let mut dbs = dataset();
            let mut file = BackgroundFile::start(&mut dbs, &functions, NOW, opts, 1);
            assert_eq!(file.keys_total(), 4);
            let mut steps = 0;
            while !file.step(&mut dbs, step).unwrap() {
                steps += 1;
                assert!(steps < 100_000);
            }
            assert_eq!(file.keys(&dbs), 4);
            assert!(dbs.iter().all(|db| !db.save_pending()));
            assert_eq!(file.finish(), want, "steps of {step}");
        }
    }
    // The save's mark sits beside the access time and counter: an entry is its value and
    // 16 bytes.
    assert_eq!(
        std::mem::size_of::<Entry>(),
        std::mem::size_of::<Value>() + 16
    );
}
