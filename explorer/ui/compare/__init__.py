"""The Compare page: its sections, its columns in the URL (`compare_link`), the model picker, the
decode panel, uploads read in workers, and figures measured on the training corpus.
"""
