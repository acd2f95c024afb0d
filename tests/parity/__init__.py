"""Parity tests: exactness against the `tokenizers` library, tiktoken, SentencePiece, the course
seeds and the reference implementations of tests/reference/."""
