//! The Python module `explorer_engine` (the `python` feature): PyO3 bindings of the crate, one file
//! per part (`bpe`: the merge loop; `counting`: word counting; `unigram`: Unigram's lattices), and
//! the helpers they share to hand arrays across. Arrays come in as Python buffers of a checked item
//! type and go out as bytes of a stated kind; the GIL is released while the crate works. Their
//! Python types: stubs/explorer_engine.pyi (tests/unit/test_engine_stub.py keeps it exact).
//!
//! What it does not do: train, count or compute anything itself (the crate's modules do).

use bytemuck::{cast_slice, NoUninit};
use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

mod bpe;
mod counting;
mod unigram;

/// `values` as Python bytes, in the machine's byte order: little-endian on every platform this
/// builds on (x86_64, arm64), which is what the Python side reads. `NoUninit` (bytemuck) rules
/// out padding: only plain integers and floats get here.
pub(crate) fn bytes_of<'py, T: NoUninit>(py: Python<'py>, values: &[T]) -> Bound<'py, PyBytes> {
    PyBytes::new(py, cast_slice(values))
}

/// Hands the memory freed so far back to the system. glibc keeps what a program frees in its
/// arenas (the counting threads' own arenas included) for reuse, and the Python objects made
/// next do not fit most of it: a whole `train` held 15-25 MB of freed memory at its peak.
pub(crate) fn release_free_memory() {
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

pub(crate) fn contiguous<T: pyo3::buffer::Element + Copy>(
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
pub(crate) fn items<T: pyo3::buffer::Element + Copy>(buffer: &(PyBuffer<T>, usize)) -> &[T] {
    // SAFETY: `contiguous` checked that the buffer is C-contiguous and holds `buffer.1` items of
    // T (PyBuffer::get checks the item format and alignment); the buffer export keeps the
    // array alive and its memory in place until the PyBuffer, which the slice borrows, drops.
    unsafe { std::slice::from_raw_parts(buffer.0.buf_ptr() as *const T, buffer.1) }
}

pub(crate) fn vector<T: pyo3::buffer::Element + Copy>(
    array: &Bound<'_, PyAny>,
) -> PyResult<Vec<T>> {
    Ok(items(&contiguous::<T>(array)?).to_vec())
}

#[pymodule]
fn explorer_engine(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<bpe::BpeRun>()?;
    module.add_function(wrap_pyfunction!(bpe::ratio, module)?)?;
    module.add_function(wrap_pyfunction!(counting::count_corpus, module)?)?;
    module.add_class::<counting::WordCounter>()?;
    module.add_class::<counting::CountedWords>()?;
    module.add_class::<unigram::UnigramLattices>()?;
    module.add_function(wrap_pyfunction!(unigram::portable_exp, module)?)?;
    module.add_function(wrap_pyfunction!(unigram::portable_log, module)?)?;
    Ok(())
}
