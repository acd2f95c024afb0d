//! One training run: the merge loop of explorer/training/bpe/trainer.py (`_merge`), the
//! vocabulary it grows and the columns it records (explorer/training/bpe/recorder.py).
//!
//! `advance` runs steps until a stop reason or the next checkpoint (every CHECK_EVERY steps,
//! after the vocabulary-size and step-budget tests, where the Python loop calls `should_stop` and
//! `progress`); the caller does those and calls it again.
//!
//! What it does not do: build the initial vocabulary or the Trace (the Python front does both).

use rustc_hash::FxHashMap;

use crate::course_queue::CourseQueue;
use crate::engine::{unpack, Engine, Words};
use crate::queues::{LibraryQueue, Queue};
pub use crate::shared::Columns;
use crate::shared::CHECK_EVERY;

/// A run's settings; from Python, a `MergeSettings` (explorer/training/bpe/shared.py) read by its
/// attributes' names.
#[cfg_attr(feature = "python", derive(pyo3::FromPyObject))]
pub struct Settings {
    pub library: bool,
    pub likelihood: bool,
    pub candidates: usize,
    pub prefix: String,
    pub vocab_size: i64,
    /// The course counts every appended token: its size before any merge; None for the library.
    pub course_size: Option<i64>,
    pub min_count: i64,
    pub max_steps: Option<i64>,
}

pub struct Run {
    pub engine: Engine,
    queue: Queue,
    settings: Settings,
    pub tokens: Vec<String>,
    ids: FxHashMap<String, u32>,
    pub step: i64,
    checked: i64,
    pub columns: Columns,
}

impl Run {
    /// `words`: every word as its initial symbol ids; `tokens`: the initial vocabulary in id order.
    pub fn new(words: Words, counts: Vec<i64>, tokens: Vec<String>, settings: Settings) -> Run {
        let lengths = tokens
            .iter()
            .map(|token| token.chars().count() as i64)
            .collect();
        let ids = tokens
            .iter()
            .enumerate()
            .map(|(id, token)| (token.clone(), id as u32))
            .collect();
        let prefix_length = settings.prefix.chars().count() as i64;
        let mut engine = Engine::new(words, counts, lengths, prefix_length);
        let queue = if settings.library {
            Queue::Library(LibraryQueue::new(&mut engine, settings.candidates))
        } else {
            Queue::Course(CourseQueue::new(
                &mut engine,
                settings.candidates,
                settings.likelihood,
            ))
        };
        Run {
            engine,
            queue,
            settings,
            tokens,
            ids,
            step: 0,
            checked: -1,
            columns: Columns::default(),
        }
    }

    fn add(&mut self, token: String) -> u32 {
        if let Some(&id) = self.ids.get(&token) {
            return id;
        }
        let id = self.tokens.len() as u32;
        self.engine.token_lengths.push(token.chars().count() as i64);
        self.ids.insert(token.clone(), id);
        self.tokens.push(token);
        id
    }

