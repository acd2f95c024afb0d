//! The best few pairs by score, as explorer/training/bpe/queues.py's `Ranking`: a lazy min-heap of
//! `(rank, pair)` entries (rank: the negated score, so smaller is better; ties to the smaller
//! pair), with the best few held out of it, sorted, from one call to the next.
//!
//! Invariant, kept by the owner: every live pair has an entry at its current rank or a stale
//! better one, so whenever a pair's score rises it is pushed. A stale entry is corrected when it
//! surfaces; a held entry whose score fell goes back corrected, one whose score rose is dropped
//! (its newer entry is in the heap), a dead pair's entry is dropped. What `best` returns is then
//! exactly the best live pairs, whatever the heap's history.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use rustc_hash::FxHashSet;

use crate::engine::Pair;

/// A rank: smaller is better. `i64` for counts (the negated count), `NegatedScore` for floats.
pub trait Rank: Copy + Ord {}
impl Rank for i64 {}

/// A likelihood score, negated, ordered as Python orders floats (scores are finite and positive).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NegatedScore(pub f64);
impl Eq for NegatedScore {}
impl PartialOrd for NegatedScore {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for NegatedScore {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.partial_cmp(&other.0).expect("scores are never NaN")
    }
}
impl Rank for NegatedScore {}

pub struct Ranking<R: Rank> {
    pub heap: BinaryHeap<Reverse<(R, Pair)>>,
    held: Vec<(R, Pair)>,
}

impl<R: Rank> Ranking<R> {
    pub fn new(entries: Vec<(R, Pair)>) -> Ranking<R> {
        Ranking {
            heap: entries.into_iter().map(Reverse).collect(),
            held: Vec::new(),
        }
    }

    pub fn push(&mut self, rank: R, pair: Pair) {
        self.heap.push(Reverse((rank, pair)));
    }

    /// Entries in the heap, stale ones included.
    pub fn heap_size(&self) -> usize {
        self.heap.len()
    }

    /// The heap rebuilt from `entries` (one per live pair at its current rank); held ones stay.
    pub fn compact(&mut self, entries: Vec<(R, Pair)>) {
        self.heap = entries.into_iter().map(Reverse).collect();
    }

    /// The `limit` best live pairs, best first (with `whole_tie_group`, also every pair tied at
    /// the best rank). `rank(pair)` is a pair's current rank, None when it is dead.
    pub fn best(
        &mut self,
        limit: usize,
        whole_tie_group: bool,
        mut rank: impl FnMut(Pair) -> Option<R>,
    ) -> &[(R, Pair)] {
        let mut held: Vec<(R, Pair)> = Vec::with_capacity(limit + 1);
        for &(entry_rank, pair) in &self.held {
            match rank(pair) {
                Some(current) if current == entry_rank => held.push((entry_rank, pair)),
                Some(current) if current > entry_rank => self.heap.push(Reverse((current, pair))),
                _ => {}
            }
        }
        let mut held_pairs: FxHashSet<Pair> = held.iter().map(|&(_, pair)| pair).collect();
        while let Some(&Reverse(top)) = self.heap.peek() {
            if held.len() >= limit
                && top > held[limit - 1]
                && (!whole_tie_group || top.0 > held[0].0)
            {
                break;
            }
            self.heap.pop();
            let (entry_rank, pair) = top;
            if held_pairs.contains(&pair) {
                continue; // the same entry again
            }
            let Some(current) = rank(pair) else { continue };
            if current != entry_rank {
                if current > entry_rank {
                    self.heap.push(Reverse((current, pair))); // fell: corrected
                }
                continue; // rose: its newer entry is in the heap
            }
            let at = held.partition_point(|&entry| entry < top);
            held.insert(at, top);
            held_pairs.insert(pair);
        }
        let mut keep = limit;
        if whole_tie_group && !held.is_empty() {
            while keep < held.len() && held[keep].0 == held[0].0 {
                keep += 1;
            }
        }
        if keep < held.len() {
            for &entry in &held[keep..] {
                self.heap.push(Reverse(entry));
            }
            held.truncate(keep);
        }
        self.held = held;
        &self.held
    }
}
