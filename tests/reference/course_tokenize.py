"""The Hugging Face course's own `tokenize()` functions, copied as the reference for step-by-step encoding.

Sources: chapter 6 section 5 (BPE, `tokenize`) and section 6 (WordPiece, `encode_word` and
`tokenize`) of huggingface/course (chapters/en/chapter6/5.mdx, 6.mdx), also in the seed notebook
../shared/seeds/hf-course-wordpiece.txt. The bodies are the course's, line for line. Only the
globals they read are parameters here (`merges`, `vocab`, the pre-tokenizer's
`pre_tokenize_str`), and optional hooks report the intermediate state without changing it:
`on_rule(pair, splits)` after each merge rule, `on_piece(token)` each time a piece is found.
"""


def bpe_tokenize(text, pre_tokenize_str, merges, on_rule=None):
    pre_tokenize_result = pre_tokenize_str(text)
    pre_tokenized_text = [word for word, offset in pre_tokenize_result]
    splits = [[l for l in word] for word in pre_tokenized_text]  # noqa: E741 (the course's name)
    for pair, merge in merges.items():
        for idx, split in enumerate(splits):
            i = 0
            while i < len(split) - 1:
                if split[i] == pair[0] and split[i + 1] == pair[1]:
                    split = split[:i] + [merge] + split[i + 2 :]
                else:
                    i += 1
            splits[idx] = split
        if on_rule is not None:
            on_rule(pair, [list(split) for split in splits])

    return sum(splits, [])


def encode_word(word, vocab, on_piece=None):
    tokens = []
    while len(word) > 0:
        i = len(word)
        while i > 0 and word[:i] not in vocab:
            i -= 1
        if i == 0:
            return ["[UNK]"]
        tokens.append(word[:i])
        if on_piece is not None:
            on_piece(word[:i])
        word = word[i:]
        if len(word) > 0:
            word = f"##{word}"
    return tokens


def wordpiece_tokenize(text, pre_tokenize_str, vocab):
    pre_tokenize_result = pre_tokenize_str(text)
    pre_tokenized_text = [word for word, offset in pre_tokenize_result]
    encoded_words = [encode_word(word, vocab) for word in pre_tokenized_text]
    return sum(encoded_words, [])
