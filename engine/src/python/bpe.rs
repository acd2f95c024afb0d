//! `BpeRun`, the merge loop (crate::run) for explorer/training/bpe/compiled.py, and `ratio` for
//! the test that checks it against Python's `int / int`.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use super::counting::CountedWords;
use super::{bytes_of, release_free_memory, vector};
use crate::engine::Words;
use crate::run::{Run, Settings};
use crate::shared::Column;

/// One BPE or WordPiece run: `advance()` until it returns a stop reason, then `columns()`.
#[pyclass(module = "explorer_engine")]
pub(crate) struct BpeRun {
    /// None once `columns()` has handed the columns over.
    run: Option<Run>,
}

fn finished() -> PyErr {
    pyo3::exceptions::PyRuntimeError::new_err("the run's columns were taken: it is over")
}

#[pymethods]
impl BpeRun {
    /// `symbols`: every word's initial symbol ids end to end, `lengths`: each word's number
    /// of symbols (both arrays of u32, e.g. `array("I")`: a compact handover of 100,000s of
    /// words, copied once, straight into the engine's buffer); `settings`: a
    /// `MergeSettings` (explorer/training/bpe/shared.py), read by its attributes' names.
    #[new]
    fn new(
        symbols: &Bound<'_, PyAny>,
        lengths: &Bound<'_, PyAny>,
        counts: Vec<i64>,
        tokens: Vec<String>,
        settings: Settings,
    ) -> PyResult<BpeRun> {
        let lengths = vector::<u32>(lengths)?;
        if lengths.len() != counts.len() {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "lengths and counts do not match",
            ));
        }
        let words = Words::new(vector::<u32>(symbols)?, lengths)
            .map_err(pyo3::exceptions::PyValueError::new_err)?;
        Ok(BpeRun {
            run: Some(Run::new(words, counts, tokens, settings)),
        })
    }

    /// The run over words the compiled counter holds (`WordCounter.take_words`), each as its
    /// initial symbols (decorated with `settings.prefix` and `suffix` as the Python trainer's
    /// `_initial_symbols` does) looked up in `tokens`; the words stay where they are.
    #[staticmethod]
    fn from_words(
        py: Python<'_>,
        words: &CountedWords,
        tokens: Vec<String>,
        suffix: String,
        settings: Settings,
    ) -> PyResult<BpeRun> {
        let counted = &words.words;
        let ids: rustc_hash::FxHashMap<String, u32> = tokens
            .iter()
            .enumerate()
            .map(|(id, token)| (token.clone(), id as u32))
            .collect();
        let prefix = &settings.prefix;
        let (symbols, lengths) = py
            .detach(|| counted.symbols(&ids, prefix, &suffix))
            .map_err(pyo3::exceptions::PyValueError::new_err)?;
        let words =
            Words::new(symbols, lengths).map_err(pyo3::exceptions::PyValueError::new_err)?;
        Ok(BpeRun {
            run: Some(Run::new(words, counted.counts().to_vec(), tokens, settings)),
        })
    }

    /// Merge until a stop reason (returned: vocab_size, no_pair_left, min_frequency, stopped)
    /// or the next checkpoint (None: the caller checks Stop and reports progress, then calls
    /// again). The GIL is released meanwhile.
    fn advance(&mut self, py: Python<'_>) -> PyResult<Option<&'static str>> {
        let run = self.run.as_mut().ok_or_else(finished)?;
        Ok(py.detach(|| run.advance()))
    }

    /// Merges done so far.
    #[getter]
    fn step(&self) -> PyResult<i64> {
        Ok(self.run.as_ref().ok_or_else(finished)?.step)
    }

    /// The recorded columns by name (explorer/training/bpe/shared.py's COLUMN_KINDS: each
    /// one's bytes are an array of its kind), the tokens the run added, and every word's
    /// boundary steps end to end (bytes of `BOUNDARY_STEP_KIND`). Ends the run: its engine and
    /// queue are freed first, and each column as soon as its bytes are made, so that the
    /// columns are never held twice over.
    #[allow(clippy::type_complexity)]
    fn columns<'py>(
        &mut self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyDict>, Vec<String>, Bound<'py, PyBytes>)> {
        let run = self.run.take().ok_or_else(finished)?;
        let (columns, tokens, steps) = run.into_columns();
        let out = PyDict::new(py);
        for (name, column) in columns.into_named() {
            let bytes = match column {
                Column::I32(values) => bytes_of(py, &values),
                Column::I64(values) => bytes_of(py, &values),
                Column::F64(values) => bytes_of(py, &values),
            };
            out.set_item(name, bytes)?;
        }
        let steps = bytes_of(py, &steps);
        release_free_memory();
        Ok((out, tokens, steps))
    }
}

/// `num / den` as Python's `int / int` rounds it. Exported for one test only,
/// tests/parity/test_engines.py, which checks it against Python's own `int / int` (the
/// package never calls it; the queues call `crate::ratio::ratio`).
#[pyfunction]
pub(crate) fn ratio(num: u128, den: u128) -> PyResult<f64> {
    if num == 0 || den == 0 || num >= 1 << 127 || den >= 1 << 127 {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "ratio takes 0 < num, den < 2**127",
        ));
    }
    Ok(crate::ratio::ratio(num, den))
}
