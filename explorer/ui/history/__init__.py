"""The Merge history page: the step player, every panel of a BPE or WordPiece run at step k, a
Unigram run at round r, and the step-by-step encoding panel.
"""
