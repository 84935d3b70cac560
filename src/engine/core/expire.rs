//! Expiry: the lazy check every lookup makes ([`expire_if_needed`]) and one round of
//! the active cycle ([`active_expire_round`], run by [`crate::engine::Engine::tick`]).

use crate::engine::pubsub::class;

use super::server::Server;

/// Removes `key` from database `db` if expired at `now_ms`, recording a `DEL` effect,
/// sending the `expired` event and touching watchers (Redis's
/// `deleteExpiredKeyAndPropagate`).
pub fn expire_if_needed(srv: &mut Server, db: usize, key: &[u8], now_ms: i64) -> bool {
    if !srv.dbs[db].is_expired(key, now_ms) {
        return false;
    }
    srv.drop_key(db, key, class::EXPIRED, "expired");
    srv.stats.expired_keys += 1;
    true
}

/// One round of active expiry in database `db`: examines up to 20 distinct volatile keys,
/// starting at the database's `expire_cursor` and wrapping around once, removing the
/// expired ones. Returns `(examined, removed, the average TTL in ms of the keys examined
/// that had not expired)`, the last `None` when there were none.
///
/// Removal is a `swap_remove`: the last volatile key moves into the hole. Before the walk
/// wraps, that key lies ahead of the cursor and has not been examined, so the same position
/// is looked at again; after the wrap it was examined already, so the walk moves on. Each
/// key is thus examined at most once per round.
pub fn active_expire_round(srv: &mut Server, db: usize, now: i64) -> (usize, usize, Option<i64>) {
    const KEYS_PER_ROUND: usize = 20;
    let len = srv.dbs[db].volatile_len();
    let want = len.min(KEYS_PER_ROUND);
    let mut pos = srv.dbs[db].expire_cursor;
    if pos >= len {
        pos = 0;
    }
    let start = pos;
    let mut wrapped = false;
    let (mut sampled, mut expired) = (0, 0);
    let (mut ttl_sum, mut ttl_samples) = (0i64, 0i64);
    while sampled < want {
        if pos >= srv.dbs[db].volatile_len() {
            if wrapped || start == 0 {
                break;
            }
            pos = 0;
            wrapped = true;
        }
        let Some(key) = srv.dbs[db].volatile_key_at(pos).map(<[u8]>::to_vec) else {
            break;
        };
        sampled += 1;
        let ttl = srv.dbs[db]
            .get_raw(&key)
            .and_then(|e| e.expire_at())
            .map_or(0, |t| t.saturating_sub(now));
        if ttl > 0 {
            ttl_sum = ttl_sum.saturating_add(ttl);
            ttl_samples += 1;
        }
        if expire_if_needed(srv, db, &key, now) {
            expired += 1;
            if wrapped {
                pos += 1;
            }
        } else {
            pos += 1;
        }
    }
    srv.dbs[db].expire_cursor = pos;
    let avg = (ttl_samples > 0).then(|| ttl_sum / ttl_samples);
    (sampled, expired, avg)
}
