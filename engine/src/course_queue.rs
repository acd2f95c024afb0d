//! The course's choice of the pair to merge next, as explorer/training/bpe/queues.py's
//! `CourseQueue` and `LikelihoodQueue` make it: the best score, ties to the pair met first scanning
//! the words in order, scored by count (BPE) or by likelihood `count(ab) / (count(a) * count(b))`
//! (WordPiece), with the score computed as Python computes it (ratio.rs). The indexes only the
//! course needs live here, with its queue: the words holding each pair (its ties and the words a
//! merge rewrites) and, for the likelihood, every symbol's frequency and the pairs holding it.
//!
//! What it does not do: rewrite words (engine.rs) or name tokens (run.rs).

use rustc_hash::{FxHashMap, FxHashSet};

use crate::engine::{unpack, Engine, Merged, Pair, Words};
use crate::queues::Pick;
use crate::ranking::{NegatedScore, Ranking};
use crate::ratio::ratio;
// The rankings rebuild their heap once it holds more than STALE_FACTOR entries per pair plus
// STALE_ENTRIES_KEPT (memory only: what `best` gives does not depend on it).
use crate::shared::{STALE_ENTRIES_KEPT, STALE_FACTOR};

/// The course's ranking: by count, or by likelihood score with the symbols' index it needs.
enum CourseRanking {
    Count(Ranking<i64>),
    Likelihood(Ranking<NegatedScore>, Symbols),
}

/// What the likelihood score needs beside the pair counts: every symbol's frequency (its
/// denominators), and the pairs holding each symbol (a merge changes the score of every pair
/// holding one of its two symbols).
struct Symbols {
    freqs: FxHashMap<u32, i64>,
    pairs: FxHashMap<u32, FxHashSet<Pair>>,
}

impl Symbols {
    fn new(engine: &Engine) -> Symbols {
        let mut freqs: FxHashMap<u32, i64> = FxHashMap::default();
        for (symbols, &count) in engine.words.iter().zip(&engine.counts) {
            for &symbol in symbols {
                *freqs.entry(symbol).or_insert(0) += count;
            }
        }
        let mut symbols = Symbols {
            freqs,
            pairs: FxHashMap::default(),
        };
        symbols.hold(engine.pair_counts.keys().copied());
        symbols
    }

    /// Each pair filed under its two symbols.
    fn hold(&mut self, pairs: impl Iterator<Item = Pair>) {
        for pair in pairs {
            let (left, right) = unpack(pair);
            self.pairs.entry(left).or_default().insert(pair);
            self.pairs.entry(right).or_default().insert(pair);
        }
    }

    fn after_merge(&mut self, pair: Pair, merged: &Merged) {
        if merged.occurrences != 0 {
            let (left, right) = unpack(pair);
            let freqs = &mut self.freqs;
            *freqs.entry(left).or_insert(0) -= merged.occurrences;
            *freqs.entry(right).or_insert(0) -= merged.occurrences;
            *freqs.entry(merged.new_symbol).or_insert(0) += merged.occurrences;
        }
        self.hold(merged.new_pairs.iter().map(|(gained, _)| *gained));
    }

    /// `count(ab) / (count(a) * count(b))`, negated; None for a pair that no longer occurs.
    fn rank(&self, engine: &Engine, pair: Pair) -> Option<NegatedScore> {
        let count = count_of(engine, pair);
        if count <= 0 {
            return None;
        }
        let (left, right) = unpack(pair);
        let product = self.freqs[&left] as u128 * self.freqs[&right] as u128;
        Some(NegatedScore(-ratio(count as u128, product)))
    }
}

pub struct CourseQueue {
    limit: usize,
    /// Every pair with the words that held it when counted (a superset, pruned by
    /// `first_occurrence` as it passes).
    pair_words: FxHashMap<Pair, FxHashSet<u32>>,
    ranking: CourseRanking,
}

fn count_of(engine: &Engine, pair: Pair) -> i64 {
    engine.pair_counts.get(&pair).copied().unwrap_or(0)
}

fn count_rank(engine: &Engine, pair: Pair) -> Option<i64> {
    let count = count_of(engine, pair);
    (count > 0).then_some(-count)
}

/// Every pair that can be ranked, with its rank.
fn entries<R: Copy>(engine: &Engine, rank: impl Fn(Pair) -> Option<R>) -> Vec<(R, Pair)> {
    engine
        .pair_counts
        .keys()
        .filter_map(|&pair| rank(pair).map(|r| (r, pair)))
        .collect()
}

/// (word index, position) of the pair's first occurrence in corpus order; prunes the words that
/// no longer hold it on the way.
fn first_occurrence(
    pair_words: &mut FxHashMap<Pair, FxHashSet<u32>>,
    words: &Words,
    pair: Pair,
) -> (u32, usize) {
    let (left, right) = unpack(pair);
    let Some(set) = pair_words.get_mut(&pair) else {
        panic!("a live pair has holders");
    };
    let mut sorted: Vec<u32> = set.iter().copied().collect();
    sorted.sort_unstable();
    for index in sorted {
        let symbols = words.get(index as usize);
        if let Some(position) = symbols
            .windows(2)
            .position(|w| w[0] == left && w[1] == right)
        {
            return (index, position);
        }
        set.remove(&index);
    }
    panic!("pair has no occurrence left");
}

