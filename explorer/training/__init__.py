"""Training that records its whole history: `bpe/` (BPE and WordPiece: the incremental merge engine,
the two pair-selection rules, the recorder and the `MergeHistory` it builds) and `unigram/` (the
course's and the library's Unigram trainers, their lattices, and the `RoundHistory`); both
histories implement `history.TrainingHistory`. `word_counts` turns corpus text into word counts;
`packing` stores a history's number columns compactly in its JSON.

What it does not do: encode text (explorer/pipeline/) or explain a step (explorer/lessons/).
"""
