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
    use pyo3::types::{PyBytes, PyDict, PyList, PyString};

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
        /// None once `columns()` has handed the recording over.
        run: Option<Run>,
    }

    /// Hands the memory freed so far back to the system. glibc keeps what a program frees in its
    /// arenas (the counting threads' own arenas included) for reuse, and the Python objects made
    /// next do not fit most of it: a whole `train` held 15-25 MB of freed memory at its peak.
    fn release_free_memory() {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        {
            extern "C" {
                fn malloc_trim(pad: usize) -> i32;
            }
            // SAFETY: malloc_trim only returns free pages of glibc's heaps; it has no precondition.
            unsafe {
                malloc_trim(0);
            }
        }
    }

    /// Little-endian u32 values from their bytes (a trailing partial value is ignored).
    fn u32s(data: &[u8]) -> Vec<u32> {
        data.chunks_exact(4)
            .map(|bytes| u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
            .collect()
    }

    fn finished() -> PyErr {
        pyo3::exceptions::PyRuntimeError::new_err("the run's columns were taken: it is over")
    }

    #[pymethods]
    impl BpeRun {
        /// `symbols`: every word's initial symbol ids end to end, `lengths`: each word's number
        /// of symbols (both little-endian u32 bytes: a compact handover of 100,000s of words).
        #[new]
        #[pyo3(signature = (symbols, lengths, counts, tokens, *, library, likelihood, candidates, prefix, vocab_size, course_size, min_count, max_steps))]
        #[allow(clippy::too_many_arguments)]
        fn new(
            symbols: &[u8],
            lengths: &[u8],
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
            let symbols = u32s(symbols);
            let lengths = u32s(lengths);
            if lengths.len() != counts.len()
                || lengths.iter().map(|&n| n as usize).sum::<usize>() != symbols.len()
            {
                return Err(pyo3::exceptions::PyValueError::new_err(
                    "symbols, lengths and counts do not match",
                ));
            }
            let mut start = 0;
            let words = lengths
                .iter()
                .map(|&length| {
                    start += length as usize;
                    symbols[start - length as usize..start].to_vec()
                })
                .collect();
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
                run: Some(Run::new(words, counts, tokens, settings)),
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

        /// The recorded columns as little-endian bytes (i32, i64 or f64 arrays), the tokens the run
        /// added, and every word's boundary steps end to end. Ends the run: its engine and queue
        /// are freed first, and each column as soon as its bytes are made, so that the recording
        /// is never held twice over.
        fn columns<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
            let run = self.run.take().ok_or_else(finished)?;
            let (columns, tokens, steps) = run.into_recording();
            let out = PyDict::new(py);
            fn put<T: Copy>(out: &Bound<'_, PyDict>, name: &str, values: Vec<T>) -> PyResult<()> {
                out.set_item(name, PyBytes::new(out.py(), bytes_of(&values)))
            }
            put(&out, "merges", columns.merges)?;
            put(&out, "merge_counts", columns.merge_counts)?;
            put(&out, "merge_scores", columns.merge_scores)?;
            put(&out, "words_changed", columns.words_changed)?;
            put(&out, "occurrences", columns.occurrences)?;
            put(&out, "candidate_ends", columns.candidate_ends)?;
            put(&out, "candidate_lefts", columns.candidate_lefts)?;
            put(&out, "candidate_rights", columns.candidate_rights)?;
            put(&out, "candidate_counts", columns.candidate_counts)?;
            put(&out, "candidate_scores", columns.candidate_scores)?;
            put(&out, "candidate_left_counts", columns.candidate_left_counts)?;
            put(
                &out,
                "candidate_right_counts",
                columns.candidate_right_counts,
            )?;
            put(&out, "boundary_steps", steps)?;
            out.set_item("tokens", tokens)?;
            release_free_memory();
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
            py.detach(|| crate::words::count_words(text, kind, figures, jobs, part_size));
        let counts = PyBytes::new(
            py,
            bytes_of(
                &counted
                    .iter()
                    .map(|(_, count)| *count)
                    .collect::<Vec<i64>>(),
            ),
        );
        let words = PyList::new(py, counted.into_iter().map(|(word, _)| word))?;
        let totals = figures.then_some((
            totals.lines,
            totals.characters,
            totals.utf8_bytes,
            totals.words,
        ));
        release_free_memory();
        Ok(Some((words, counts, totals)))
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
