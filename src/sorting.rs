//! Sorting through one shared sort, for a small WebAssembly binary.
//!
//! Each `slice::sort*` call site compiles its own copy of the standard library's sort
//! (driftsort or ipnsort, 1–5 KB of wasm each) for its element type and comparator. Two
//! dozen call sites made 19 such copies (80 KB), the largest single item of the web app.
//! The functions here compile the standard library's stable sort once, over `usize` positions with
//! a `dyn` comparator: a call sorts the positions `0..n` by comparing the elements they
//! name, then moves the elements into that order by following the permutation's cycles
//! (again through a `dyn` swap). What each call site keeps of its own is a few dozen bytes of
//! glue.
//!
//! # Semantics
//! The result is exactly that of [`slice::sort_by`]: the sort is **stable** (elements that
//! compare equal keep their relative order), so it may replace `sort_by`, `sort_by_key` and
//! `sort` anywhere. It may also replace `sort_unstable*` wherever elements that compare equal
//! are indistinguishable (a total `Ord` over the whole element), which is where this crate uses
//! it. The comparator is called O(n log n) times, as by the standard sort.
//!
//! # Cost, and where not to use it
//! **O(n log n)** comparisons, each one `dyn` call more than a direct sort, plus O(n) swaps
//! and a `Vec<usize>` of n positions (the standard stable sort allocates scratch space of
//! that order anyway). Comparing through positions reads the elements in random order, so
//! once the slice outgrows the CPU cache this is far slower than the standard sort (measured
//! natively: 100k byte-string keys 2× slower, a million `SORT`-sized items over 10×). Use it
//! for sorts of a few thousand elements at most (command-argument counts, client lists, what
//! the UI shows); sorts that a command or the key index runs over a whole value or keyspace
//! (`SORT`, `ZUNION`/`ZINTER` results, the key index, dumps) keep the standard sort, and
//! sites sorting one element type with plain `sort`/`sort_unstable` share its compiled copy.

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp`, like [`slice::sort_by`]. **O(n log n).**
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let order = {
        let v = &*v;
        sorted_positions(v.len(), &mut |a, b| cmp(&v[a], &v[b]))
    };
    permute(order, &mut |a, b| v.swap(a, b));
}

/// Sorts `v` stably by the key `f` extracts, like [`slice::sort_by_key`]. **O(n log n).**
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut f: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| f(a).cmp(&f(b)));
}

/// Sorts `v` in ascending order, like [`slice::sort`] (and like [`slice::sort_unstable`],
/// since elements that compare equal under a total order are interchangeable).
/// **O(n log n).**
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// The positions `0..n` in the stable order of `cmp` over them: the one copy of the
/// standard library's sort. Not generic, so it is compiled once.
fn sorted_positions(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

/// Rearranges a sequence so that position `i` receives the element that was at `order[i]`,
/// with `swap(a, b)` exchanging two positions. `order` must be a permutation of
/// `0..order.len()`. Follows each cycle of the permutation once: at most n − 1 swaps, O(n).
fn permute(mut order: Vec<usize>, swap: &mut dyn FnMut(usize, usize)) {
    for start in 0..order.len() {
        // Invariant: every position before `start`, and every position already visited on
        // this cycle, holds its final element and has `order[j] == j`.
        let mut j = start;
        loop {
            let from = order[j];
            order[j] = j;
            if from == start {
                break;
            }
            // Position `from` is still untouched (it is later on this cycle), so it holds
            // the element that belongs at `j`.
            swap(j, from);
            j = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (no dependency on a random crate).
    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn matches_std_stable_sort_by_key() {
        let mut seed = 7;
        for n in [0usize, 1, 2, 3, 7, 20, 33, 100, 1000] {
            for range in [1u64, 3, 50, u64::MAX] {
                // (key, original position): equal keys must keep their order.
                let v: Vec<(u64, usize)> =
                    (0..n).map(|i| (lcg(&mut seed) % range.max(1), i)).collect();
                let mut ours = v.clone();
                let mut std = v.clone();
                sort_by_key(&mut ours, |p| p.0);
                std.sort_by_key(|p| p.0);
                assert_eq!(ours, std, "n={n} range={range}");
            }
        }
    }

    #[test]
    fn sorts_and_reverses() {
        let mut v = vec![b"b".to_vec(), b"a".to_vec(), b"c".to_vec(), b"a".to_vec()];
        sort(&mut v);
        assert_eq!(v, [&b"a"[..], b"a", b"b", b"c"]);
        sort_by(&mut v, |a, b| b.cmp(a));
        assert_eq!(v, [&b"c"[..], b"b", b"a", b"a"]);
    }

    #[test]
    fn permutes_by_cycles() {
        let mut v = vec!['a', 'b', 'c', 'd', 'e'];
        // Two cycles (0 2 4) and (1 3).
        permute(vec![2, 3, 4, 1, 0], &mut |a, b| v.swap(a, b));
        assert_eq!(v, ['c', 'd', 'e', 'b', 'a']);
    }
}
