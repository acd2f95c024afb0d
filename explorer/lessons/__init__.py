"""What the pages teach, computed from a training history: the course's one-click lessons
(`course`), why a vocabulary has its size (`explain`), what happened at merge k (`merge_step`), a
text encoded step by step (`encode_steps/`), a Unigram round and a word's lattice (`rounds`,
`lattice`), which steps of a long run to show (`step_sampling`). Pure functions: numbers and
records in, numbers and records out. Measurements of a tokenizer on a text (figures, the audit)
are explorer.measures.

What it does not do: draw (explorer/drawing/), build HTML (explorer/views/) or import streamlit
(explorer/ui/).
"""
