"""Measurements of a tokenizer on a text: compression and fertility figures, characters lost
(`metrics`), the vocabulary audit (`audit`, on the subjects of `audit_subjects`: this run at a step,
a pretrained or uploaded tokenizer), and the Unicode script of a token (`unicode_scripts`). Pure
functions: tokenizers and texts in, numbers and records out.

What it does not do: train (explorer/training/), explain a training's steps (explorer/lessons/),
draw (explorer/drawing/) or import streamlit (explorer/ui/).
"""
