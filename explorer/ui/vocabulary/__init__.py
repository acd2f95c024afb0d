"""The Vocabulary page: the table of a BPE or WordPiece vocabulary, and of a Unigram one."""
