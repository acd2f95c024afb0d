//! Counting a corpus's words: explorer/corpora/counter.py's `ChunkCounter` (and
//! explorer/training/word_counts.py's `count_corpus`) without normalizers, for the pre-tokenizers
//! whose pieces are runs of character classes (byte-level with GPT-2's pattern, bert, whitespace,
//! whitespace-split), the same words, counts, order and figures.
//!
//! A chunk of the corpus is cut into sequences by its reading: lines cut at "\n" (a "\r" before it
//! belongs to the break, as "\r\n" does), lines with their endings kept (cut just after each "\n",
//! as the `tokenizers` library's `Tokenizer.train(files)` reads a file), or records given one by one.
//! Parts of a chunk cut at line breaks (or groups of records) are counted on their own threads
//! (rayon) and added up in order into owned words (`WordCounter`), so a word keeps the place of its
//! first appearance and the chunk can go. The classes come from classes.rs, generated from the
//! Python pre-tokenizers' tables: the library's Unicode versions, not Rust's.
//!
//! What it does not do: normalize (a run with normalizers counts in Python), the byte-level split
//! patterns of GPT-4 and others, or Metaspace.

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::sync::OnceLock;

use crate::classes::{BERT_PUNCTUATION, LETTER, NUMBER, PYTHON_SPACE, RUNS, SPACE, WORD};
use crate::counted::CountedWords;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PreTokenizer {
    /// GPT-2's `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`, then
    /// every byte as its GPT-2 symbol.
    ByteLevel,
    /// Runs of neither white space nor punctuation, and each punctuation character alone.
    Bert,
    /// `\w+|[^\w\s]+`.
    Whitespace,
    /// `\S+`.
    WhitespaceSplit,
}

impl PreTokenizer {
    pub fn named(name: &str) -> Option<PreTokenizer> {
        match name {
            "byte-level" => Some(PreTokenizer::ByteLevel),
            "bert" => Some(PreTokenizer::Bert),
            "whitespace" => Some(PreTokenizer::Whitespace),
            "whitespace-split" => Some(PreTokenizer::WhitespaceSplit),
            _ => None,
        }
    }
}

/// The figures `count_text` gives: lines (not empty), characters and UTF-8 bytes of the lines, and
/// words as Python's `str.split()` sees them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Figures {
    pub lines: i64,
    pub characters: i64,
    pub utf8_bytes: i64,
    pub words: i64,
}

impl Figures {
    fn add(&mut self, other: &Figures) {
        self.lines += other.lines;
        self.characters += other.characters;
        self.utf8_bytes += other.utf8_bytes;
        self.words += other.words;
    }
}

/// Every Basic Multilingual Plane code point's class bits; the rest by binary search in RUNS.
fn plane_zero() -> &'static [u8] {
    static TABLE: OnceLock<Vec<u8>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = vec![0u8; 0x10000];
        for (index, &(first, bits)) in RUNS.iter().enumerate() {
            let end = RUNS.get(index + 1).map_or(0x110000, |run| run.0);
            for code in first.min(0x10000)..end.min(0x10000) {
                table[code as usize] = bits;
            }
        }
        table
    })
}

#[inline]
fn class_of(table: &[u8], c: char) -> u8 {
    let code = c as u32;
    if code < 0x10000 {
        return table[code as usize];
    }
    let index = RUNS.partition_point(|run| run.0 <= code) - 1;
    RUNS[index].1
}

/// The classes of the characters of one sequence, with their byte offsets.
struct Line<'a> {
    text: &'a str,
    table: &'a [u8],
}

impl<'a> Line<'a> {
    /// The character at byte `at` and its length in bytes.
    #[inline]
    fn char_at(&self, at: usize) -> (char, usize) {
        let c = self.text[at..].chars().next().expect("a character");
        (c, c.len_utf8())
    }

    #[inline]
    fn class_at(&self, at: usize) -> (u8, usize) {
        let (c, length) = self.char_at(at);
        (class_of(self.table, c), length)
    }

    /// Where the run of characters `keep(bits)` starting at byte `at` ends.
    #[inline]
    fn run_end(&self, mut at: usize, keep: impl Fn(u8) -> bool) -> usize {
        let bytes = self.text.as_bytes();
        while at < bytes.len() {
            let (bits, length) = if bytes[at] < 0x80 {
                (self.table[bytes[at] as usize], 1)
            } else {
                self.class_at(at)
            };
            if !keep(bits) {
                break;
            }
            at += length;
        }
        at
    }
}

fn is_letter(bits: u8) -> bool {
    bits & LETTER != 0
}