impl CourseQueue {
    /// Takes the engine's first index of words per pair over as its own.
    pub fn new(engine: &mut Engine, candidates: usize, likelihood: bool) -> CourseQueue {
        let initial = std::mem::take(&mut engine.initial_pair_words);
        let mut pair_words = FxHashMap::default();
        for at in 0..initial.pairs.len() {
            let (pair, holders) = initial.get(at);
            pair_words.insert(pair, holders.iter().copied().collect::<FxHashSet<u32>>());
        }
        let engine = &*engine;
        let ranking = if likelihood {
            let symbols = Symbols::new(engine);
            let ranked = entries(engine, |pair| symbols.rank(engine, pair));
            CourseRanking::Likelihood(Ranking::new(ranked), symbols)
        } else {
            CourseRanking::Count(Ranking::new(entries(engine, |pair| {
                count_rank(engine, pair)
            })))
        };
        CourseQueue {
            limit: candidates.max(1),
            pair_words,
            ranking,
        }
    }

    pub fn pick(&mut self, engine: &Engine) -> Option<Pick> {
        let limit = self.limit;
        // The best pairs (every pair tied at the best too), as (score, pair), best first.
        let held: Vec<(f64, i64, Pair)> = match &mut self.ranking {
            CourseRanking::Count(ranking) => ranking
                .best(limit, true, |pair| count_rank(engine, pair))
                .iter()
                .map(|&(rank, pair)| (0.0, rank, pair))
                .collect(),
            CourseRanking::Likelihood(ranking, symbols) => ranking
                .best(limit, true, |pair| symbols.rank(engine, pair))
                .iter()
                .map(|&(rank, pair)| (-rank.0, 0, pair))
                .collect(),
        };
        let first = *held.first()?;
        let tied: Vec<Pair> = held
            .iter()
            .filter(|entry| (entry.0, entry.1) == (first.0, first.1))
            .map(|entry| entry.2)
            .collect();
        let pair_words = &mut self.pair_words;
        let winner = if tied.len() == 1 {
            first.2
        } else {
            tied.iter()
                .copied()
                .min_by_key(|&pair| first_occurrence(pair_words, &engine.words, pair))
                .unwrap_or(first.2)
        };
        let mut ranked: Vec<(f64, i64, Pair)> = vec![(first.0, first.1, winner)];
        ranked.extend(
            held.iter()
                .filter(|entry| entry.2 != winner)
                .take(limit - 1),
        );
        let candidates: Vec<Pair> = ranked.iter().map(|entry| entry.2).collect();
        let candidate_counts = candidates
            .iter()
            .map(|&pair| count_of(engine, pair))
            .collect();
        let words = pair_words[&winner].iter().copied().collect();
        let (score, candidate_scores, candidate_symbol_counts) = match &self.ranking {
            CourseRanking::Likelihood(_, symbols) => {
                let symbol_counts = candidates
                    .iter()
                    .map(|&pair| {
                        let (left, right) = unpack(pair);
                        (symbols.freqs[&left], symbols.freqs[&right])
                    })
                    .collect();
                (
                    Some(first.0),
                    Some(ranked.iter().map(|entry| entry.0).collect()),
                    Some(symbol_counts),
                )
            }
            CourseRanking::Count(_) => (None, None, None),
        };
        Some(Pick {
            pair: winner,
            count: count_of(engine, winner),
            score,
            words,
            candidates,
            candidate_counts,
            candidate_scores,
            candidate_symbol_counts,
        })
    }

    pub fn after_merge(&mut self, engine: &mut Engine, pair: Pair, merged: Merged) {
        for (gained, holders) in &merged.new_pairs {
            self.pair_words
                .entry(*gained)
                .or_default()
                .extend(holders.iter().copied());
        }
        // The course recounts after merging: the merged pair has no occurrence left, whatever the
        // overlap deltas say (in `aaa`, (a, a) counted 2 but only 1 was merged).
        engine.pair_counts.remove(&pair);
        self.pair_words.remove(&pair);
        let engine = &*engine;
        match &mut self.ranking {
            CourseRanking::Count(ranking) => {
                for (gained, _) in &merged.new_pairs {
                    if let Some(rank) = count_rank(engine, *gained) {
                        ranking.push(rank, *gained);
                    }
                }
                if ranking.heap_size()
                    > STALE_FACTOR * engine.pair_counts.len() + STALE_ENTRIES_KEPT
                {
                    ranking.compact(entries(engine, |pair| count_rank(engine, pair)));
                }
            }
            CourseRanking::Likelihood(ranking, symbols) => {
                symbols.after_merge(pair, &merged);
                // Lower frequencies for the two merged symbols raise the score of every pair
                // holding them: each gets an entry at its new score.
                let mut to_push: Vec<Pair> =
                    merged.new_pairs.iter().map(|(gained, _)| *gained).collect();
                let (left, right) = unpack(pair);
                for symbol in [left, right] {
                    if symbols.freqs.get(&symbol).copied().unwrap_or(0) == 0 {
                        symbols.pairs.remove(&symbol); // gone from the corpus: its pairs are dead
                        continue;
                    }
                    if let Some(holders) = symbols.pairs.get(&symbol) {
                        to_push.extend(holders.iter().copied());
                    }
                }
                to_push.sort_unstable();
                to_push.dedup();
                let mut dead = Vec::new();
                for candidate in to_push {
                    match symbols.rank(engine, candidate) {
                        Some(rank) => ranking.push(rank, candidate),
                        None => dead.push(candidate),
                    }
                }
                for candidate in dead {
                    let (a, b) = unpack(candidate);
                    for symbol in [a, b] {
                        if let Some(holders) = symbols.pairs.get_mut(&symbol) {
                            holders.remove(&candidate);
                        }
                    }
                }
                if ranking.heap_size()
                    > STALE_FACTOR * engine.pair_counts.len() + STALE_ENTRIES_KEPT
                {
                    ranking.compact(entries(engine, |pair| symbols.rank(engine, pair)));
                }
            }
        }
    }
}
