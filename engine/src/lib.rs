//! Tokenizer Explorer's compiled engine: the BPE / WordPiece merge loop and its recording, the same
//! trace as the Python engine in explorer/training/bpe/ (the readable reference it is tested
//! against, byte for byte).
//!
//! The Python front (explorer/training/bpe/compiled.py) builds the initial vocabulary, hands the
//! words over as symbol ids, calls `BpeRun.advance` (the GIL released) until a stop reason, doing
//! the Stop and progress checks between blocks of steps as the Python loop does, and builds the
//! Trace from the columns. With the `python` feature off (`cargo test`) it is a plain Rust library.

pub mod engine;
pub mod queues;
pub mod ranking;
pub mod ratio;
pub mod run;
pub mod words;

mod classes;

#[cfg(feature = "python")]
mod python {
    use pyo3::prelude::*;
    use pyo3::types::{PyBytes, PyDict, PyString};

    use crate::run::{Run, Settings, CHECK_EVERY};

    fn bytes_of<T: Copy>(values: &[T]) -> &[u8] {
        // Plain integers and floats, little-endian on every platform this builds on (x86_64, arm64).
        unsafe {
            std::slice::from_raw_parts(values.as_ptr() as *const u8, std::mem::size_of_val(values))
        }
    }

    /// One BPE or WordPiece run: `advance()` until it returns a stop reason, then `columns()`.
    #[pyclass(module = "explorer_engine")]
    struct BpeRun {
        run: Run,
    }

    #[pymethods]
    impl BpeRun {
        #[new]
        #[pyo3(signature = (words, counts, tokens, *, library, likelihood, candidates, prefix, vocab_size, course_size, min_count, max_steps))]
        #[allow(clippy::too_many_arguments)]
        fn new(
            words: Vec<Vec<u32>>,
            counts: Vec<i64>,
            tokens: Vec<String>,
            library: bool,
            likelihood: bool,
            candidates: usize,
            prefix: String,
            vocab_size: i64,
            course_size: Option<i64>,
            min_count: i64,
            max_steps: Option<i64>,
        ) -> PyResult<BpeRun> {
            if words.len() != counts.len() {
                return Err(pyo3::exceptions::PyValueError::new_err(
                    "words and counts differ in length",
                ));
            }
            let settings = Settings {
                library,
                likelihood,
                candidates,
                prefix,
                vocab_size,
                course_size,
                min_count,
                max_steps,
            };
            Ok(BpeRun {
                run: Run::new(words, counts, tokens, settings),
            })
        }

        /// Merge until a stop reason (returned: vocab_size, no_pair_left, min_frequency, stopped)
        /// or the next checkpoint (None: the caller checks Stop and reports progress, then calls
        /// again). The GIL is released meanwhile.
        fn advance(&mut self, py: Python<'_>) -> Option<&'static str> {
            let run = &mut self.run;
            py.detach(|| run.advance())
        }

        /// Merges done so far.
        #[getter]
        fn step(&self) -> i64 {
            self.run.step
        }

        /// The recorded columns as little-endian bytes (i32, i64 or f64 arrays), the tokens the run
        /// added, and every word's boundary steps end to end.
        fn columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
            let run = &self.run;
            let columns = &run.columns;
            let out = PyDict::new(py);
            let arrays: [(&str, &[u8]); 12] = [
                ("merges", bytes_of(&columns.merges)),
                ("merge_counts", bytes_of(&columns.merge_counts)),
                ("merge_scores", bytes_of(&columns.merge_scores)),
                ("words_changed", bytes_of(&columns.words_changed)),
                ("occurrences", bytes_of(&columns.occurrences)),
                ("candidate_ends", bytes_of(&columns.candidate_ends)),
                ("candidate_lefts", bytes_of(&columns.candidate_lefts)),
                ("candidate_rights", bytes_of(&columns.candidate_rights)),
                ("candidate_counts", bytes_of(&columns.candidate_counts)),
                ("candidate_scores", bytes_of(&columns.candidate_scores)),
                (
                    "candidate_left_counts",
                    bytes_of(&columns.candidate_left_counts),
                ),
                (
                    "candidate_right_counts",
                    bytes_of(&columns.candidate_right_counts),
                ),
            ];
            for (name, data) in arrays {
                out.set_item(name, PyBytes::new(py, data))?;
            }
            let steps: Vec<i32> = run
                .engine
                .boundary_steps
                .iter()
                .flatten()
                .copied()
                .collect();
            out.set_item("boundary_steps", PyBytes::new(py, bytes_of(&steps)))?;
            out.set_item("tokens", &run.tokens[..])?;
            Ok(out)
        }
    }

    /// `num / den` as Python's `int / int` rounds it (exposed for the tests).
    #[pyfunction]
    fn ratio(num: u128, den: u128) -> PyResult<f64> {
        if num == 0 || den == 0 || num >= 1 << 127 || den >= 1 << 127 {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "ratio takes 0 < num, den < 2**127",
            ));
        }
        Ok(crate::ratio::ratio(num, den))
    }

    /// The words of `text` with their counts (little-endian i64 bytes), in order of first
    /// appearance, and the corpus figures (lines, characters, utf8_bytes, words) or None; None
    /// altogether when `pre_tokenizer` is not one this counts or the text holds a lone surrogate
    /// (the Python counter counts then). The GIL is released while counting.
    #[pyfunction]
    #[pyo3(signature = (text, pre_tokenizer, *, figures, jobs, part_size=1 << 20))]
    #[allow(clippy::type_complexity)]
    fn count_words<'py>(
        py: Python<'py>,
        text: &Bound<'py, PyString>,
        pre_tokenizer: &str,
        figures: bool,
        jobs: usize,
        part_size: usize,
    ) -> PyResult<
        Option<(
            Vec<String>,
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
            py.detach(|| crate::words::count_words(text, kind, figures, jobs, part_size));
        let counts: Vec<i64> = counted.iter().map(|(_, count)| *count).collect();
        let words: Vec<String> = counted.into_iter().map(|(word, _)| word).collect();
        let totals = figures.then_some((
            totals.lines,
            totals.characters,
            totals.utf8_bytes,
            totals.words,
        ));
        Ok(Some((words, PyBytes::new(py, bytes_of(&counts)), totals)))
    }

    #[pymodule]
    fn explorer_engine(module: &Bound<'_, PyModule>) -> PyResult<()> {
        module.add_class::<BpeRun>()?;
        module.add_function(wrap_pyfunction!(ratio, module)?)?;
        module.add_function(wrap_pyfunction!(count_words, module)?)?;
        module.add("CHECK_EVERY", CHECK_EVERY)?;
        Ok(())
    }
}
