"""Corpora of any size: where a corpus's text comes from (files, directories, globs; plain, gzip,
zstd; JSONL and Parquet records), how it is cut into sequences (`explorer.run_config.READINGS`),
counted in chunks that are never the whole text, and kept as word counts (`counting.WordCounts`)
that add up across shards and machines.

What it does not do: train (explorer.training.trainers.train_counted trains from word counts), or
draw anything.
"""
