"""The Compare page: its sections, its columns in the URL (`compare_link`), the model picker, the
decode panel, uploads read in workers, figures measured on the training corpus, and a BPE run's
merges against a pretrained tokenizer's (`merge_overlap_section`).
"""
