//! Unigram's lattices (crate::unigram) for explorer/training/unigram/compiled_lattices.py, and
//! fdlibm's exp and log for the test that checks them against portable_math.py.

use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::{bytes_of, contiguous, items, vector};
use crate::unigram::Lattices;

fn out_of_memory(_: crate::unigram::OutOfMemory) -> PyErr {
    pyo3::exceptions::PyMemoryError::new_err("the Unigram lattices could not allocate their arrays")
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
pub(crate) struct UnigramLattices {
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
        Ok((bytes_of(py, &expected), objective))
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
        Ok(bytes_of(py, &freq))
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
            bytes_of(py, &starts),
            bytes_of(py, &lengths),
            bytes_of(py, &pieces),
        ))
    }
}

/// fdlibm's exp element-wise over f64 bytes. Exported, with `portable_log`, for one test
/// only, tests/unit/test_portable_math.py, which checks that they give the same bits as
/// explorer/training/unigram/portable_math.py (the package never calls them).
#[pyfunction]
pub(crate) fn portable_exp<'py>(py: Python<'py>, values: &[u8]) -> Bound<'py, PyBytes> {
    let out: Vec<f64> = values
        .chunks_exact(8)
        .map(|b| crate::unigram::exp(f64::from_le_bytes(b.try_into().unwrap())))
        .collect();
    bytes_of(py, &out)
}

/// fdlibm's log element-wise over f64 bytes (for the test named at `portable_exp`).
#[pyfunction]
pub(crate) fn portable_log<'py>(py: Python<'py>, values: &[u8]) -> Bound<'py, PyBytes> {
    let out: Vec<f64> = values
        .chunks_exact(8)
        .map(|b| crate::unigram::ln(f64::from_le_bytes(b.try_into().unwrap())))
        .collect();
    bytes_of(py, &out)
}
