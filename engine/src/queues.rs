//! Which pair to merge next, as explorer/training/bpe/queues.py chooses it, with the runners-up
//! recorded at each step.
//!
//! - `LibraryQueue`: the `tokenizers` library's heap of (count, smallest pair) entries, an 8-ary
//!   `dary_heap::OctonaryHeap` replayed step for step (`OctonaryHeap`: two entries of one pair at
//!   one count pop in the order its layout gives), each carrying the words it will rewrite; only
//!   the top is looked at, a stale top is corrected and pushed back; entries are pushed only for
//!   pairs that gained in the last merge.
//! - `CourseQueue`: the course's loop (best score, ties to the pair met first scanning the words
//!   in order), scored by count (BPE) or by likelihood `count(ab) / (count(a) * count(b))`
//!   (WordPiece), with the score computed as Python computes it (ratio.rs).
//!
//! What it does not do: rewrite words (engine.rs) or name tokens (run.rs).

use rustc_hash::FxHashMap;

use crate::engine::{unpack, Engine, Merged, Pair};
use crate::ranking::{NegatedScore, Ranking};
use crate::ratio::ratio;

/// The rankings rebuild their heap once it holds more than STALE_FACTOR entries per pair plus
/// STALE_ENTRIES_KEPT (memory only: what `best` gives does not depend on it).
const STALE_FACTOR: usize = 2;
const STALE_ENTRIES_KEPT: usize = 50_000;

/// The pair chosen at one step and its competitors (the chosen pair first).
pub struct Pick {
    pub pair: Pair,
    pub count: i64,
    pub score: Option<f64>,
    pub words: Vec<u32>,
    pub candidates: Vec<Pair>,
    pub candidate_counts: Vec<i64>,
    pub candidate_scores: Option<Vec<f64>>,
    pub candidate_symbol_counts: Option<Vec<(i64, i64)>>,
}

pub enum Queue {
    Library(LibraryQueue),
    Course(CourseQueue),
}

impl Queue {
    pub fn pick(&mut self, engine: &mut Engine) -> Option<Pick> {
        match self {
            Queue::Library(queue) => queue.pick(engine),
            Queue::Course(queue) => queue.pick(engine),
        }
    }

    pub fn after_merge(&mut self, engine: &mut Engine, pair: Pair, merged: Merged) {
        match self {
            Queue::Library(queue) => queue.after_merge(engine, merged),
            Queue::Course(queue) => queue.after_merge(engine, pair, merged),
        }
    }
}

/// An entry of the library's heap: the pair's count when pushed (negated: smallest first orders
/// like the library's max-heap), the pair, and where the words it will rewrite sit in the queue's
/// `lists`. Ranked by (negated count, pair) alone (`rank`): two entries of one pair at one count
/// are equal, as in the library, and pop in the order `OctonaryHeap`'s layout gives them.
#[derive(Clone, Copy)]
struct Entry {
    negated_count: i64,
    pair: Pair,
    start: u32,
    length: u32,
}

/// The library's `dary_heap::OctonaryHeap<Merge>` (tokenizers 0.23, `bpe/trainer.rs`), step for
/// step, as explorer/training/bpe/queues.py's `OctonaryHeap`: 8 children per node; `push` sifts up,
/// `pop` moves the last entry to the root, sifts it down to the bottom (to the last of the best
/// children) and back up; sifting up stops at a parent that is not worse.
struct OctonaryHeap {
    data: Vec<Entry>,
}

const ARITY: usize = 8;

fn rank(entry: &Entry) -> (i64, Pair) {
    (entry.negated_count, entry.pair)
}

impl OctonaryHeap {
    fn push(&mut self, entry: Entry) {
        if self.data.len() == self.data.capacity() {
            // Grown by an eighth at a time, as the lists are.
            self.data.reserve_exact((self.data.len() / 8).max(1 << 10));
        }
        self.data.push(entry);
        self.sift_up(self.data.len() - 1, entry);
    }

    fn pop(&mut self) -> Option<Entry> {
        let mut entry = self.data.pop()?;
        if !self.data.is_empty() {
            std::mem::swap(&mut entry, &mut self.data[0]);
            self.sift_down_to_bottom();
        }
        Some(entry)
    }

    fn sift_up(&mut self, mut pos: usize, entry: Entry) {
        let data = &mut self.data;
        while pos > 0 {
            let parent = (pos - 1) / ARITY;
            if rank(&entry) >= rank(&data[parent]) {
                break;
            }
            data[pos] = data[parent];
            pos = parent;
        }
        data[pos] = entry;
    }