    /// Steps until a stop reason (returned) or the next checkpoint (None).
    pub fn advance(&mut self) -> Option<&'static str> {
        loop {
            let step = self.step;
            let size = match self.settings.course_size {
                Some(initial) => initial + step,
                None => self.tokens.len() as i64,
            };
            if size >= self.settings.vocab_size {
                return Some("vocab_size");
            }
            if Some(step) == self.settings.max_steps {
                return Some("stopped");
            }
            if step % CHECK_EVERY == 0 && self.checked != step {
                self.checked = step;
                return None;
            }
            let Some(pick) = self.queue.pick(&mut self.engine) else {
                return Some("no_pair_left");
            };
            if pick.count < self.settings.min_count {
                return Some("min_frequency");
            }
            // The new token: left + right without the right's continuing-subword prefix; a string
            // made before keeps its id.
            let (left, right) = unpack(pick.pair);
            let prefix = &self.settings.prefix;
            let right_token = &self.tokens[right as usize];
            let right_part = match right_token.strip_prefix(prefix.as_str()) {
                Some(rest) if !prefix.is_empty() => rest,
                _ => right_token.as_str(),
            };
            let token = format!("{}{}", self.tokens[left as usize], right_part);
            let new_id = self.add(token);
            let merged = self
                .engine
                .merge(pick.pair, new_id, pick.words.iter(), step as i32);
            self.record(&pick, new_id, merged.words_changed, merged.occurrences);
            self.queue.after_merge(&mut self.engine, pick.pair, merged);
            self.step += 1;
        }
    }

    fn record(
        &mut self,
        pick: &crate::queues::Pick,
        new_id: u32,
        words_changed: i64,
        occurrences: i64,
    ) {
        let columns = &mut self.columns;
        let (left, right) = unpack(pick.pair);
        columns
            .merges
            .extend([left as i32, right as i32, new_id as i32]);
        columns.merge_counts.push(pick.count);
        if let Some(score) = pick.score {
            columns.merge_scores.push(score);
        }
        columns.words_changed.push(words_changed);
        columns.occurrences.push(occurrences);
        for &pair in &pick.candidates {
            let (a, b) = unpack(pair);
            columns.candidate_lefts.push(a as i32);
            columns.candidate_rights.push(b as i32);
        }
        columns
            .candidate_counts
            .extend_from_slice(&pick.candidate_counts);
        if let Some(scores) = &pick.candidate_scores {
            columns.candidate_scores.extend_from_slice(scores);
        }
        if let Some(symbol_counts) = &pick.candidate_symbol_counts {
            for &(a, b) in symbol_counts {
                columns.candidate_left_counts.push(a);
                columns.candidate_right_counts.push(b);
            }
        }
        columns
            .candidate_ends
            .push(columns.candidate_lefts.len() as i32);
    }

    /// What the run recorded, the rest of it freed first: the columns, the tokens, and every word's
    /// boundary steps end to end.
    pub fn into_columns(self) -> (Columns, Vec<String>, Vec<i32>) {
        let Run {
            engine,
            queue,
            columns,
            tokens,
            ..
        } = self;
        drop(queue);
        (columns, tokens, engine.boundary_steps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::pack;

    /// Words given one vector of symbol ids each.
    fn words_of(words: Vec<Vec<u32>>) -> Words {
        let lengths = words.iter().map(|word| word.len() as u32).collect();
        Words::new(words.concat(), lengths).unwrap()
    }

    /// The boundary steps of word `index`.
    fn steps_of(run: &Run, index: usize) -> &[i32] {
        &run.engine.boundary_steps[run.engine.words.boundaries(index)]
    }

    /// Words as strings of one-character tokens over `alphabet` (ids in its order).
    fn run(
        words: &[(&str, i64)],
        alphabet: &str,
        library: bool,
        likelihood: bool,
        vocab_size: i64,
    ) -> Run {
        let tokens: Vec<String> = alphabet.chars().map(String::from).collect();
        let id = |c: char| tokens.iter().position(|t| t.starts_with(c)).unwrap() as u32;
        let symbols = words_of(
            words
                .iter()
                .map(|(w, _)| w.chars().map(id).collect())
                .collect(),
        );
        let counts = words.iter().map(|&(_, c)| c).collect();
        let initial = tokens.len() as i64;
        let settings = Settings {
            library,
            likelihood,
            candidates: 10,
            prefix: String::new(),
            vocab_size,
            course_size: if library { None } else { Some(initial) },
            min_count: 1,
            max_steps: None,
        };
        let mut run = Run::new(symbols, counts, tokens.clone(), settings);
        while run.advance().is_none() {}
        run
    }

    fn merged_tokens(run: &Run) -> Vec<(String, String)> {
        run.columns
            .merges
            .chunks(3)
            .map(|m| {
                (
                    run.tokens[m[0] as usize].clone(),
                    run.tokens[m[1] as usize].clone(),
                )
            })
            .collect()
    }

    #[test]
    fn library_ties_go_to_the_smallest_pair_of_ids() {
        // (a, b) and (c, d) both occur 3 times: the library takes the smaller (left, right) ids.
        let trace = run(&[("cd", 3), ("ab", 3)], "abcd", true, false, 5);
        assert_eq!(merged_tokens(&trace), vec![("a".into(), "b".into())]);
    }

    #[test]
    fn course_ties_go_to_the_pair_seen_first() {
        // The same tie: the course takes the pair met first scanning the words in order.
        let trace = run(&[("cd", 3), ("ab", 3)], "abcd", false, false, 5);
        assert_eq!(merged_tokens(&trace), vec![("c".into(), "d".into())]);
    }

    #[test]
    fn overlapping_pairs_merge_left_to_right_and_count_as_the_library_does() {
        // `aaa` holds (a, a) twice, overlapping; one merge makes `aa a`, with its boundary steps.
        let trace = run(&[("aaa", 1)], "a", true, false, 2);
        assert_eq!(trace.engine.words.get(0), [1, 0]);
        assert_eq!(steps_of(&trace, 0), [0, crate::engine::NEVER]);
        assert_eq!(trace.columns.merge_counts, vec![2]);
        // The merged pair is not decremented where it was merged (the library's Word::merge), and
        // (right, following) is: 2 - 1 = 1 left over for (a, a).
        assert_eq!(trace.engine.pair_counts[&pack(0, 0)], 1);
        assert_eq!(trace.engine.pair_counts[&pack(1, 0)], 1);
    }

    #[test]
    fn pair_counts_stay_a_recount_of_the_words() {
        let words = [("abcabcab", 3), ("bcab", 2), ("cab", 5), ("abab", 1)];
        let trace = run(&words, "abc", true, false, 6);
        assert_eq!(trace.step, 3);
        // A merged pair keeps its count (the library's quirk, as in Word::merge); every other pair
        // with a count is a recount of the words.
        let merged: Vec<u64> = trace
            .columns
            .merges
            .chunks(3)
            .map(|m| pack(m[0] as u32, m[1] as u32))
            .collect();
        let mut recount: FxHashMap<u64, i64> = FxHashMap::default();
        for (symbols, &count) in trace.engine.words.iter().zip(&trace.engine.counts) {
            for pair in symbols.windows(2) {
                *recount.entry(pack(pair[0], pair[1])).or_insert(0) += count;
            }
        }
        let live: FxHashMap<u64, i64> = trace
            .engine
            .pair_counts
            .iter()
            .filter(|(p, &c)| c != 0 && !merged.contains(p))
            .map(|(&p, &c)| (p, c))
            .collect();
        assert!(!recount.is_empty());
        assert_eq!(live, recount);
        // A pair at 0 has left the table: it holds the pairs the words hold, not every one made.
        assert!(trace.engine.pair_counts.values().all(|&count| count != 0));
    }

    #[test]
    fn a_merge_rewrites_its_words_in_place_and_leaves_their_neighbours_alone() {
        // One buffer for every word: `abab` shrinks to `X X`, `a` and `bab` keep their symbols,
        // and each word's boundary steps are its own.
        let trace = run(&[("abab", 1), ("a", 1), ("bab", 1)], "ab", true, false, 3);
        let words = &trace.engine.words;
        assert_eq!(words.len(), 3);
        assert_eq!(
            words.iter().collect::<Vec<_>>(),
            [&[2, 2][..], &[0], &[1, 2]]
        );
        assert_eq!(steps_of(&trace, 0), [0, crate::engine::NEVER, 0]);
        assert_eq!(steps_of(&trace, 1), [] as [i32; 0]);
        assert_eq!(steps_of(&trace, 2), [crate::engine::NEVER, 0]);
    }

    #[test]
    fn words_without_symbols_or_lengths_that_do_not_add_up_are_refused() {
        assert!(Words::new(vec![0, 1], vec![2, 0]).is_err());
        assert!(Words::new(vec![0, 1], vec![1]).is_err());
    }

    #[test]
    fn likelihood_prefers_rare_symbols_that_always_go_together() {
        // (x, y) occurs twice, always together: score 2 / (2 * 2) = 0.5; (a, b) 6 / (6 * 6).
        let trace = run(&[("ab", 6), ("xy", 2)], "abxy", false, true, 5);
        assert_eq!(merged_tokens(&trace), vec![("x".into(), "y".into())]);
        assert_eq!(trace.columns.merge_scores, vec![0.5]);
        assert_eq!(trace.columns.candidate_left_counts, vec![2, 6]);
    }

    #[test]
    fn a_token_string_made_again_keeps_its_id() {
        // `ab` is already a token (a special token, say): merging a + b makes it again, same id.
        let tokens: Vec<String> = ["a", "b", "ab"].iter().map(|t| t.to_string()).collect();
        let settings = Settings {
            library: true,
            likelihood: false,
            candidates: 10,
            prefix: String::new(),
            vocab_size: 5,
            course_size: None,
            min_count: 1,
            max_steps: None,
        };
        let mut run = Run::new(words_of(vec![vec![0, 1, 0, 1]]), vec![3], tokens, settings);
        let mut reason = run.advance();
        while reason.is_none() {
            reason = run.advance();
        }
        assert_eq!(&run.columns.merges[..3], &[0, 1, 2]);
        assert_eq!(run.tokens.len(), 4); // ab, then ab+ab = abab
        assert_eq!(run.engine.words.get(0), [3]);
        assert_eq!(reason, Some("no_pair_left"));
    }
}
