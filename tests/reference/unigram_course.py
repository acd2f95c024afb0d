"""The Hugging Face course's Unigram from scratch (chapter 6, section 7), nearly line for line: the
slow, obviously-faithful reference for the course flavor's differential tests and benchmark.

What the course's notebook keeps in globals (`word_freqs`, the vocabulary size 100, the seed size
300) are parameters here; everything else is the course's arithmetic in the course's order:
`encode_word` starts every word at score 1 (not 0), losses are summed with a Python loop, the
scores of a round come from recomputing the whole loss once per token, removal takes the
`int(len(model) * percent_to_remove)` smallest increases (stable sort, so ties in model order)
and the probabilities are recomputed from the remaining frequencies. Kept in tests only: it
encodes every word once per token per round on purpose.

The course's own quirks are kept: `sorted_subwords[: seed_size - len(char_freqs)]` takes from the
end when there are more characters than `seed_size`, and the pruning loop never ends when
`int(len(model) * percent_to_remove)` is 0 (callers keep the vocabulary size above 10).
"""

import copy
from collections import defaultdict
from math import log

from tokenizers import pre_tokenizers

XLNET_PRE_TOKENIZER = pre_tokenizers.Metaspace()  # xlnet-base-cased's: '▁', prepend always, split


def word_frequencies(corpus):
    word_freqs = defaultdict(int)
    for text in corpus:
        words_with_offsets = XLNET_PRE_TOKENIZER.pre_tokenize_str(text)
        for word in [word for word, offset in words_with_offsets]:
            word_freqs[word] += 1
    return word_freqs


def sorted_subwords_and_chars(word_freqs):
    char_freqs = defaultdict(int)
    subwords_freqs = defaultdict(int)
    for word, freq in word_freqs.items():
        for i in range(len(word)):
            char_freqs[word[i]] += freq
            for j in range(i + 2, len(word) + 1):
                subwords_freqs[word[i:j]] += freq
    sorted_subwords = sorted(subwords_freqs.items(), key=lambda x: x[1], reverse=True)
    return sorted_subwords, char_freqs


def initial_token_freqs(word_freqs, seed_size=300):
    sorted_subwords, char_freqs = sorted_subwords_and_chars(word_freqs)
    token_freqs = list(char_freqs.items()) + sorted_subwords[: seed_size - len(char_freqs)]
    return {token: freq for token, freq in token_freqs}


def model_from(token_freqs):
    total_sum = sum([freq for token, freq in token_freqs.items()])
    return {token: -log(freq / total_sum) for token, freq in token_freqs.items()}


def encode_word(word, model):
    best_segmentations = [{"start": 0, "score": 1}] + [
        {"start": None, "score": None} for _ in range(len(word))
    ]
    for start_idx in range(len(word)):
        best_score_at_start = best_segmentations[start_idx]["score"]
        for end_idx in range(start_idx + 1, len(word) + 1):
            token = word[start_idx:end_idx]
            if token in model and best_score_at_start is not None:
                score = model[token] + best_score_at_start
                if (
                    best_segmentations[end_idx]["score"] is None
                    or best_segmentations[end_idx]["score"] > score
                ):
                    best_segmentations[end_idx] = {"start": start_idx, "score": score}
    segmentation = best_segmentations[-1]
    if segmentation["score"] is None:
        return ["<unk>"], None
    score = segmentation["score"]
    start = segmentation["start"]
    end = len(word)
    tokens = []
    while start != 0:
        tokens.insert(0, word[start:end])
        next_start = best_segmentations[start]["start"]
        end = start
        start = next_start
    tokens.insert(0, word[start:end])
    return tokens, score


def compute_loss(model, word_freqs):
    loss = 0
    for word, freq in word_freqs.items():
        _, word_loss = encode_word(word, model)
        loss += freq * word_loss
    return loss


def compute_scores(model, word_freqs):
    scores = {}
    model_loss = compute_loss(model, word_freqs)
    for token, score in model.items():  # noqa: B007 (the course's line: score is unused there too)
        if len(token) == 1:
            continue
        model_without_token = copy.deepcopy(model)
        _ = model_without_token.pop(token)
        scores[token] = compute_loss(model_without_token, word_freqs) - model_loss
    return scores


def train(word_freqs, vocab_size=100, seed_size=300, percent_to_remove=0.1, history=None):
    """The final model; with a list as `history`, appends per round (model size, removed tokens
    with their loss increases in removal order)."""
    token_freqs = initial_token_freqs(word_freqs, seed_size)
    model = model_from(token_freqs)
    while len(model) > vocab_size:
        scores = compute_scores(model, word_freqs)
        sorted_scores = sorted(scores.items(), key=lambda x: x[1])
        removed = []
        for i in range(int(len(model) * percent_to_remove)):
            _ = token_freqs.pop(sorted_scores[i][0])
            removed.append(sorted_scores[i])
        if history is not None:
            history.append((len(model), removed))
        model = model_from(token_freqs)
    return model


def tokenize(text, model):
    words_with_offsets = XLNET_PRE_TOKENIZER.pre_tokenize_str(text)
    pre_tokenized_text = [word for word, offset in words_with_offsets]
    encoded_words = [encode_word(word, model)[0] for word in pre_tokenized_text]
    return sum(encoded_words, [])
