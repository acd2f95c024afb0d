//! Word counting (crate::words) for explorer/training/word_counts.py (`count_corpus`) and
//! explorer/corpora/counter.py (`WordCounter`), and the words it keeps in Rust (`CountedWords`,
//! crate::counted) for explorer/training/held_words.py.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};

use super::{bytes_of, release_free_memory};

/// The words of `text` with their counts (little-endian i64 bytes), in order of first
/// appearance, and the corpus figures (lines, characters, utf8_bytes, words) or None; None
/// altogether when `pre_tokenizer` is not one this counts or the text holds a lone surrogate
/// (the Python counter counts then). The GIL is released while counting.
#[pyfunction]
#[pyo3(signature = (text, pre_tokenizer, *, figures, jobs, part_size=1 << 20))]
#[allow(clippy::type_complexity)]
pub(crate) fn count_corpus<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyString>,
    pre_tokenizer: &str,
    figures: bool,
    jobs: usize,
    part_size: usize,
) -> PyResult<
    Option<(
        Bound<'py, PyList>,
        Bound<'py, PyBytes>,
        Option<(i64, i64, i64, i64)>,
    )>,
> {
    let Some(kind) = crate::words::PreTokenizer::named(pre_tokenizer) else {
        return Ok(None);
    };
    let Ok(text) = text.to_str() else {
        return Ok(None);
    };
    let (counted, totals) =
        py.detach(|| crate::words::count_corpus(text, kind, figures, jobs, part_size));
    let (words, counts, totals) = hand_over(py, counted, totals)?;
    Ok(Some((words, counts, figures.then_some(totals))))
}

/// Counted words as Python gets them: the words in order, their counts as i64 bytes, and the
/// figures (lines, characters, utf8_bytes, words); the memory the count freed goes back to the
/// system.
#[allow(clippy::type_complexity)]
fn hand_over<'py>(
    py: Python<'py>,
    counted: Vec<(String, i64)>,
    totals: crate::words::Figures,
) -> PyResult<(
    Bound<'py, PyList>,
    Bound<'py, PyBytes>,
    (i64, i64, i64, i64),
)> {
    let counts = bytes_of(
        py,
        &counted
            .iter()
            .map(|(_, count)| *count)
            .collect::<Vec<i64>>(),
    );
    let words = PyList::new(py, counted.into_iter().map(|(word, _)| word))?;
    release_free_memory();
    Ok((
        words,
        counts,
        (
            totals.lines,
            totals.characters,
            totals.utf8_bytes,
            totals.words,
        ),
    ))
}

/// A chunk at least this large hands the memory its counting freed back to the system (a small
/// one would pay for `malloc_trim` more than it returns).
const TRIM_BYTES: usize = 1 << 20;

/// A corpus's words counted chunk by chunk (crate::words::WordCounter), the GIL released while
/// a chunk is counted: `add_text` (the readings "lines" and "lines-with-endings") or
/// `add_records` ("records"), then `take()` as `count_corpus` gives its words, counts and figures.
#[pyclass(module = "explorer_engine")]
pub(crate) struct WordCounter {
    counter: crate::words::WordCounter,
    reading: crate::words::Reading,
}

