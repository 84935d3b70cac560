//! Tests of the configuration: unique names, defaults that pass their checks, units and bounds,
//! keyspace-event flags and the typed accessors.

use super::*;

#[test]
fn names_are_unique() {
    let mut seen = std::collections::HashSet::new();
    for p in PARAMS {
        assert!(seen.insert(p.name), "duplicate {}", p.name);
        if let Some(a) = p.alias {
            assert!(seen.insert(a), "duplicate alias {a}");
        }
    }
}

#[test]
fn defaults_pass_their_own_checks() {
    for p in PARAMS {
        let got = Config::normalize(p, p.default.as_bytes(), p.default);
        assert_eq!(got.as_deref(), Ok(p.default), "{}", p.name);
    }
}

#[test]
fn memory_units_follow_memtoull() {
    assert_eq!(parse_memory("1k"), Some(1000));
    assert_eq!(parse_memory("1KB"), Some(1024));
    assert_eq!(parse_memory("2mb"), Some(2 * 1024 * 1024));
    assert_eq!(parse_memory("3g"), Some(3_000_000_000));
    assert_eq!(parse_memory("-1"), None);
    assert_eq!(parse_memory("1.5mb"), None);
    assert_eq!(parse_memory("1tb"), None);
}

#[test]
fn numbers_are_checked_like_redis() {
    let p = lookup(b"maxclients").unwrap();
    assert_eq!(
        Config::normalize(p, b"-1", ""),
        Err("argument must be between 1 and 4294967295 inclusive".into())
    );
    let p = lookup(b"hz").unwrap();
    assert_eq!(
        Config::normalize(p, b"abc", ""),
        Err("argument couldn't be parsed into an integer".into())
    );
    let p = lookup(b"maxmemory-clients").unwrap();
    assert_eq!(Config::normalize(p, b"10%", ""), Ok("10%".into()));
    assert_eq!(
        Config::normalize(p, b"101%", ""),
        Err("percentage argument must be less or equal to 100".into())
    );
    let mut c = Config::with_defaults();
    c.set_normalized("maxmemory-clients", "10%".into());
    assert_eq!(c.int("maxmemory-clients"), -10);
}

#[test]
fn hz_is_capped() {
    let mut c = Config::with_defaults();
    c.set_normalized("hz", "1000".into());
    assert_eq!(c.hz(), 500);
    c.set_normalized("hz", "0".into());
    assert_eq!(c.hz(), 1);
}

#[test]
fn keyspace_events_round_trip() {
    assert_eq!(
        keyspace_event_string(keyspace_event_flags("KEA").unwrap()),
        "AKE"
    );
    assert_eq!(
        keyspace_event_string(keyspace_event_flags("Exg").unwrap()),
        "gxE"
    );
    assert_eq!(keyspace_event_flags("Q"), None);
}

#[test]
fn accessors_read_typed_values() {
    let c = Config::with_defaults();
    assert_eq!(c.hash_max_listpack_entries(), 512);
    assert_eq!(c.zset_max_listpack_entries(), 128);
    assert_eq!(c.list_max_listpack_size(), -2);
    assert_eq!(c.proto_max_bulk_len(), 512 * 1024 * 1024);
    assert_eq!(c.maxmemory_policy(), "noeviction");
    assert!(c.flag("activerehashing"));
    assert_eq!(c.get("lua-time-limit"), Some("5000"));
}

#[test]
fn min_replicas_refuse_writes_once_both_are_set_by_name_or_alias() {
    let mut c = Config::with_defaults();
    assert!(c.good_replicas());
    let p = lookup(b"min-slaves-to-write").unwrap();
    c.set_normalized(p.name, "1".into());
    assert!(!c.good_replicas());
    let lag = lookup(b"min-replicas-max-lag").unwrap();
    c.set_normalized(lag.name, "0".into());
    assert!(c.good_replicas());
}
