//! Tokenizer Explorer's compiled engine: the BPE / WordPiece merge loop and its recording, the same
//! trace as the Python engine in explorer/training/bpe/ (the readable reference it is tested
//! against, byte for byte).
//!
//! The Python front (explorer/training/bpe/compiled.py) builds the initial vocabulary, hands the
//! words over as symbol ids, calls `BpeRun.advance` (the GIL released) until a stop reason, doing
//! the Stop and progress checks between blocks of steps as the Python loop does, and builds the
//! Trace from the columns. With the `python` feature off (`cargo test`) it is a plain Rust library.

pub mod counted;
pub mod engine;
pub mod queues;
pub mod ranking;
pub mod ratio;
pub mod run;
pub mod unigram;
pub mod words;

mod classes;

#[cfg(feature = "python")]
mod python {
    use pyo3::buffer::PyBuffer;
    use pyo3::prelude::*;
    use pyo3::types::{PyBytes, PyDict, PyList, PyString};

    use crate::unigram::Lattices;

    use crate::engine::Words;
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

    fn finished() -> PyErr {
        pyo3::exceptions::PyRuntimeError::new_err("the run's columns were taken: it is over")
    }

    #[pymethods]
    impl BpeRun {
        /// `symbols`: every word's initial symbol ids end to end, `lengths`: each word's number
        /// of symbols (both arrays of u32, e.g. `array("I")`: a compact handover of 100,000s of
        /// words, copied once, straight into the engine's buffer).
        #[new]
        #[pyo3(signature = (symbols, lengths, counts, tokens, *, library, likelihood, candidates, prefix, vocab_size, course_size, min_count, max_steps))]
        #[allow(clippy::too_many_arguments)]
        fn new(
            symbols: &Bound<'_, PyAny>,
            lengths: &Bound<'_, PyAny>,
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
            let lengths = vector::<u32>(lengths)?;
            if lengths.len() != counts.len() {
                return Err(pyo3::exceptions::PyValueError::new_err(
                    "lengths and counts do not match",
                ));
            }
            let words = Words::new(vector::<u32>(symbols)?, lengths)
                .map_err(pyo3::exceptions::PyValueError::new_err)?;
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

        /// The run over words the compiled counter holds (`WordCounter.take_words`), each as its
        /// initial symbols (decorated with `prefix` and `suffix` as the Python trainer's
        /// `_initial_symbols` does) looked up in `tokens`; the words stay where they are.
        #[staticmethod]
        #[pyo3(signature = (words, tokens, *, library, likelihood, candidates, prefix, suffix, vocab_size, course_size, min_count, max_steps))]
        #[allow(clippy::too_many_arguments)]
        fn from_words(
            py: Python<'_>,
            words: &CountedWords,
            tokens: Vec<String>,
            library: bool,
            likelihood: bool,
            candidates: usize,
            prefix: String,
            suffix: String,
            vocab_size: i64,
            course_size: Option<i64>,
            min_count: i64,
            max_steps: Option<i64>,
        ) -> PyResult<BpeRun> {
            let counted = &words.words;
            let ids: rustc_hash::FxHashMap<String, u32> = tokens
                .iter()
                .enumerate()
                .map(|(id, token)| (token.clone(), id as u32))
                .collect();
            let (symbols, lengths) = py
                .detach(|| counted.symbols(&ids, &prefix, &suffix))
                .map_err(pyo3::exceptions::PyValueError::new_err)?;
            let words = Words::new(symbols, lengths).map_err(pyo3::exceptions::PyValueError::new_err)?;
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

    /// `num / den` as Python's `int / int` rounds it. Exported for one test only,
    /// tests/parity/test_engines.py, which checks it against Python's own `int / int` (the
    /// package never calls it; the queues call `crate::ratio::ratio`).
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

    /// A chunk at least this large hands the memory its counting freed back to the system (a small
    /// one would pay for `malloc_trim` more than it returns).
    const TRIM_BYTES: usize = 1 << 20;

    /// A corpus's words counted chunk by chunk (crate::words::WordCounter), the GIL released while
    /// a chunk is counted: `add_text` (the readings "lines" and "lines-with-endings") or
    /// `add_records` ("records"), then `take()` as `count_words` gives its words, counts and figures.
    #[pyclass(module = "explorer_engine")]
    struct WordCounter {
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
    }

    /// A corpus's distinct words with their counts, in order of first appearance, held by the
    /// compiled engine (crate::counted) from counting to the trace: `word(i)`, `words(start,
    /// stop)`, `counts()` (little-endian i64 bytes), the initial symbols a trainer starts from.
    #[pyclass(module = "explorer_engine", frozen)]
    struct CountedWords {
        words: crate::counted::CountedWords,
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
            (start.min(stop)..stop).map(|at| self.words.word(at)).collect()
        }

        fn counts<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
            PyBytes::new(py, bytes_of(self.words.counts()))
        }

        /// Each word's number of characters (u32 bytes).
        fn lengths<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
            PyBytes::new(py, bytes_of(&self.words.lengths()))
        }

