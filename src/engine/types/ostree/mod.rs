//! An order-statistics B+ tree: a sequence kept in order, with rank queries.
//!
//! # Why it exists
//! A sorted set must answer "how many members precede this one?" (`ZRANK`, `ZCOUNT`) and
//! "which member is at rank r?" (`ZRANGE`) in O(log N). Redis uses a skiplist whose links
//! record how many elements they jump. We used one too, and measured it: at a million
//! members every step of a skiplist descent is a dependent read from main memory, about
//! twenty of them per `ZRANK`, so `ZRANK` cost 15× more at N = 1,000,000 than at N = 1,000
//! although log N only doubles. A B+ tree with 32–64 entries per node is three or four
//! levels deep at a million entries, and each level is one contiguous array, so a descent
//! costs a handful of cache misses (see `benches/zset.rs`, which times both sizes).
//!
//! Crates were checked first: `wabi_tree` (an order-statistic B-tree map) ranks only keys
//! that are present and orders by `Ord` on whole keys, but a sorted set must also descend
//! by partial keys ("first member whose score is ≥ min", "first member ≥ `[abc` by bytes",
//! including Redis's defined-by-the-search answers when scores differ), so we need a
//! descent driven by a caller's predicate; `indexset` rebuilds a flat index on splits (O(N)
//! inserts). So the tree is written here, generic over its elements and knowing nothing of
//! scores.
//!
//! # Keys apart from values
//! An element is a pair: a small `Copy` *key* (a sorted set's score) and a *value* (the
//! member), ordered by key first and by value only among equal keys. Each node keeps its
//! keys in one array and its values in another. A search by key ([`OsTree::rank_of`])
//! counts the keys below the probe with a branch-free pass over that array (64 scores are
//! 512 bytes, eight cache lines whose loads the CPU issues together instead of one after
//! another as a binary search must), and reads a value only where keys tie. With keys and
//! values interleaved, a binary search over a leaf of 32-byte entries made five dependent
//! reads from main memory at a million members, per level. A search by any other order
//! (lexicographic ranges) is a predicate `before(key, value)` that holds for a prefix of
//! the sequence ([`OsTree::rank_where`]), answered by binary search. Every answer is a rank.
//!
//! # Representation
//! A node is a leaf (up to [`LEAF_MAX`] elements, in order: `keys[i]` with `vals[i]`) or
//! an inner node holding up to [`INNER_MAX`] children, the number of elements under each
//! child (`counts`), and between consecutive children a *separator*: a copy of an element
//! (`keys[i]`, `seps[i]`) that sorts after everything in the left child and at or before
//! everything in the right one. A descent by key or predicate compares against separators
//! only, so it reads one node per level; a descent by rank reads the counts only.
//!
//! Each node is one heap block with its arrays inside it: fixed-capacity arrays
//! (`arrayvec::ArrayVec`, one slot over the maximum for the element that overflows a node
//! just before it splits), so a node is reached by one pointer and its keys are at a fixed
//! offset in it. A child link (`Node`) is a tag and a `Box`, 16 bytes, stored in the
//! parent's `kids` array. An inner node lays out, in this order, its separator keys, its
//! child links, its counts and its separator values; a leaf its keys, then its values.
//!
//! Why: the ratio of a lookup's cost at a million members to its cost at a thousand is
//! set by how many *dependent* main-memory reads a descent makes. When nodes held `Vec`s
//! (and children in a `Vec<Node>`), a level cost a read of the node's header (in the
//! parent's child buffer) to learn where its keys were, then a read of the keys, then the
//! child's header again: two misses in a row per level, and the counts a third buffer.
//! Now a descent asks for the keys, the child links and the counts of a node at once
//! (`Inner::warm` touches one word per cache line of the links and counts before the
//! keys are compared; those reads do not depend on the comparison, so the CPU overlaps
//! them with the key reads), and the link it then follows is already in cache: about one
//! round trip to memory per level. Measured with `cargo bench --bench zset`, alternating
//! runs of both versions on the same loaded machine (best of three runs each, with a
//! dependent random read costing 360–950 ns there), at N = 1,000,000: `ZRANK` went from
//! 3.98 to 2.67 µs (1M / 1k from 4.7 to 2.6), `ZCOUNT` from 4.34 to 2.52 µs, `ZRANGE` by
//! rank from 3.24 to 2.58 µs (`ZSCORE`, which reads no tree, moved only by noise). `ZADD`
//! moving a member to a random score did not get measurably cheaper from that alone: it
//! made two descents to unrelated leaves, one after the other (the next paragraph says
//! what changed that). Memory per member went from 134 to 129 bytes (the `Vec` headers are
//! gone; a node's unused slots cost what the `Vec`s' spare capacity did). The price: even
//! an empty tree holds one leaf block of about 2 KiB.
//!
//! A change of key ([`OsTree::rekey`]: `ZADD` or `ZINCRBY` on a present member) finds the
//! old place and the new one in a single descent that follows both paths side by side,
//! so that their cache misses overlap, then removes and inserts along those paths without
//! searching again; an element that stays inside its leaf (`ZINCRBY` by a small amount,
//! usually) moves within the leaf. Measured with `cargo bench --bench zset` against the
//! two descents and two searches before it: `ZADD` to a random score at N = 1,000,000
//! went from about 1.9 to 1.65 µs, and `cachegrind` counted 6,320 instructions per
//! update at 1M before and 5,030 after.
//!
//! # Filling
//! A leaf splits in half, except when the element that overflows it went to one of its
//! ends (`split_point`): then the leaf left behind keeps three quarters. Members added
//! in score order (timestamps, counters, or a set loaded in order) used to leave every
//! leaf behind the growing end half full, at its minimum, so that the first removal from
//! it (a `ZADD` moving a member away) merged or refilled it: in the benchmark's set,
//! built in order, one update in five did. For the uneven split, leaves may go down to a
//! quarter full (inner nodes keep half). Measured with `cargo bench --bench zset`: a set
//! of 1,000,000 members loaded in order went from 127.4 to 104.0 bytes per member, and
//! `ZADD` to a random score on it from 1.74/1.62 to 1.60/1.56 µs (two runs each).
//!
//! # Invariants
//! 1. All leaves are at the same depth. `len` is the number of elements.
//! 2. A leaf's `keys` and `vals` have the same length. An inner node with `k` children has
//!    `k - 1` separators (`keys` and `seps`) and `k` counts; `counts[i]` is the number of
//!    elements under child `i`.
//! 3. Every node other than the root has at least its minimum: a quarter of its maximum
//!    for a leaf (`LEAF_MAX / 4` elements), half for an inner node (`INNER_MAX / 2`
//!    children); an inner root has at least two children. No node exceeds its maximum.
//! 4. With `max(c)`/`min(c)` the last/first element under child `c`:
//!    `max(kid i) < sep[i] ≤ min(kid i+1)` in the caller's order. A separator may be a copy
//!    of an element since removed (it still separates); it is dropped when its children
//!    merge.
//! 5. The elements, read leaf by leaf from the left, are the sequence, in order; keys are
//!    never unordered with each other (no NaN score), so counting keys below a probe gives
//!    a prefix.
//!
//! [`OsTree::check`] verifies them all; the property tests call it after every step.
//!
//! # Costs
//! With d the depth (⌈log₃₂ N⌉ at worst: 4 levels hold over a million elements), a search
//! by key, predicate or rank reads d nodes, O(log N) (the key pass over a node is at most
//! 64 comparisons, a constant); insert and remove at a position are O(log N) (a split or
//! merge touches one node per level); iteration is amortized O(1) per element. Removing M
//! consecutive elements drains a run of one leaf per descent, at least a quarter of a leaf
//! after the first, so it costs O(log N + M·d/16): O(log N + M) for any depth a real set
//! reaches (d ≤ 5 up to a billion elements).
//!
//! # Changing it
//! A performance change to this structure lands only with the scale tests passing in
//! release mode: `cargo test --release --test scale --test scale_diff` (here
//! `zset_large_against_a_model` and its redis-server twin), which take it to a million live
//! elements against a plain model and against a real Redis (issue 18). A fast path that
//! trusts a hash, a tag, a probed slot or a cached position confirms the bytes before it
//! changes data or a reply.

mod iter;
mod node;
mod rec;
#[cfg(test)]
mod tests;
mod tree;
pub use iter::Iter;
pub use node::{INNER_MAX, LEAF_MAX};
pub use tree::{Moved, OsTree};