fn is_number(bits: u8) -> bool {
    bits & NUMBER != 0
}

fn is_other(bits: u8) -> bool {
    bits & (LETTER | NUMBER | SPACE) == 0
}

fn is_space(bits: u8) -> bool {
    bits & SPACE != 0
}

/// The length of a contraction (`s t re ve m ll d`) after an apostrophe, if one follows.
fn contraction(after: &[u8]) -> Option<usize> {
    match after {
        [b's' | b't' | b'm' | b'd', ..] => Some(1),
        [b'r', b'e', ..] | [b'v', b'e', ..] | [b'l', b'l', ..] => Some(2),
        _ => None,
    }
}

/// GPT-2's pattern on one sequence (a line, or a line or record holding "\n" and "\r": they are
/// white space like any other), each match passed to `emit`.
fn gpt2_pieces<'a>(line: &Line<'a>, emit: &mut impl FnMut(&'a str)) {
    let text = line.text;
    let bytes = text.as_bytes();
    let end = bytes.len();
    let mut at = 0;
    while at < end {
        if bytes[at] == b'\'' {
            if let Some(length) = contraction(&bytes[at + 1..]) {
                emit(&text[at..at + 1 + length]);
                at += 1 + length;
                continue;
            }
        }
        let (bits, length) = line.class_at(at);
        // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: a space takes the run after it.
        let (run_start, run_bits) = if bytes[at] == b' ' && at + 1 < end {
            let (next, next_length) = line.class_at(at + 1);
            if is_space(next) {
                (at, bits)
            } else {
                (at + 1 + next_length, next)
            }
        } else {
            (at + length, bits)
        };
        let stop = if is_letter(run_bits) {
            line.run_end(run_start, is_letter)
        } else if is_number(run_bits) {
            line.run_end(run_start, is_number)
        } else if is_other(run_bits) {
            line.run_end(run_start, is_other)
        } else {
            // White space: `\s+(?!\S)` leaves the last space before a non-space; `\s+` takes a lone one.
            let run_end = line.run_end(at, is_space);
            if run_end == end {
                end
            } else {
                let last = text[..run_end]
                    .char_indices()
                    .next_back()
                    .expect("a space")
                    .0;
                if last > at {
                    last
                } else {
                    run_end
                }
            }
        };
        emit(&text[at..stop]);
        at = stop;
    }
}

/// The pieces of one sequence for the pre-tokenizers that cut runs of one class.
fn class_pieces<'a>(kind: PreTokenizer, line: &Line<'a>, emit: &mut impl FnMut(&'a str)) {
    let text = line.text;
    let end = text.len();
    let mut at = 0;
    while at < end {
        let (bits, length) = line.class_at(at);
        if is_space(bits) {
            at = line.run_end(at, is_space);
            continue;
        }
        let stop = match kind {
            PreTokenizer::Bert if bits & BERT_PUNCTUATION != 0 => at + length,
            PreTokenizer::Bert => line.run_end(at, |b| b & (SPACE | BERT_PUNCTUATION) == 0),
            PreTokenizer::Whitespace if bits & WORD != 0 => line.run_end(at, |b| b & WORD != 0),
            PreTokenizer::Whitespace => line.run_end(at, |b| b & (WORD | SPACE) == 0),
            _ => line.run_end(at, |b| !is_space(b)),
        };
        emit(&text[at..stop]);
        at = stop;
    }
}

/// Words of one line as Python's `str.split()` sees them.
fn python_words(line: &Line<'_>) -> i64 {
    let mut words = 0;
    let mut in_word = false;
    for c in line.text.chars() {
        let space = class_of(line.table, c) & PYTHON_SPACE != 0;
        if !space && !in_word {
            words += 1;
        }
        in_word = !space;
    }
    words
}

/// The distinct pieces of a part of the corpus, in order of first appearance, with their counts.
#[derive(Default)]
struct Counted<'a> {
    index: FxHashMap<&'a str, usize>,
    words: Vec<(&'a str, i64)>,
    figures: Figures,
}

impl<'a> Counted<'a> {
    #[inline]
    fn add(&mut self, word: &'a str, count: i64) {
        match self.index.get(word) {
            Some(&at) => self.words[at].1 += count,
            None => {
                self.index.insert(word, self.words.len());
                self.words.push((word, count));
            }
        }
    }
}

/// How a text is cut into sequences (explorer/run_config.py's READINGS).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// One sequence per line, its break ("\n", and a "\r" before it) removed, empty lines dropped.
    Lines,
    /// Cut just after each "\n" (only there), the ending kept: the library's `Tokenizer.train(files)`.
    LinesWithEndings,
    /// Each record's text is one sequence.
    Records,
}

