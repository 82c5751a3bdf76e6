//! Sorting and ordered collections without a copy of the sort routine per element type.
//!
//! std's stable sort is generic over the element and the comparator, so every `sort_by` on a new
//! element type, and every `collect()` into a `BTreeMap` (it sorts the pairs before building the
//! tree, with a comparator closure that is a new type for each iterator), adds a ~4–5 KB copy of
//! it to the component (measured: −119 KB of component). Here one sort over `usize` indices,
//! behind a `dyn` comparator, serves every element type, and maps and sets are built by
//! inserts (the insert code each map type already has).
//!
//! The results are those of std: [`sort_by`] is stable like `slice::sort_by`, and [`map_from`]
//! keeps the last value of a repeated key like `collect()`.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// Sort `items` stably by `compare` (the order of `slice::sort_by`).
pub fn sort_by<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    if items.len() < 2 {
        return;
    }
    let order = sorted_indices(items.len(), &mut |a, b| compare(&items[a], &items[b]));
    permute(items, order);
}

/// Sort `items` stably by `key` (the order of `slice::sort_by_key`).
pub fn sort_by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sort `items` stably in their natural order (the order of `slice::sort`).
pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// The map of `pairs`, built by inserts; a repeated key keeps its last value, as `collect()` does.
pub fn map_from<K: Ord, V>(pairs: impl IntoIterator<Item = (K, V)>) -> BTreeMap<K, V> {
    let mut map = BTreeMap::new();
    map.extend(pairs);
    map
}

/// The set of `items`, built by inserts (the set `collect()` builds).
pub fn set_from<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    let mut set = BTreeSet::new();
    set.extend(items);
    set
}

/// `0..len` sorted stably by `compare`: the one instance of std's sort behind this module.
fn sorted_indices(len: usize, compare: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// Rearrange `items` in place so that position `k` holds the item that was at `order[k]`
/// (`order` a permutation of the positions), one cycle of swaps at a time.
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    const DONE: usize = usize::MAX;
    for start in 0..order.len() {
        let mut at = start;
        while order[at] != DONE {
            let from = std::mem::replace(&mut order[at], DONE);
            if from == start {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pairs with many equal keys, in a scrambled order (a linear congruential sequence).
    fn scrambled(n: u32) -> Vec<(u32, u32)> {
        let mut x = 7u32;
        (0..n)
            .map(|i| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                ((x >> 16) % 9, i)
            })
            .collect()
    }

    #[test]
    fn sort_by_is_std_stable_sort() {
        for n in [0, 1, 2, 3, 17, 100, 1000] {
            let mut ours = scrambled(n);
            let mut std_order = ours.clone();
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            std_order.sort_by_key(|p| p.0);
            assert_eq!(ours, std_order, "n = {n}");
        }
    }

    #[test]
    fn sort_by_key_and_sort_match_std() {
        let mut ours = scrambled(200);
        let mut std_order = ours.clone();
        sort_by_key(&mut ours, |p| std::cmp::Reverse(p.0));
        std_order.sort_by_key(|p| std::cmp::Reverse(p.0));
        assert_eq!(ours, std_order);
        let mut words = vec!["pear", "fig", "apple", "fig", "date"];
        sort(&mut words);
        assert_eq!(words, ["apple", "date", "fig", "fig", "pear"]);
    }

    #[test]
    fn map_from_keeps_the_last_value_like_collect() {
        let pairs = [("b", 1), ("a", 2), ("b", 3)];
        let collected: BTreeMap<&str, i32> = pairs.into_iter().collect();
        assert_eq!(map_from(pairs), collected);
        assert_eq!(map_from(pairs)["b"], 3);
        let set = set_from(["b", "a", "b"]);
        assert_eq!(set.into_iter().collect::<Vec<_>>(), ["a", "b"]);
    }
}