        /// The distinct initial symbols, sorted (crate::counted::CountedWords::initial_symbols).
        fn initial_symbols(&self, prefix: &str, suffix: &str) -> Vec<String> {
            self.words.initial_symbols(prefix, suffix)
        }
    }

    fn contiguous<T: pyo3::buffer::Element + Copy>(
        array: &Bound<'_, PyAny>,
    ) -> PyResult<(PyBuffer<T>, usize)> {
        let buffer = PyBuffer::<T>::get(array)?;
        if !buffer.is_c_contiguous() {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "arrays must be contiguous",
            ));
        }
        let count = buffer.item_count();
        Ok((buffer, count))
    }

    /// The array's items, borrowed (the buffer keeps the array alive and unchanged meanwhile).
    fn items<T: pyo3::buffer::Element + Copy>(buffer: &(PyBuffer<T>, usize)) -> &[T] {
        unsafe { std::slice::from_raw_parts(buffer.0.buf_ptr() as *const T, buffer.1) }
    }

    fn vector<T: pyo3::buffer::Element + Copy>(array: &Bound<'_, PyAny>) -> PyResult<Vec<T>> {
        Ok(items(&contiguous::<T>(array)?).to_vec())
    }

    fn out_of_memory(_: crate::unigram::OutOfMemory) -> PyErr {
        pyo3::exceptions::PyMemoryError::new_err(
            "the Unigram lattices could not allocate their arrays",
        )
    }

    type WordArrays = (Vec<u32>, Vec<u32>, Vec<f64>, Vec<i32>, u32, usize);

    /// The lattices of the words and the edges (lengths as u8 or u16: no copy of either).
    fn lattices_of<L: pyo3::buffer::Element + Copy + Into<u32>>(
        (word_starts, word_ends, counts, char_piece, unk, max_length): WordArrays,
        starts: &(PyBuffer<u32>, usize),
        lengths: &(PyBuffer<L>, usize),
        pieces: &(PyBuffer<u32>, usize),
    ) -> PyResult<Lattices> {
        if starts.1 != lengths.1 || starts.1 != pieces.1 {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "edge arrays differ in length",
            ));
        }
        Lattices::new(
            word_starts,
            word_ends,
            counts,
            char_piece,
            unk,
            max_length,
            items(starts),
            items(lengths),
            items(pieces),
        )
        .map_err(out_of_memory)
    }

    /// A Unigram corpus's lattices (crate::unigram): the Python engine's CorpusLattices, compiled.
    /// Arrays in are numpy arrays of the stated types, out little-endian bytes; the GIL is
    /// released during the passes.
    #[pyclass(module = "explorer_engine")]
    struct UnigramLattices {
        lattices: Lattices,
    }

    #[pymethods]
    impl UnigramLattices {
        #[new]
        #[pyo3(signature = (word_starts, word_ends, counts, char_piece, unk, max_length, edge_starts, edge_lengths, edge_pieces))]
        #[allow(clippy::too_many_arguments)]
        fn new(
            word_starts: &Bound<'_, PyAny>,
            word_ends: &Bound<'_, PyAny>,
            counts: &Bound<'_, PyAny>,
            char_piece: &Bound<'_, PyAny>,
            unk: u32,
            max_length: usize,
            edge_starts: &Bound<'_, PyAny>,
            edge_lengths: &Bound<'_, PyAny>,
            edge_pieces: &Bound<'_, PyAny>,
        ) -> PyResult<UnigramLattices> {
            let (starts, pieces) = (
                contiguous::<u32>(edge_starts)?,
                contiguous::<u32>(edge_pieces)?,
            );
            let (word_starts, word_ends) = (vector(word_starts)?, vector(word_ends)?);
            let (counts, char_piece) = (vector(counts)?, vector(char_piece)?);
            // Lengths as u8 (pieces under 256 characters: the seeds' own array) or u16.
            let words = (word_starts, word_ends, counts, char_piece, unk, max_length);
            let lattices = match contiguous::<u8>(edge_lengths) {
                Ok(lengths) => lattices_of(words, &starts, &lengths, &pieces)?,
                Err(_) => lattices_of(words, &starts, &contiguous::<u16>(edge_lengths)?, &pieces)?,
            };
            Ok(UnigramLattices { lattices })
        }

        /// Forget the edges of pieces no longer alive (a bool array, one per seed piece).
        fn set_alive(&mut self, alive: &Bound<'_, PyAny>) -> PyResult<()> {
            let alive: Vec<bool> = vector::<u8>(alive)?.into_iter().map(|a| a != 0).collect();
            self.lattices
                .set_alive(&alive)
                .map_err(pyo3::exceptions::PyValueError::new_err)
        }

        #[getter]
        fn edge_count(&self) -> usize {
            self.lattices.edge_count()
        }

        /// (expected counts as f64 bytes, objective) for `scores` (f64, one per piece and `unk`).
        fn expected_counts<'py>(
            &self,
            py: Python<'py>,
            scores: &Bound<'py, PyAny>,
        ) -> PyResult<(Bound<'py, PyBytes>, f64)> {
            let scores: Vec<f64> = vector(scores)?;
            let lattices = &self.lattices;
            let (expected, objective) = py
                .detach(|| lattices.expected_counts(&scores))
                .map_err(out_of_memory)?;
            Ok((PyBytes::new(py, bytes_of(&expected)), objective))
        }

        /// Viterbi counts as f64 bytes.
        fn viterbi_counts<'py>(
            &self,
            py: Python<'py>,
            scores: &Bound<'py, PyAny>,
        ) -> PyResult<Bound<'py, PyBytes>> {
            let scores: Vec<f64> = vector(scores)?;
            let lattices = &self.lattices;
            let freq = py
                .detach(|| lattices.viterbi_counts(&scores))
                .map_err(out_of_memory)?;
            Ok(PyBytes::new(py, bytes_of(&freq)))
        }

        /// (starts i32, lengths u16, pieces i32) bytes of the edges starting at marked positions.
        #[allow(clippy::type_complexity)]
        fn by_start<'py>(
            &self,
            py: Python<'py>,
            marked: &Bound<'py, PyAny>,
        ) -> PyResult<(
            Bound<'py, PyBytes>,
            Bound<'py, PyBytes>,
            Bound<'py, PyBytes>,
        )> {
            let marked: Vec<bool> = vector::<u8>(marked)?.into_iter().map(|a| a != 0).collect();
            let lattices = &self.lattices;
            let (starts, lengths, pieces) = py.detach(|| lattices.by_start(&marked));
            Ok((
                PyBytes::new(py, bytes_of(&starts)),
                PyBytes::new(py, bytes_of(&lengths)),
                PyBytes::new(py, bytes_of(&pieces)),
            ))
        }
    }

    /// fdlibm's exp element-wise over f64 bytes. Exported, with `portable_log`, for one test
    /// only, tests/unit/test_portable_math.py, which checks that they give the same bits as
    /// explorer/training/unigram/portable_math.py (the package never calls them).
    #[pyfunction]
    fn portable_exp<'py>(py: Python<'py>, values: &[u8]) -> Bound<'py, PyBytes> {
        let out: Vec<f64> = values
            .chunks_exact(8)
            .map(|b| crate::unigram::exp(f64::from_le_bytes(b.try_into().unwrap())))
            .collect();
        PyBytes::new(py, bytes_of(&out))
    }

    /// fdlibm's log element-wise over f64 bytes (for the test named at `portable_exp`).
    #[pyfunction]
    fn portable_log<'py>(py: Python<'py>, values: &[u8]) -> Bound<'py, PyBytes> {
        let out: Vec<f64> = values
            .chunks_exact(8)
            .map(|b| crate::unigram::ln(f64::from_le_bytes(b.try_into().unwrap())))
            .collect();
        PyBytes::new(py, bytes_of(&out))
    }

    #[pymodule]
    fn explorer_engine(module: &Bound<'_, PyModule>) -> PyResult<()> {
        module.add_class::<BpeRun>()?;
        module.add_function(wrap_pyfunction!(ratio, module)?)?;
        module.add_function(wrap_pyfunction!(count_words, module)?)?;
        module.add_class::<WordCounter>()?;
        module.add_class::<CountedWords>()?;
        module.add_class::<UnigramLattices>()?;
        module.add_function(wrap_pyfunction!(portable_exp, module)?)?;
        module.add_function(wrap_pyfunction!(portable_log, module)?)?;
        module.add("CHECK_EVERY", CHECK_EVERY)?;
        Ok(())
    }
}
