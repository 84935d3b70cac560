//! Redis Cluster's key → hash slot mapping, and the rules of cluster mode.
//!
//! Redis Cluster splits the keyspace into 16,384 *hash slots*: a key's slot is the CRC16
//! (the XMODEM variant: polynomial 0x1021, initial value 0) of the key, modulo 16,384. Only
//! part of the key is hashed when it holds a *hash tag*: if it contains a `{` followed
//! later by a `}` with at least one byte between them, only the bytes between the first
//! `{` and the first `}` after it are hashed. `{user:1}:name` and `{user:1}:visits` thus
//! share a slot, which is what lets multi-key commands work on them in a cluster.
//!
//! kvlab is one node, but with `cluster-enabled yes` (a start-up option, as in Redis:
//! `kvlab-server --cluster-enabled yes`, or [`Engine::configure`](super::Engine::configure)
//! in the browser) it behaves like a one-node cluster that owns every slot: a command — or
//! a transaction, at `EXEC` — whose keys hash to different slots fails with
//! `CROSSSLOT Keys in request don't hash to the same slot`, `SELECT` of another database,
//! `MOVE` and `SWAPDB` are refused, and `CLUSTER KEYSLOT`/`INFO`/`MYID` answer. Learners
//! meet the multi-key restrictions of Redis Cluster in the playground.

/// Number of hash slots in Redis Cluster.
pub const SLOTS: u16 = 16_384;

/// CRC16-CCITT (XMODEM): polynomial 0x1021, initial value 0, no reflection — the checksum
/// Redis Cluster hashes keys with. `crc16(b"123456789") == 0x31C3`. O(len).
pub fn crc16(data: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &byte in data {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// The part of `key` that is hashed: the hash tag between the first `{` and the next `}`
/// if it is not empty, else the whole key.
pub fn hash_tag(key: &[u8]) -> &[u8] {
    if let Some(open) = key.iter().position(|&b| b == b'{') {
        let rest = &key[open + 1..];
        if let Some(close) = rest.iter().position(|&b| b == b'}') {
            if close > 0 {
                return &rest[..close];
            }
        }
    }
    key
}

/// The hash slot of `key` (0..16384), as `CLUSTER KEYSLOT` answers.
pub fn key_slot(key: &[u8]) -> u16 {
    crc16(hash_tag(key)) & (SLOTS - 1)
}

/// True when all `keys` hash to one slot (also for none or one key).
pub fn same_slot<'a>(mut keys: impl Iterator<Item = &'a [u8]>) -> bool {
    let Some(first) = keys.next() else {
        return true;
    };
    let slot = key_slot(first);
    keys.all(|k| key_slot(k) == slot)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc16_check_value() {
        assert_eq!(crc16(b"123456789"), 0x31C3);
    }

    #[test]
    fn slots_match_redis() {
        // Values from redis-server 7.0.15's CLUSTER KEYSLOT.
        assert_eq!(key_slot(b"foo"), 12182);
        assert_eq!(key_slot(b"{user:1}:name"), 10778);
        assert_eq!(key_slot(b""), 0);
        assert_eq!(key_slot(b"a{}b"), 13694);
        assert_eq!(key_slot(b"{}"), 15257);
    }

    #[test]
    fn hash_tags() {
        assert_eq!(hash_tag(b"{user:1}:name"), b"user:1");
        assert_eq!(hash_tag(b"x{a}{b}"), b"a");
        assert_eq!(hash_tag(b"{}{a}"), b"{}{a}");
        assert_eq!(hash_tag(b"{a"), b"{a");
        assert_eq!(hash_tag(b"a}b{c}"), b"c");
        assert!(same_slot([&b"{u}a"[..], b"{u}b"].into_iter()));
        assert!(!same_slot([&b"a"[..], b"b"].into_iter()));
    }
}
