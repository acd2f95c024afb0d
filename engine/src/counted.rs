//! A corpus's distinct words with their counts, in order of first appearance, held flat from
//! counting to the end of training: every word's bytes end to end in one buffer, where each word
//! was a Python string (some 90 bytes) and a slot in two lists.
//!
//! The counter (words.rs's `WordCounter`) adds words through an open-addressing index of u32
//! slots over the buffer (`add`); `seal` drops the index once counting is over. A byte-level
//! word is kept as its raw bytes and spelled as GPT-2 symbols when read (`word`): one symbol
//! per byte. The BPE run takes the words as symbol ids (`symbols`), the trace reads them back.
//!
//! What it does not do: cut a text into words (words.rs) or train (engine.rs, run.rs).

use std::hash::BuildHasher;

use rustc_hash::{FxBuildHasher, FxHashMap};

/// GPT-2's byte symbols: printable bytes stand for themselves, the others for 256 + n.
pub fn byte_symbols() -> [char; 256] {
    let mut symbols = ['\0'; 256];
    let mut extra = 0u32;
    for byte in 0..256u32 {
        let printable = (0x21..=0x7E).contains(&byte)
            || (0xA1..=0xAC).contains(&byte)
            || (0xAE..=0xFF).contains(&byte);
        symbols[byte as usize] = if printable {
            char::from_u32(byte).expect("a byte")
        } else {
            extra += 1;
            char::from_u32(255 + extra).expect("a symbol")
        };
    }
    symbols
}

/// A buffer grown by an eighth at a time (doubling would leave up to half of it unused).
fn grow<T>(values: &mut Vec<T>, more: usize) {
    if values.capacity() - values.len() < more {
        values.reserve_exact(more.max(values.len() / 8));
    }
}

#[derive(Default)]
pub struct CountedWords {
    /// Every word's bytes end to end; word i is `text[ends[i - 1]..ends[i]]`.
    text: Vec<u8>,
    ends: Vec<usize>,
    counts: Vec<i64>,
    /// Whether the words are raw bytes to spell as GPT-2 symbols.
    byte_level: bool,
    /// While counting: word index + 1 per slot, 0 for a free slot (a power of two of them).
    index: Vec<u32>,
}

impl CountedWords {
    pub fn new(byte_level: bool) -> CountedWords {
        CountedWords {
            byte_level,
            ..CountedWords::default()
        }
    }

    pub fn len(&self) -> usize {
        self.counts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    pub fn counts(&self) -> &[i64] {
        &self.counts
    }

    /// Word `at` as counted (raw bytes for a byte-level word).
    pub fn raw(&self, at: usize) -> &[u8] {
        let start = if at == 0 { 0 } else { self.ends[at - 1] };
        &self.text[start..self.ends[at]]
    }

    /// Word `at` as the trainer and the trace spell it.
    pub fn word(&self, at: usize) -> String {
        let raw = self.raw(at);
        if self.byte_level {
            let symbols = byte_symbols();
            raw.iter().map(|&byte| symbols[byte as usize]).collect()
        } else {
            String::from_utf8(raw.to_vec()).expect("words are UTF-8")
        }
    }

    /// The characters of word `at` as spelled.
    fn chars(&self, at: usize) -> Box<dyn Iterator<Item = char> + '_> {
        let raw = self.raw(at);
        if self.byte_level {
            let symbols = byte_symbols();
            Box::new(raw.iter().map(move |&byte| symbols[byte as usize]))
        } else {
            Box::new(std::str::from_utf8(raw).expect("words are UTF-8").chars())
        }
    }

    /// Each word's length in characters as spelled (its number of initial symbols).
    pub fn lengths(&self) -> Vec<u32> {
        (0..self.len())
            .map(|at| {
                if self.byte_level {
                    self.raw(at).len() as u32
                } else {
                    self.chars(at).count() as u32
                }
            })
            .collect()
    }

    /// Add `count` to `word` (raw), a new word going last.
    pub fn add(&mut self, word: &[u8], count: i64) {
        if (self.len() + 1) * 4 > self.index.len() * 3 {
            self.grow_index();
        }
        let mask = self.index.len() - 1;
        let mut slot = FxBuildHasher.hash_one(word) as usize & mask;
        loop {
            match self.index[slot] {
                0 => break,
                held => {
                    let at = held as usize - 1;
                    if self.raw(at) == word {
                        self.counts[at] += count;
                        return;
                    }
                }
            }
            slot = (slot + 1) & mask;
        }
        grow(&mut self.text, word.len());
        grow(&mut self.ends, 1);
        grow(&mut self.counts, 1);
        self.text.extend_from_slice(word);
        self.ends.push(self.text.len());
        self.counts.push(count);
        assert!(
            self.len() < u32::MAX as usize,
            "more distinct words than u32 ids"
        );
        self.index[slot] = self.len() as u32;
    }

