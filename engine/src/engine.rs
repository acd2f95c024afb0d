//! The incremental merge engine: explorer/training/bpe/engine.py, line for line in behaviour.
//!
//! Each distinct word is a run of symbol ids with its corpus count, all words end to end in one
//! buffer (`Words`: no allocation per word); `pair_counts` holds every adjacent pair's weighted
//! count, overlaps included; a merge rewrites only the words it is given
//! and reports the same pair-count deltas, in the same places, as the Python engine (the library's
//! `Word::merge`), and the step that removed each character boundary (`boundary_steps`).
//!
//! What it does not do: choose the next pair, or keep the indexes only one flavor needs (the
//! course's words per pair, the likelihood score's symbol frequencies: queues.rs, with their
//! queue), or name tokens (run.rs).

use std::collections::hash_map::Entry;

use rustc_hash::FxHashMap;

/// A pair `(left, right)` as one `u64`; orders like the tuple.
pub type Pair = u64;

pub fn pack(left: u32, right: u32) -> Pair {
    (left as u64) << 32 | right as u64
}

pub fn unpack(pair: Pair) -> (u32, u32) {
    ((pair >> 32) as u32, pair as u32)
}

pub use crate::shared::NEVER;

/// Every word's symbols end to end in one buffer: word i starts at `starts[i]` and holds
/// `lengths[i]` symbols; a merge shortens a word where it is, leaving the rest of its room
/// unused. A word of n symbols had n - 1 boundaries to begin with: they sit end to end at
/// `starts[i] - i` in a buffer of the same layout (`boundaries`). 12 bytes a word beside the
/// symbols, where a vector per word took 24 and an allocation (and as much again for its
/// boundary steps).
pub struct Words {
    symbols: Vec<u32>,
    /// One more than the words: where each word started, and the end of the last.
    starts: Vec<usize>,
    lengths: Vec<u32>,
}

impl Words {
    /// Words given as their symbols end to end and each one's number of symbols (at least one).
    pub fn new(symbols: Vec<u32>, lengths: Vec<u32>) -> Result<Words, &'static str> {
        let mut starts = Vec::with_capacity(lengths.len() + 1);
        let mut end = 0usize;
        starts.push(end);
        for &length in &lengths {
            if length == 0 {
                return Err("every word has at least one symbol");
            }
            end += length as usize;
            starts.push(end);
        }
        if end != symbols.len() {
            return Err("the words' lengths do not add up to their symbols");
        }
        Ok(Words {
            symbols,
            starts,
            lengths,
        })
    }

    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// Word `index`'s symbols as they are now.
    pub fn get(&self, index: usize) -> &[u32] {
        let start = self.starts[index];
        &self.symbols[start..start + self.lengths[index] as usize]
    }

    /// Word `index` rewritten as `symbols`, no longer than it was.
    fn set(&mut self, index: usize, symbols: &[u32]) {
        let start = self.starts[index];
        self.symbols[start..start + symbols.len()].copy_from_slice(symbols);
        self.lengths[index] = symbols.len() as u32;
    }

    pub fn iter(&self) -> impl Iterator<Item = &[u32]> {
        (0..self.len()).map(|index| self.get(index))
    }

    /// Where word `index`'s boundaries sit in a buffer of every word's boundaries end to end.
    pub fn boundaries(&self, index: usize) -> std::ops::Range<usize> {
        self.starts[index] - index..self.starts[index + 1] - index - 1
    }

    /// How many boundaries all the words had to begin with.
    fn boundary_count(&self) -> usize {
        self.symbols.len() - self.len()
    }
}

/// What one merge did: the symbol it made, the pairs that gained (each with the words where they
/// did, in the order first met), how many distinct words changed and how many corpus occurrences
/// were merged.
pub struct Merged {
    pub new_symbol: u32,
    pub new_pairs: Vec<(Pair, Vec<u32>)>,
    pub words_changed: i64,
    pub occurrences: i64,
}

/// Pairs, each with the words that held it when first counted (in word order, each once): every
/// pair's words end to end in one buffer, where a vector per pair took 24 bytes and an allocation.
#[derive(Default)]
pub struct PairWords {
    /// In order of first appearance.
    pub pairs: Vec<Pair>,
    /// One more than the pairs: where each pair's words start in `words`, and the end of the last.
    pub starts: Vec<usize>,
    pub words: Vec<u32>,
}

impl PairWords {
    /// Pair `at` and the words that hold it.
    pub fn get(&self, at: usize) -> (Pair, &[u32]) {
        (
            self.pairs[at],
            &self.words[self.starts[at]..self.starts[at + 1]],
        )
    }
}

/// `pair`'s count moved by `delta`; a count of 0 leaves the table (a pair not in it counts 0), so
/// that the table holds the pairs the words hold now, not every pair a merge ever made.
fn add_count(pair_counts: &mut FxHashMap<Pair, i64>, pair: Pair, delta: i64) {
    match pair_counts.entry(pair) {
        Entry::Occupied(mut entry) => {
            *entry.get_mut() += delta;
            if *entry.get() == 0 {
                entry.remove();
            }
        }
        Entry::Vacant(entry) => {
            if delta != 0 {
                entry.insert(delta);
            }
        }
    }
}

pub struct Engine {
    pub words: Words,
    pub counts: Vec<i64>,
    /// Each token's length in characters, decorations included (grows with the vocabulary).
    pub token_lengths: Vec<i64>,
    pub prefix_length: i64,
    /// Per word, per boundary between two characters: the step that removed it (every word's
    /// end to end: `Words::boundaries`).
    pub boundary_steps: Vec<i32>,
    /// Every pair's count, but those at 0 (`add_count`).
    pub pair_counts: FxHashMap<Pair, i64>,
    /// Every pair with the words that held it when first counted, until the queue takes it over
    /// (the library's first entries, the course's index of words per pair).
    pub initial_pair_words: PairWords,
}