    fn sift_down_to_bottom(&mut self) {
        let data = &mut self.data;
        let end = data.len();
        let entry = data[0];
        let mut pos = 0;
        let mut child = 1;
        while child < end {
            // The last of the best children (all ARITY of them, or the last few).
            child = Self::best_of(data, child, (child + ARITY).min(end));
            data[pos] = data[child];
            pos = child;
            child = ARITY * pos + 1;
        }
        self.sift_up(pos, entry);
    }

    /// The last of the best entries in `data[first..end]`, as dary_heap picks a child.
    fn best_of(data: &[Entry], first: usize, end: usize) -> usize {
        let mut best = first;
        for other in first + 1..end {
            if rank(&data[best]) >= rank(&data[other]) {
                best = other;
            }
        }
        best
    }
}

pub struct LibraryQueue {
    limit: usize,
    heap: OctonaryHeap,
    /// Every entry's words end to end, in the order pushed: 4 bytes a word, where a vector and a
    /// table slot per entry took about 90 bytes more. A popped entry's words stay, unused, until
    /// they are as many as the entries' own (`reclaim`): the first pops are the most frequent
    /// pairs, whose lists are the longest.
    lists: Vec<u32>,
    /// How many of `lists`' words belong to entries in the heap.
    live_words: usize,
    /// pair -> how many entries it has in the heap, for pairs that have one (a pair without one
    /// cannot be picked)
    entries: FxHashMap<Pair, i64>,
    /// The runners-up come from a ranking of their own, never from the heap.
    ranking: Ranking<i64>,
}

impl LibraryQueue {
    pub fn new(engine: &mut Engine, candidates: usize) -> LibraryQueue {
        let initial = std::mem::take(&mut engine.initial_pair_words);
        let mut queue = LibraryQueue {
            limit: candidates.max(1),
            heap: OctonaryHeap { data: Vec::new() },
            lists: Vec::new(),
            live_words: 0,
            entries: FxHashMap::default(),
            ranking: Ranking::new(Vec::new()),
        };
        let mut ranked = Vec::new();
        assert!(
            initial.words.len() <= u32::MAX as usize,
            "the queue's lists are indexed by u32"
        );
        for (at, &pair) in initial.pairs.iter().enumerate() {
            let count = engine.pair_counts.get(&pair).copied().unwrap_or(0);
            if count > 0 {
                let start = initial.starts[at];
                let length = initial.starts[at + 1] - start;
                queue.live_words += length;
                queue.heap.push(Entry {
                    negated_count: -count,
                    pair,
                    start: start as u32,
                    length: length as u32,
                });
                queue.entries.insert(pair, 1);
                ranked.push((-count, pair));
            }
        }
        queue.lists = initial.words;
        queue.ranking = Ranking::new(ranked);
        queue
    }

    fn pick(&mut self, engine: &mut Engine) -> Option<Pick> {
        let pair_counts = &engine.pair_counts;
        let (entry, current) = loop {
            let entry = self.heap.pop()?;
            let current = pair_counts.get(&entry.pair).copied().unwrap_or(0);
            if -entry.negated_count == current {
                break (entry, current);
            }
            if current > 0 {
                self.heap.push(Entry {
                    negated_count: -current,
                    ..entry
                });
            } else {
                self.live_words -= entry.length as usize;
                self.drop_entry(entry.pair);
            }
        };
        let winner = entry.pair;
        self.live_words -= entry.length as usize;
        self.drop_entry(winner);
        let entries = &self.entries;
        let best = self.ranking.best(self.limit, false, |pair| {
            let count = pair_counts.get(&pair).copied().unwrap_or(0);
            (count > 0 && entries.get(&pair).copied().unwrap_or(0) != 0).then_some(-count)
        });
        let mut candidates = vec![winner];
        candidates.extend(
            best.iter()
                .map(|&(_, pair)| pair)
                .filter(|&pair| pair != winner)
                .take(self.limit - 1),
        );
        let candidate_counts = candidates
            .iter()
            .map(|pair| pair_counts.get(pair).copied().unwrap_or(0))
            .collect();
        Some(Pick {
            pair: winner,
            count: current,
            score: None,
            words: self.lists[entry.start as usize..(entry.start + entry.length) as usize].to_vec(),
            candidates,
            candidate_counts,
            candidate_scores: None,
            candidate_symbol_counts: None,
        })
    }

