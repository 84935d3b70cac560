//! Sorted sets.
//!
//! # What a sorted set must do, and at what cost
//! A sorted set maps unique members (byte strings) to scores (doubles, never NaN) and keeps
//! them ordered by `(score, member)`: by score, ties broken by the member bytes compared as
//! `memcmp` does (a shorter string that is a prefix of a longer one sorts first). Redis
//! promises, and our command table repeats, these costs:
//!
//! * `ZSCORE`, `ZMSCORE` per member, membership tests in `ZINTER`/`ZDIFF`: **O(1)**;
//! * `ZADD`, `ZREM`, `ZINCRBY`: **O(log N)** per member;
//! * `ZRANK`/`ZREVRANK`, `ZCOUNT`, `ZLEXCOUNT`: **O(log N)**;
//! * `ZRANGE` by rank, score or lex, `ZREMRANGEBY*`: **O(log N + M)** for M elements
//!   returned or removed.
//!
//! Rank queries are what rule out a plain ordered map: `BTreeMap` finds a key in O(log N)
//! but cannot say how many keys precede it without walking them. We need an
//! *order-statistics* structure, one that counts as it descends.
//!
//! # Representation
//! Like Redis's `t_zset.c`, a set has one of two encodings and moves from the small one to
//! the large one for good (except that a `*STORE` result is re-evaluated):
//!
//! * **listpack** (up to `zset-max-listpack-entries` = 128 members, each at most
//!   `zset-max-listpack-value` = 64 bytes): one array of `(score, member)` entries in
//!   order. A member is found by scanning it, as Redis scans its listpack; at 32 bytes an
//!   entry, a full one is 4 KiB read front to back. Most sets people make while learning
//!   are this small, and the array costs a quarter of the large encoding's memory.
//! * **skiplist** (anything larger): two structures over the same members:
//!   * `dict`: a [`ZDict`](crate::engine::types::zdict::ZDict) member → score, for O(1) lookups, O(1) uniform random
//!     picks (`ZRANDMEMBER`) and stable positions for `ZSCAN` (see
//!     [`crate::engine::scan`]). It is an index map whose hash table keeps each score in
//!     the slot that points at the member, so a lookup waits for one read from main
//!     memory where `IndexMap` waited for three ([`super::zdict`] has the measurements).
//!     `ZRANK`, `ZADD` and `ZINCRBY` start their tree descent from that slot's score and
//!     confirm the member's bytes afterwards ([`ZDict::probe`](crate::engine::types::zdict::ZDict::probe), [`ZSet::update`]);
//!   * `tree`: the `(score, member)` pairs in order, in an order-statistics B+ tree
//!     ([`super::ostree`]): leaves of up to 64 entries in one array, inner nodes that know
//!     how many entries each child holds. Counting along a descent gives a member's rank,
//!     and descending by counts finds the entry at a rank, both in O(log N) with three or
//!     four nodes read at a million members.
//!
//! A member's bytes are shared by the dict and the tree, as Redis
//! shares one sds string between its dict and skiplist: a [`SmallBytes`](crate::engine::types::small::SmallBytes) keeps a member of
//! up to 22 bytes inline (in both places: copying 24 bytes is cheaper than a shared block
//! and a pointer to chase) and a longer one in one `Rc<[u8]>`. The tree keeps each
//! node's scores in an array of their own beside its members: a search by score counts
//! the scores below the probe in one pass over 512 bytes and reads a member only when two
//! scores tie (and then without leaving the node for a short member).
//!
//! # Why a B+ tree and not Redis's skiplist
//! We had a skiplist with spans, as Redis has, kept in an arena. It met the complexity
//! bounds but not the cache: a skiplist descent at a million members is about twenty
//! dependent reads from main memory (each node is somewhere else), where a B+ tree's is
//! one node per level, three or four in all, each read as a contiguous array. Measured
//! with `cargo bench --bench zset` (through `Engine::execute`, on a loaded shared
//! machine): at N = 1M `ZRANK` went from 27 µs to 11 µs and `ZCOUNT` from 40 µs to 15 µs,
//! their 1M / 1k ratios from about 16 and 22 to about 4 and 5. It also needs less memory
//! per member (no node with a tower of links). No crate fits (see [`super::ostree`] for the ones
//! checked).
//!
//! # Invariants
//! In the listpack encoding:
//! 1. The entries are in strictly increasing `(score, member)` order (scores compared with
//!    `<`, members by bytes); no score is NaN or `-0` (Redis's listpack keeps an integral
//!    score as an integer, so `ZADD z -0 m` stores 0).
//! 2. At most 128 entries, no member longer than 64 bytes.
//!
//! In the skiplist encoding:
//! 1. `dict` and `tree` hold the same members: `dict[m] = s` iff the tree holds an entry
//!    `(s, m)` (score bit for bit), and a long member's bytes are one block shared by both;
//!    `tree.len() == dict.len()`.
//! 2. The tree's entries are in strictly increasing `(score, member)` order, and the tree
//!    keeps its own invariants ([`super::ostree`]).
//! 3. No score is NaN.
//!
//! [`ZSet::check_invariants`] verifies all of them; the property tests call it after every
//! step, in both encodings and across the conversion.
//!
//! # What the encoding changes
//! The two encodings answer every query alike, except where Redis's answers differ too:
//! `OBJECT ENCODING`; `ZSCAN`, which returns a listpack whole, with cursor 0 and scores
//! printed by `d2string`; random picks, drawn from listpack positions (ranks) or dict
//! positions; and `ZRANGEBYLEX`-family answers on sets whose scores differ (see
//! [`ZSet::first_in_lex_range`]).
//!
//! # Changing it
//! A performance change to this structure lands only with the scale tests passing in
//! release mode: `cargo test --release --test scale --test scale_diff` (here
//! `zset_large_against_a_model`, `zset_small_against_a_model` and its redis-server twin),
//! which take it to a million live elements against a plain model and against a real Redis
//! (issue 18). A fast path that trusts a hash, a tag, a probed slot or a cached position
//! confirms the bytes before it changes data or a reply.

mod input;
mod iter;
mod range;
mod repr;
#[cfg(test)]
mod tests;
pub use input::{SortSource, ZInput};
pub use iter::Iter;
pub use range::{LexBound, LexRange, ScoreRange};
pub use repr::{AddOutcome, ZLimits, ZSet, MAX_LISTPACK_ENTRIES, MAX_LISTPACK_VALUE};