impl Reading {
    pub fn named(name: &str) -> Option<Reading> {
        match name {
            "lines" => Some(Reading::Lines),
            "lines-with-endings" => Some(Reading::LinesWithEndings),
            "records" => Some(Reading::Records),
            _ => None,
        }
    }
}

/// The lines of `text`: cut at "\n", one "\r" before it dropped.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut pieces = text.split('\n').peekable();
    std::iter::from_fn(move || {
        let piece = pieces.next()?;
        // The last piece has no break after it: its "\r" is a character of the line.
        Some(match pieces.peek() {
            Some(_) => piece.strip_suffix('\r').unwrap_or(piece),
            None => piece,
        })
    })
}

/// The pieces of one sequence (white space and line breaks inside it included).
#[inline]
fn sequence_pieces<'a>(kind: PreTokenizer, sequence: &Line<'a>, emit: &mut impl FnMut(&'a str)) {
    match kind {
        PreTokenizer::ByteLevel => gpt2_pieces(sequence, emit),
        _ => class_pieces(kind, sequence, emit),
    }
}

/// Add one non-empty line (without its break) to `figures`.
#[inline]
fn add_line_figures(line: &Line<'_>, figures: &mut Figures) {
    figures.lines += 1;
    figures.characters += line.text.chars().count() as i64;
    figures.utf8_bytes += line.text.len() as i64;
    figures.words += python_words(line);
}

/// The words of `texts` (a part of a chunk of lines, or records) read as `reading`, and their
/// figures (`count_text`'s, whatever the reading) when asked.
fn count_part<'a>(
    texts: &[&'a str],
    kind: PreTokenizer,
    reading: Reading,
    figures: bool,
) -> Counted<'a> {
    let table = plane_zero();
    let mut counted = Counted::default();
    for &text in texts {
        if reading == Reading::Lines {
            // Words and figures in one pass over the lines.
            for line_text in lines(text) {
                if line_text.is_empty() {
                    continue;
                }
                let line = Line {
                    text: line_text,
                    table,
                };
                sequence_pieces(kind, &line, &mut |piece| counted.add(piece, 1));
                if figures {
                    add_line_figures(&line, &mut counted.figures);
                }
            }
            continue;
        }
        if reading == Reading::LinesWithEndings {
            for sequence in text.split_inclusive('\n') {
                let sequence = Line {
                    text: sequence,
                    table,
                };
                sequence_pieces(kind, &sequence, &mut |piece| counted.add(piece, 1));
            }
        } else {
            let record = Line { text, table };
            sequence_pieces(kind, &record, &mut |piece| counted.add(piece, 1));
        }
        if figures {
            for line_text in lines(text).filter(|line| !line.is_empty()) {
                add_line_figures(
                    &Line {
                        text: line_text,
                        table,
                    },
                    &mut counted.figures,
                );
            }
        }
    }
    counted
}

/// `text` cut into parts of about `size` bytes or more, each but the last ending just after a "\n".
pub fn parts(text: &str, size: usize) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let from = start + size.max(1) - 1;
        let end = if from >= bytes.len() {
            bytes.len()
        } else {
            match bytes[from..].iter().position(|&b| b == b'\n') {
                Some(offset) => from + offset + 1,
                None => bytes.len(),
            }
        };
        found.push(&text[start..end]);
        start = end;
    }
    found
}

/// A corpus's words counted chunk by chunk: the distinct words, owned, with their counts in order of
/// first appearance, and the figures. Each chunk (a run of whole lines, or records) is cut into
/// parts of about `part_size` bytes counted on `jobs` threads and added in order; the parts' own
/// words borrow from the chunk and are gone when `add_text` / `add_records` returns, so the memory
/// held between chunks is the distinct words.
pub struct WordCounter {
    kind: PreTokenizer,
    reading: Reading,
    figures: bool,
    pool: Option<rayon::ThreadPool>,
    /// The distinct words so far (byte-level words as raw text, spelled as symbols when read).
    words: CountedWords,
    totals: Figures,
}