    /// One entry of `pair` fewer in the heap; a pair with none leaves `entries`.
    fn drop_entry(&mut self, pair: Pair) {
        let held = self
            .entries
            .get_mut(&pair)
            .expect("a pair in the heap has entries");
        *held -= 1;
        if *held == 0 {
            self.entries.remove(&pair);
        }
    }

    /// The words of popped entries dropped from `lists`, the entries' own moved down in place
    /// in the order they sit there, once the dropped are at least as many as the kept (so each
    /// word is moved a bounded number of times, on average).
    fn reclaim(&mut self) {
        if self.lists.len() - self.live_words < self.live_words.max(1 << 16) {
            return;
        }
        let data = &mut self.heap.data;
        let mut order: Vec<u32> = (0..data.len() as u32).collect();
        order.sort_unstable_by_key(|&at| data[at as usize].start);
        let mut end = 0usize;
        for at in order {
            let entry = &mut data[at as usize];
            let (start, length) = (entry.start as usize, entry.length as usize);
            self.lists.copy_within(start..start + length, end);
            entry.start = end as u32;
            end += length;
        }
        self.lists.truncate(end);
        self.lists.shrink_to(end + end / 8);
    }

    fn after_merge(&mut self, engine: &Engine, merged: Merged) {
        self.reclaim();
        for (pair, words) in merged.new_pairs {
            let current = engine.pair_counts.get(&pair).copied().unwrap_or(0);
            if current > 0 {
                let start = self.lists.len();
                if self.lists.capacity() - start < words.len() {
                    // Grown by an eighth at a time: doubling would leave up to half of it unused.
                    self.lists.reserve_exact(words.len().max(start / 8));
                }
                self.lists.extend_from_slice(&words);
                assert!(
                    self.lists.len() <= u32::MAX as usize,
                    "the queue's lists are indexed by u32"
                );
                self.live_words += words.len();
                self.heap.push(Entry {
                    negated_count: -current,
                    pair,
                    start: start as u32,
                    length: words.len() as u32,
                });
                *self.entries.entry(pair).or_insert(0) += 1;
                self.ranking.push(-current, pair);
            }
        }
        // The runners-up's heap keeps an entry per count a pair had: rebuilt from the pairs that
        // can still be picked (a count and an entry in the heap), as the course's is.
        if self.ranking.heap_size() > STALE_FACTOR * self.entries.len() + STALE_ENTRIES_KEPT {
            let pair_counts = &engine.pair_counts;
            self.ranking.compact(
                self.entries
                    .keys()
                    .filter_map(|pair| {
                        let count = pair_counts.get(pair).copied().unwrap_or(0);
                        (count > 0).then_some((-count, *pair))
                    })
                    .collect(),
            );
        }
    }
}

/// The course's ranking: by count, or by likelihood score.
enum CourseRanking {
    Count(Ranking<i64>),
    Likelihood(Ranking<NegatedScore>),
}

pub struct CourseQueue {
    limit: usize,
    ranking: CourseRanking,
}

fn count_of(engine: &Engine, pair: Pair) -> i64 {
    engine.pair_counts.get(&pair).copied().unwrap_or(0)
}

/// `count / (count(a) * count(b))`, negated; None for a pair that no longer occurs.
fn likelihood_rank(engine: &Engine, pair: Pair) -> Option<NegatedScore> {
    let count = count_of(engine, pair);
    if count <= 0 {
        return None;
    }
    let freqs = engine
        .symbol_freqs
        .as_ref()
        .expect("a likelihood queue's engine tracks symbol frequencies");
    let (left, right) = unpack(pair);
    let product = freqs[&left] as u128 * freqs[&right] as u128;
    Some(NegatedScore(-ratio(count as u128, product)))
}

fn count_rank(engine: &Engine, pair: Pair) -> Option<i64> {
    let count = count_of(engine, pair);
    (count > 0).then_some(-count)
}

impl CourseQueue {
    pub fn new(engine: &Engine, candidates: usize, likelihood: bool) -> CourseQueue {
        let ranking = if likelihood {
            CourseRanking::Likelihood(Ranking::new(Self::entries(engine, likelihood_rank)))
        } else {
            CourseRanking::Count(Ranking::new(Self::entries(engine, count_rank)))
        };
        CourseQueue {
            limit: candidates.max(1),
            ranking,
        }
    }

    fn entries<R: Copy>(engine: &Engine, rank: fn(&Engine, Pair) -> Option<R>) -> Vec<(R, Pair)> {
        engine
            .pair_counts
            .keys()
            .filter_map(|&pair| rank(engine, pair).map(|r| (r, pair)))
            .collect()
    }