impl Engine {
    pub fn new(
        words: Words,
        counts: Vec<i64>,
        token_lengths: Vec<i64>,
        prefix_length: i64,
    ) -> Engine {
        let boundary_steps = vec![NEVER; words.boundary_count()];
        let mut engine = Engine {
            words,
            counts,
            token_lengths,
            prefix_length,
            boundary_steps,
            pair_counts: FxHashMap::default(),
            initial_pair_words: PairWords::default(),
        };
        engine.count_pairs();
        engine
    }

    /// Every pair's count, and the words holding each, in two passes over the words: the first
    /// counts them (and how many words hold each pair), the second lists each pair's words in
    /// its own part of one buffer.
    fn count_pairs(&mut self) {
        const NO_WORD: u32 = u32::MAX;
        let mut slot: FxHashMap<Pair, usize> = FxHashMap::default();
        let mut pairs: Vec<Pair> = Vec::new();
        let mut holders: Vec<usize> = Vec::new();
        // The last word counted for each pair: a word holding a pair twice is listed once.
        let mut last_word: Vec<u32> = Vec::new();
        for (index, symbols) in self.words.iter().enumerate() {
            let count = self.counts[index];
            for window in symbols.windows(2) {
                let pair = pack(window[0], window[1]);
                *self.pair_counts.entry(pair).or_insert(0) += count;
                let at = *slot.entry(pair).or_insert_with(|| {
                    pairs.push(pair);
                    holders.push(0);
                    last_word.push(NO_WORD);
                    pairs.len() - 1
                });
                if last_word[at] != index as u32 {
                    last_word[at] = index as u32;
                    holders[at] += 1;
                }
            }
        }
        let mut starts = Vec::with_capacity(pairs.len() + 1);
        let mut end = 0usize;
        starts.push(end);
        for &held in &holders {
            end += held;
            starts.push(end);
        }
        // `holders` becomes where each pair's next word goes.
        holders.copy_from_slice(&starts[..pairs.len()]);
        last_word.fill(NO_WORD);
        let mut words = vec![0u32; end];
        for (index, symbols) in self.words.iter().enumerate() {
            for window in symbols.windows(2) {
                let at = slot[&pack(window[0], window[1])];
                if last_word[at] != index as u32 {
                    last_word[at] = index as u32;
                    words[holders[at]] = index as u32;
                    holders[at] += 1;
                }
            }
        }
        self.initial_pair_words = PairWords {
            pairs,
            starts,
            words,
        };
    }

    /// Merge `pair` into `new_symbol` in every word of `candidates` that holds it, left to right
    /// (in `a a a`, the first two), at merge step `step`.
    pub fn merge<'a>(
        &mut self,
        pair: Pair,
        new_symbol: u32,
        candidates: impl Iterator<Item = &'a u32>,
        step: i32,
    ) -> Merged {
        let (left, right) = unpack(pair);
        let mut gained: FxHashMap<Pair, usize> = FxHashMap::default();
        let mut new_pairs: Vec<(Pair, Vec<u32>)> = Vec::new();
        let mut words_changed = 0i64;
        let mut occurrences = 0i64;
        let lengths = &self.token_lengths;
        let prefix_length = self.prefix_length;
        let last_character_of_left = lengths[left as usize] - 1;
        let pair_counts = &mut self.pair_counts;
        let mut rebuilt: Vec<u32> = Vec::new();

        let mut note = |pair: Pair, index: u32, new_pairs: &mut Vec<(Pair, Vec<u32>)>| {
            let at = *gained.entry(pair).or_insert_with(|| {
                new_pairs.push((pair, Vec::new()));
                new_pairs.len() - 1
            });
            let words = &mut new_pairs[at].1;
            if words.last() != Some(&index) {
                words.push(index);
            }
        };

        for &index in candidates {
            let symbols = self.words.get(index as usize);
            let size = symbols.len();
            if size < 2 || !symbols.windows(2).any(|w| w[0] == left && w[1] == right) {
                continue;
            }
            let count = self.counts[index as usize];
            let steps = &mut self.boundary_steps[self.words.boundaries(index as usize)];
            rebuilt.clear();
            // Characters before the symbol being written, less one prefix per symbol (see the
            // Python engine: the boundary removed sits after the left symbol's characters).
            let mut characters = 0i64;
            let mut merged_here = 0i64;
            let mut i = 0;
            while i < size {
                if i + 1 < size && symbols[i] == left && symbols[i + 1] == right {
                    let position = rebuilt.len() as i64;
                    steps[(characters - prefix_length * position + last_character_of_left)
                        as usize] = step;
                    if let Some(&previous) = rebuilt.last() {
                        add_count(pair_counts, pack(previous, left), -count);
                        let gain = pack(previous, new_symbol);
                        add_count(pair_counts, gain, count);
                        note(gain, index, &mut new_pairs);
                    }
                    if i + 2 < size {
                        let following = symbols[i + 2];
                        add_count(pair_counts, pack(right, following), -count);
                        let gain = pack(new_symbol, following);
                        add_count(pair_counts, gain, count);
                        note(gain, index, &mut new_pairs);
                    }
                    rebuilt.push(new_symbol);
                    characters += lengths[new_symbol as usize];
                    merged_here += 1;
                    i += 2;
                } else {
                    rebuilt.push(symbols[i]);
                    characters += lengths[symbols[i] as usize];
                    i += 1;
                }
            }
            words_changed += 1;
            occurrences += merged_here * count;
            self.words.set(index as usize, &rebuilt);
        }
        Merged {
            new_symbol,
            new_pairs,
            words_changed,
            occurrences,
        }
    }
}