impl WordCounter {
    pub fn new(kind: PreTokenizer, reading: Reading, jobs: usize, figures: bool) -> WordCounter {
        let pool = (jobs > 1).then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(jobs)
                .build()
                .expect("a thread pool")
        });
        WordCounter {
            kind,
            reading,
            figures,
            pool,
            words: CountedWords::new(kind == PreTokenizer::ByteLevel),
            totals: Figures::default(),
        }
    }

    /// Count a chunk of whole lines (a chunk without a final "\n" ends its input).
    pub fn add_text(&mut self, text: &str, part_size: usize) {
        let groups: Vec<Vec<&str>> = parts(text, part_size)
            .into_iter()
            .map(|part| vec![part])
            .collect();
        self.add_groups(&groups);
    }

    /// Count records, each one sequence, in groups of about `part_size` bytes.
    pub fn add_records(&mut self, records: &[&str], part_size: usize) {
        let mut groups: Vec<Vec<&str>> = Vec::new();
        let mut size = 0;
        for &record in records {
            if groups.is_empty() || size >= part_size.max(1) {
                groups.push(Vec::new());
                size = 0;
            }
            groups.last_mut().expect("a group").push(record);
            size += record.len();
        }
        self.add_groups(&groups);
    }

    fn add_groups(&mut self, groups: &[Vec<&str>]) {
        let (kind, reading, figures) = (self.kind, self.reading, self.figures);
        match &self.pool {
            Some(pool) if groups.len() > 1 => {
                let counted: Vec<Counted> = pool.install(|| {
                    groups
                        .par_iter()
                        .map(|group| count_part(group, kind, reading, figures))
                        .collect()
                });
                for part in counted {
                    self.add(part);
                }
            }
            _ => {
                for group in groups {
                    let part = count_part(group, kind, reading, figures);
                    self.add(part);
                }
            }
        }
    }

    /// Add a part's counts after those before it: first appearance stays first.
    fn add(&mut self, part: Counted<'_>) {
        self.totals.add(&part.figures);
        for (word, count) in part.words {
            self.words.add(word.as_bytes(), count);
        }
    }

    /// The words in order of first appearance with their counts, and the figures, of everything
    /// counted since the last take; the counter is empty after it.
    pub fn take_words(&mut self) -> (CountedWords, Figures) {
        let fresh = CountedWords::new(self.kind == PreTokenizer::ByteLevel);
        let mut words = std::mem::replace(&mut self.words, fresh);
        words.seal();
        (words, std::mem::take(&mut self.totals))
    }

    /// `take_words` as (word, count) pairs (byte-level words as GPT-2 symbols).
    pub fn take(&mut self) -> (Vec<(String, i64)>, Figures) {
        let (words, figures) = self.take_words();
        let pairs = (0..words.len())
            .map(|at| (words.word(at), words.counts()[at]))
            .collect();
        (pairs, figures)
    }
}