#[pymethods]
impl WordCounter {
    #[new]
    #[pyo3(signature = (pre_tokenizer, reading, jobs=1))]
    fn new(pre_tokenizer: &str, reading: &str, jobs: usize) -> PyResult<Self> {
        let kind = crate::words::PreTokenizer::named(pre_tokenizer).ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err(format!(
                "the compiled counter does not know the pre-tokenizer {pre_tokenizer:?}"
            ))
        })?;
        let reading_kind = crate::words::Reading::named(reading).ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err(format!("unknown reading {reading:?}"))
        })?;
        Ok(WordCounter {
            counter: crate::words::WordCounter::new(kind, reading_kind, jobs, true),
            reading: reading_kind,
        })
    }

    /// Count a chunk of whole lines; False (nothing counted) when it holds a lone surrogate,
    /// which only Python counts.
    #[pyo3(signature = (text, part_size=1 << 20))]
    fn add_text(
        &mut self,
        py: Python<'_>,
        text: &Bound<'_, PyString>,
        part_size: usize,
    ) -> PyResult<bool> {
        if self.reading == crate::words::Reading::Records {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "the reading 'records' takes records (add_records), not text",
            ));
        }
        let Ok(text) = text.to_str() else {
            return Ok(false);
        };
        let counter = &mut self.counter;
        py.detach(|| counter.add_text(text, part_size));
        if text.len() >= TRIM_BYTES {
            release_free_memory();
        }
        Ok(true)
    }

    /// Count records, each one sequence; False (nothing counted) when one holds a lone
    /// surrogate.
    #[pyo3(signature = (texts, part_size=1 << 20))]
    fn add_records(
        &mut self,
        py: Python<'_>,
        texts: Vec<Bound<'_, PyString>>,
        part_size: usize,
    ) -> PyResult<bool> {
        if self.reading != crate::words::Reading::Records {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "only the reading 'records' takes records (add_records)",
            ));
        }
        let mut records = Vec::with_capacity(texts.len());
        for text in &texts {
            let Ok(record) = text.to_str() else {
                return Ok(false);
            };
            records.push(record);
        }
        let size: usize = records.iter().map(|record| record.len()).sum();
        let counter = &mut self.counter;
        py.detach(|| counter.add_records(&records, part_size));
        if size >= TRIM_BYTES {
            release_free_memory();
        }
        Ok(true)
    }

    /// The words counted since the last take, held in Rust (`CountedWords`), and the figures
    /// (lines, characters, utf8_bytes, words); the counter is empty after it.
    fn take_words(&mut self) -> (CountedWords, (i64, i64, i64, i64)) {
        let (words, totals) = self.counter.take_words();
        release_free_memory();
        (
            CountedWords { words },
            (
                totals.lines,
                totals.characters,
                totals.utf8_bytes,
                totals.words,
            ),
        )
    }

    /// The words counted since the last `take` (first appearance first), their counts as
    /// little-endian i64 bytes, and the figures (lines, characters, utf8_bytes, words); the
    /// counter is empty after it.
    #[allow(clippy::type_complexity)]
    fn take<'py>(
        &mut self,
        py: Python<'py>,
    ) -> PyResult<(
        Bound<'py, PyList>,
        Bound<'py, PyBytes>,
        (i64, i64, i64, i64),
    )> {
        let (counted, totals) = self.counter.take();
        hand_over(py, counted, totals)
    }
}

/// A corpus's distinct words with their counts, in order of first appearance, held by the
/// compiled engine (crate::counted) from counting to the trace: `word(i)`, `words(start,
/// stop)`, `counts()` (little-endian i64 bytes), the initial symbols a trainer starts from.
#[pyclass(module = "explorer_engine", frozen)]
pub(crate) struct CountedWords {
    pub(crate) words: crate::counted::CountedWords,
}

#[pymethods]
impl CountedWords {
    fn __len__(&self) -> usize {
        self.words.len()
    }

    fn word(&self, at: usize) -> PyResult<String> {
        if at >= self.words.len() {
            return Err(pyo3::exceptions::PyIndexError::new_err("no such word"));
        }
        Ok(self.words.word(at))
    }

    /// Words `start` to `stop` (clipped to the words held).
    fn words(&self, start: usize, stop: usize) -> Vec<String> {
        let stop = stop.min(self.words.len());
        (start.min(stop)..stop)
            .map(|at| self.words.word(at))
            .collect()
    }

    fn counts<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes_of(py, self.words.counts())
    }

    /// Each word's number of characters (u32 bytes).
    fn lengths<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes_of(py, &self.words.lengths())
    }

    /// The distinct initial symbols, sorted (crate::counted::CountedWords::initial_symbols).
    fn initial_symbols(&self, prefix: &str, suffix: &str) -> Vec<String> {
        self.words.initial_symbols(prefix, suffix)
    }
}
