//! Tokenizer Explorer's compiled engine: the BPE / WordPiece merge loop and the history it
//! records (as columns), the same as the Python engine in explorer/training/bpe/ (the readable
//! reference it is tested against, byte for byte).
//!
//! The Python front (explorer/training/bpe/compiled.py) builds the initial vocabulary, hands the
//! words over as symbol ids, calls `BpeRun.advance` (the GIL released) until a stop reason, doing
//! the Stop and progress checks between blocks of steps as the Python loop does, and reads the
//! columns as both engines end (`MergeColumns`). With the `python` feature off (`cargo test`) it is
//! a plain Rust library.
//!
//! The boundary: the Python types of every export are in stubs/explorer_engine.pyi (mypy checks
//! the package against them; tests/unit/test_engine_stub.py holds them to this module's exports),
//! and what both engines must agree on (constants, the columns' element types) is written once in
//! explorer/training/bpe/shared.py and generated into shared.rs.

#![deny(clippy::undocumented_unsafe_blocks)]

pub mod counted;
pub mod course_queue;
pub mod engine;
pub mod queues;
pub mod ranking;
pub mod ratio;
pub mod run;
pub mod shared;
pub mod unigram;
pub mod words;

mod classes;

#[cfg(feature = "python")]
mod python;