/// The words of `text` read as lines with their counts, in order of first appearance (byte-level
/// words as GPT-2 symbols), and the corpus figures when asked; parts of about `part_size` bytes
/// counted on `jobs` threads: a `WordCounter` given the whole text as one chunk.
pub fn count_corpus(
    text: &str,
    kind: PreTokenizer,
    figures: bool,
    jobs: usize,
    part_size: usize,
) -> (Vec<(String, i64)>, Figures) {
    let mut counter = WordCounter::new(kind, Reading::Lines, jobs, figures);
    counter.add_text(text, part_size);
    counter.take()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str, kind: PreTokenizer) -> Vec<(String, i64)> {
        count_corpus(text, kind, false, 1, 1 << 16).0
    }

    fn pieces(text: &str) -> Vec<String> {
        let table = plane_zero();
        let mut found = Vec::new();
        gpt2_pieces(&Line { text, table }, &mut |piece: &str| {
            found.push(piece.to_string())
        });
        found
    }

    #[test]
    fn gpt2_pattern_pieces() {
        assert_eq!(pieces("Hello world"), ["Hello", " world"]);
        assert_eq!(pieces("it's  IT'S"), ["it", "'s", " ", " IT", "'", "S"]);
        assert_eq!(pieces("a  \tb   "), ["a", "  ", "\t", "b", "   "]);
        assert_eq!(pieces("x 's ?!3 4"), ["x", " '", "s", " ?!", "3", " 4"]);
        assert_eq!(pieces("''s"), ["''", "s"]);
        assert_eq!(pieces("中文 字"), ["中文", " 字"]);
    }

    #[test]
    fn lines_drop_the_carriage_return_of_a_break_only() {
        let found: Vec<&str> = lines("a\r\nb\r\r\n\nc\r").collect();
        assert_eq!(found, ["a", "b\r", "", "c\r"]);
    }

    #[test]
    fn words_keep_the_order_of_first_appearance_across_parts() {
        let text = "b a\nc b\na d\n".repeat(5);
        let one = count_corpus(&text, PreTokenizer::WhitespaceSplit, true, 1, 1 << 16);
        let many = count_corpus(&text, PreTokenizer::WhitespaceSplit, true, 2, 1);
        assert_eq!(one, many);
        assert_eq!(
            one.0,
            [
                ("b".into(), 10),
                ("a".into(), 10),
                ("c".into(), 5),
                ("d".into(), 5)
            ]
        );
        assert_eq!(one.1.lines, 15);
        assert_eq!(one.1.words, 30);
    }

    #[test]
    fn bert_isolates_punctuation() {
        let found = words("don't stop.", PreTokenizer::Bert);
        let found: Vec<&str> = found.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(found, ["don", "'", "t", "stop", "."]);
    }

    #[test]
    fn byte_level_words_are_gpt2_symbols() {
        let found = words("a b\né", PreTokenizer::ByteLevel);
        let found: Vec<&str> = found.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(found, ["a", "Ġb", "Ã©"]);
    }

    fn counted(
        reading: Reading,
        chunks: &[&str],
        jobs: usize,
        part_size: usize,
    ) -> (Vec<(String, i64)>, Figures) {
        let mut counter = WordCounter::new(PreTokenizer::ByteLevel, reading, jobs, true);
        for chunk in chunks {
            match reading {
                Reading::Records => counter.add_records(&[chunk], part_size),
                _ => counter.add_text(chunk, part_size),
            }
        }
        counter.take()
    }

    fn names(words: &[(String, i64)]) -> Vec<&str> {
        words.iter().map(|(w, _)| w.as_str()).collect()
    }

    #[test]
    fn gpt2_pattern_sees_line_breaks_inside_a_sequence_as_the_library_does() {
        // `\s+(?!\S)` takes white space up to the sequence's end, the break included.
        assert_eq!(pieces("a  \n"), ["a", "  \n"]);
        assert_eq!(pieces("\r\n"), ["\r\n"]);
        assert_eq!(pieces("\n\n"), ["\n\n"]);
        // Before a non-space it leaves the last white space character, which stands alone.
        assert_eq!(pieces("a  \nb"), ["a", "  ", "\n", "b"]);
        assert_eq!(pieces("x \r\n y"), ["x", " \r\n", " y"]);
    }

    #[test]
    fn lines_with_endings_cut_after_each_line_feed_only() {
        let (words, figures) = counted(
            Reading::LinesWithEndings,
            &["a  \nb\u{b}c\r\n\n", "d"],
            1,
            1 << 16,
        );
        assert_eq!(names(&words), ["a", "ĠĠĊ", "b", "ċ", "c", "čĊ", "Ċ", "d"]);
        // The figures are count_text's whatever the reading: lines without their breaks.
        assert_eq!(
            (figures.lines, figures.characters, figures.words),
            (3, 7, 4)
        );
    }

    #[test]
    fn a_record_is_one_sequence() {
        let (words, figures) = counted(Reading::Records, &["a  \nb", "a  \n"], 1, 1 << 16);
        let expected = [("a", 2), ("ĠĠ", 1), ("Ċ", 1), ("b", 1), ("ĠĠĊ", 1)];
        assert_eq!(words, expected.map(|(w, c)| (w.to_string(), c)));
        assert_eq!(figures.lines, 3);
    }

    #[test]
    fn chunks_and_parts_add_up_to_the_whole_in_order() {
        let text = "b a  \nc\r\nb\n\na d \n".repeat(4);
        let chunks = parts(&text, 5);
        for reading in [Reading::Lines, Reading::LinesWithEndings] {
            let whole = counted(reading, &[&text], 1, 1 << 16);
            assert_eq!(counted(reading, &chunks, 1, 1 << 16), whole);
            assert_eq!(counted(reading, &[&text], 2, 1), whole);
        }
        let records: Vec<&str> = text.split_inclusive("d").collect();
        let mut one = WordCounter::new(PreTokenizer::Bert, Reading::Records, 1, true);
        one.add_records(&records, 1 << 16);
        let mut many = WordCounter::new(PreTokenizer::Bert, Reading::Records, 2, true);
        many.add_records(&records[..3], 1);
        many.add_records(&records[3..], 1);
        assert_eq!(one.take(), many.take());
    }

    #[test]
    fn take_empties_the_counter() {
        let mut counter = WordCounter::new(PreTokenizer::WhitespaceSplit, Reading::Lines, 1, true);
        counter.add_text("a b\n", 1 << 16);
        assert_eq!(counter.take().0.len(), 2);
        counter.add_text("c\n", 1 << 16);
        let (words, figures) = counter.take();
        assert_eq!(words, [("c".to_string(), 1)]);
        assert_eq!(figures.lines, 1);
    }
}