    fn pick(&mut self, engine: &mut Engine) -> Option<Pick> {
        let limit = self.limit;
        // The best pairs (every pair tied at the best too), as (score, pair), best first.
        let held: Vec<(f64, i64, Pair)> = match &mut self.ranking {
            CourseRanking::Count(ranking) => {
                let view = &*engine;
                ranking
                    .best(limit, true, |pair| count_rank(view, pair))
                    .iter()
                    .map(|&(rank, pair)| (0.0, rank, pair))
                    .collect()
            }
            CourseRanking::Likelihood(ranking) => {
                let view = &*engine;
                ranking
                    .best(limit, true, |pair| likelihood_rank(view, pair))
                    .iter()
                    .map(|&(rank, pair)| (-rank.0, 0, pair))
                    .collect()
            }
        };
        let first = *held.first()?;
        let tied: Vec<Pair> = held
            .iter()
            .filter(|entry| (entry.0, entry.1) == (first.0, first.1))
            .map(|entry| entry.2)
            .collect();
        let winner = if tied.len() == 1 {
            tied[0]
        } else {
            *tied
                .iter()
                .min_by_key(|&&pair| engine.first_occurrence(pair))
                .expect("tied is not empty")
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
        let words = engine
            .pair_words
            .as_ref()
            .expect("the course's engine tracks pair words")[&winner]
            .iter()
            .copied()
            .collect();
        let likelihood = matches!(self.ranking, CourseRanking::Likelihood(_));
        let (score, candidate_scores, candidate_symbol_counts) = if likelihood {
            let freqs = engine
                .symbol_freqs
                .as_ref()
                .expect("tracked for a likelihood queue");
            let symbol_counts = candidates
                .iter()
                .map(|&pair| {
                    let (left, right) = unpack(pair);
                    (freqs[&left], freqs[&right])
                })
                .collect();
            (
                Some(first.0),
                Some(ranked.iter().map(|entry| entry.0).collect()),
                Some(symbol_counts),
            )
        } else {
            (None, None, None)
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

    fn after_merge(&mut self, engine: &mut Engine, pair: Pair, merged: Merged) {
        // The course recounts after merging: the merged pair has no occurrence left, whatever the
        // overlap deltas say (in `aaa`, (a, a) counted 2 but only 1 was merged).
        engine.pair_counts.remove(&pair);
        engine
            .pair_words
            .as_mut()
            .expect("tracked for the course")
            .remove(&pair);
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
                    ranking.compact(Self::entries(engine, count_rank));
                }
            }
            CourseRanking::Likelihood(ranking) => {
                // Lower frequencies for the two merged symbols raise the score of every pair
                // holding them: each gets an entry at its new score.
                let mut to_push: Vec<Pair> =
                    merged.new_pairs.iter().map(|(gained, _)| *gained).collect();
                let (left, right) = unpack(pair);
                let freqs = engine
                    .symbol_freqs
                    .as_ref()
                    .expect("tracked for a likelihood queue");
                let by_symbol = engine
                    .pairs_by_symbol
                    .as_mut()
                    .expect("tracked for a likelihood queue");
                for symbol in [left, right] {
                    if freqs.get(&symbol).copied().unwrap_or(0) == 0 {
                        by_symbol.remove(&symbol); // gone from the corpus: its pairs are dead
                        continue;
                    }
                    if let Some(holders) = by_symbol.get(&symbol) {
                        to_push.extend(holders.iter().copied());
                    }
                }
                to_push.sort_unstable();
                to_push.dedup();
                let mut dead = Vec::new();
                for candidate in to_push {
                    match likelihood_rank(engine, candidate) {
                        Some(rank) => ranking.push(rank, candidate),
                        None => dead.push(candidate),
                    }
                }
                let by_symbol = engine
                    .pairs_by_symbol
                    .as_mut()
                    .expect("tracked for a likelihood queue");
                for candidate in dead {
                    let (a, b) = unpack(candidate);
                    for symbol in [a, b] {
                        if let Some(holders) = by_symbol.get_mut(&symbol) {
                            holders.remove(&candidate);
                        }
                    }
                }
                if ranking.heap_size()
                    > STALE_FACTOR * engine.pair_counts.len() + STALE_ENTRIES_KEPT
                {
                    ranking.compact(Self::entries(engine, likelihood_rank));
                }
            }
        }
    }
}