    fn grow_index(&mut self) {
        let size = (self.index.len() * 2).max(1 << 10);
        let mut index = vec![0u32; size];
        let mask = size - 1;
        for at in 0..self.len() {
            let mut slot = FxBuildHasher.hash_one(self.raw(at)) as usize & mask;
            while index[slot] != 0 {
                slot = (slot + 1) & mask;
            }
            index[slot] = at as u32 + 1;
        }
        self.index = index;
    }

    /// Counting is over: the index goes, and the buffers keep only what they hold.
    pub fn seal(&mut self) {
        self.index = Vec::new();
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
        self.counts.shrink_to_fit();
    }

    /// The distinct initial symbols of the words, sorted: each character, with `prefix` before it
    /// when it is not a word's first and `suffix` after it when it is its last (the Python
    /// trainer's `_decorate`).
    pub fn initial_symbols(&self, prefix: &str, suffix: &str) -> Vec<String> {
        let mut found: FxHashMap<(char, bool, bool), ()> = FxHashMap::default();
        self.each_symbol(prefix, suffix, |key| {
            found.insert(key, ());
        });
        let mut symbols: Vec<String> = found
            .into_keys()
            .map(|key| decorate(key, prefix, suffix))
            .collect();
        symbols.sort_unstable();
        symbols.dedup();
        symbols
    }

    /// Every word as its initial symbols' ids (`ids`: token -> id) end to end, and each word's
    /// number of symbols; an error naming a symbol `ids` lacks.
    pub fn symbols(
        &self,
        ids: &FxHashMap<String, u32>,
        prefix: &str,
        suffix: &str,
    ) -> Result<(Vec<u32>, Vec<u32>), String> {
        let mut known: FxHashMap<(char, bool, bool), u32> = FxHashMap::default();
        let mut symbols = Vec::with_capacity(self.text.len());
        let mut missing = None;
        self.each_symbol(prefix, suffix, |key| {
            let id = *known.entry(key).or_insert_with(|| {
                let symbol = decorate(key, prefix, suffix);
                ids.get(&symbol).copied().unwrap_or_else(|| {
                    missing.get_or_insert(symbol);
                    0
                })
            });
            symbols.push(id);
        });
        if let Some(symbol) = missing {
            return Err(format!("the symbol {symbol:?} is not in the vocabulary"));
        }
        Ok((symbols, self.lengths()))
    }

    /// `visit((character, first, last))` for every character of every word in order; `first`
    /// and `last` are false where no prefix or suffix would tell them apart.
    fn each_symbol(&self, prefix: &str, suffix: &str, mut visit: impl FnMut((char, bool, bool))) {
        let (marks_first, marks_last) = (!prefix.is_empty(), !suffix.is_empty());
        for at in 0..self.len() {
            let mut chars = self.chars(at).peekable();
            let mut first = true;
            while let Some(c) = chars.next() {
                let last = chars.peek().is_none();
                visit((c, first && marks_first, last && marks_last));
                first = false;
            }
        }
    }
}

fn decorate((c, first, last): (char, bool, bool), prefix: &str, suffix: &str) -> String {
    let mut symbol = String::new();
    if !prefix.is_empty() && !first {
        symbol.push_str(prefix);
    }
    symbol.push(c);
    if !suffix.is_empty() && last {
        symbol.push_str(suffix);
    }
    symbol
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_keep_their_first_appearance_and_add_their_counts() {
        let mut words = CountedWords::new(false);
        for (word, count) in [("b", 1), ("a", 2), ("b", 3), ("ç", 1)] {
            words.add(word.as_bytes(), count);
        }
        for at in 0..3000 {
            words.add(format!("w{at}").as_bytes(), 1); // the index grows
        }
        words.add(b"a", 1);
        words.seal();
        assert_eq!(words.len(), 3003);
        assert_eq!(
            (words.word(0), words.word(1), words.word(2)),
            ("b".into(), "a".into(), "ç".into())
        );
        assert_eq!(&words.counts()[..3], &[4, 3, 1]);
        assert_eq!(&words.lengths()[..3], &[1, 1, 1]);
    }

    #[test]
    fn byte_level_words_are_spelled_as_gpt2_symbols() {
        let mut words = CountedWords::new(true);
        words.add(" é".as_bytes(), 1);
        assert_eq!(words.word(0), "ĠÃ©");
        assert_eq!(words.lengths(), [3]);
        assert_eq!(words.initial_symbols("", ""), ["©", "Ã", "Ġ"]);
    }

    #[test]
    fn decorated_symbols_mark_all_but_the_first_and_the_last() {
        let mut words = CountedWords::new(false);
        words.add(b"aba", 2);
        words.add(b"b", 1);
        assert_eq!(
            words.initial_symbols("##", "</w>"),
            ["##a</w>", "##b", "a", "b</w>"]
        );
        let ids: FxHashMap<String, u32> = ["a", "##b", "##a</w>", "b</w>"]
            .iter()
            .enumerate()
            .map(|(id, token)| (token.to_string(), id as u32))
            .collect();
        assert_eq!(
            words.symbols(&ids, "##", "</w>").unwrap(),
            (vec![0, 1, 2, 3], vec![3, 1])
        );
        assert!(words.symbols(&ids, "", "").is_err());
    }
}
