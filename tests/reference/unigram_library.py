"""The `tokenizers` library's UnigramTrainer ported line for line to plain Python: the slow,
obviously-faithful reference for the library flavor's differential tests.

Ported from tokenizers 0.23 (Rust `models/unigram/trainer.rs`, `lattice.rs`, `model.rs`
`populate_nodes`) and the suffix tree enumeration of `esaxx` (`esa.hxx`), with:
- a naive suffix array (sorting the suffixes) and esaxx's stack walk over it, which yields every
  internal node of the suffix tree (substrings occurring twice or more with two different next
  characters) with its number of occurrences;
- the lattice as the library builds it (bos, eos, nodes in insertion order), its Viterbi, its
  forward-backward with the library's `log_sum_exp` (including its first-node test, which compares
  vocabulary ids), and its A* n-best search on a 4-ary heap whose comparison never says "equal"
  (`DaryHeap`, modelled on the `dary_heap` crate's layout, as plain swaps), so that ties between
  second-best segmentations come out as in the library;
- the trainer's seeds, E step, M step (digamma), pruning (with its `alternatives.len()`, the number
  of pieces, where SentencePiece's issue #628 expected the number of alternatives), final
  assembly, all summed sequentially in the order given.

The library runs over a hash map of words (its order changes from run to run) and sums in
parallel chunks; this port takes the words in the order given and sums one after the other, and
adds missing required characters in code-point order. Kept in tests only: it is slow on purpose.
"""

import math

K_UNK_PENALTY = 10.0


# ---------------------------------------------------------------- esaxx


def suffix_tree_nodes(text):
    """(substring, occurrences) for every internal node esaxx reports, in its order."""
    n = len(text)
    if n == 0:
        return []
    sa = sorted(range(n), key=lambda i: text[i:])
    psi = [0] * n
    psi[sa[0]] = sa[n - 1]
    for i in range(1, n):
        psi[sa[i]] = sa[i - 1]
    plcp = [0] * n
    h = 0
    for i in range(n):
        j = psi[i]
        while i + h < n and j + h < n and text[i + h] == text[j + h]:
            h += 1
        plcp[i] = h
        if h > 0:
            h -= 1
    lcp = [plcp[sa[i]] for i in range(n)]
    lcp[0] = -1
    stack = [(-1, -1)]
    nodes = []
    i = 0
    while True:
        cur = (i, -1 if i == n else lcp[i])
        cand = stack[-1]
        while cand[1] > cur[1]:
            if i - cand[0] > 1:
                nodes.append((cand[0], i, cand[1]))
            cur = (cand[0], cur[1])
            stack.pop()
            cand = stack[-1]
        if cand[1] < cur[1]:
            stack.append(cur)
        if i == n:
            break
        stack.append((i, n - sa[i] + 1))
        i += 1
    return [(text[sa[left] : sa[left] + depth], right - left) for left, right, depth in nodes]


# ---------------------------------------------------------------- the agenda of the A* search


class _Hypothesis:
    def __init__(self, node, next_hypothesis, fx, gx):
        self.node, self.next, self.fx, self.gx = node, next_hypothesis, fx, gx


class DaryHeap:
    """The n-best agenda: the `dary_heap` crate's `DaryHeap<T, D>` (0.3.x, `src/lib.rs`), which
    `lattice.rs` uses as `QuaternaryHeap` (D = 4), holding `Hypothesis` values.

    Why a model of the heap rather than a priority queue with a tie rule: `Hypothesis::cmp`
    answers Less when a.fx < b.fx and Greater otherwise, never Equal, so which of two hypotheses
    with the same fx is popped first is decided by where the heap happens to keep them, i.e. by
    every push and pop before. (A queue taking equal fx first-pushed-first, or last-pushed-first,
    gives other second-best segmentations on hundreds of the tied lattices the parity test
    draws.) So this keeps the crate's layout, written from its source as plain swaps:
    - the items in one array, the children of index i at D*i+1 .. D*i+D;
    - push: append, then rise: swap with the parent while `item <= parent` is false, i.e. while
      not item.fx < parent.fx (an equal fx rises);
    - pop: the last item takes the root's place (the root is the result), sinks all the way to
      a leaf, always into its greatest child (the crate's `max_sibling`: the first child no later
      sibling is strictly greater than), then rises as after a push ("sift_down_to_bottom").
    For four siblings the crate compares two pairs, then the two winners; with fx never NaN that
    is the same child as this scan, so NaN is refused. Not the std `BinaryHeap` the library used
    before 0.21.2: a binary layout pops ties in yet another order.

    Written from the crate, not from explorer/training/unigram/nbest.py's heap (which it checks).
    """

    def __init__(self, arity=4):
        self.arity = arity
        self.items = []

    def __len__(self):
        return len(self.items)

    def push(self, hypothesis):
        assert not math.isnan(hypothesis.fx), "an fx of NaN: the first-of-the-greatest scan assumes none"
        self.items.append(hypothesis)
        self._rise(len(self.items) - 1)

    def pop(self):
        items = self.items
        last = items.pop()
        if not items:
            return last
        top, items[0] = items[0], last
        self._rise(self._sink_to_leaf(0))
        return top

    def _rise(self, index):
        items = self.items
        while index > 0:
            parent = (index - 1) // self.arity
            if items[index].fx < items[parent].fx:
                return
            items[index], items[parent] = items[parent], items[index]
            index = parent

    def _sink_to_leaf(self, index):
        items = self.items
        while True:
            first = self.arity * index + 1
            children = range(first, min(first + self.arity, len(items)))
            if not children:
                return index
            greatest = first
            for child in children:
                if items[greatest].fx < items[child].fx:
                    greatest = child
            items[index], items[greatest] = items[greatest], items[index]
            index = greatest


# ---------------------------------------------------------------- the lattice


class Node:
    def __init__(self, piece_id, node_id, pos, length, score):
        self.id, self.node_id, self.pos, self.length, self.score = piece_id, node_id, pos, length, score
        self.prev = None
        self.backtrace_score = 0.0


def _log_sum_exp(x, y, init_mode):
    if init_mode:
        return y
    vmin, vmax = (y, x) if x > y else (x, y)
    if vmax > vmin + 50.0:
        return vmax
    return vmax + math.log(math.exp(vmin - vmax) + 1.0)


class Lattice:
    """Positions are characters (the library's are bytes: the same order and the same nodes)."""

    def __init__(self, sentence, bos_id, eos_id):
        self.sentence = sentence
        self.len = len(sentence)
        self.begin_nodes = [[] for _ in range(self.len + 1)]
        self.end_nodes = [[] for _ in range(self.len + 1)]
        bos, eos = Node(bos_id, 0, 0, 0, 0.0), Node(eos_id, 1, self.len, 0, 0.0)
        self.begin_nodes[self.len].append(eos)
        self.end_nodes[0].append(bos)
        self.nodes = [bos, eos]

    def insert(self, pos, length, score, piece_id):
        node = Node(piece_id, len(self.nodes), pos, length, score)
        self.begin_nodes[pos].append(node)
        self.end_nodes[pos + length].append(node)
        self.nodes.append(node)

    def viterbi(self):
        for pos in range(self.len + 1):
            if not self.begin_nodes[pos]:
                return []
            for rnode in self.begin_nodes[pos]:
                rnode.prev = None
                best_score, best_node = 0.0, None
                for lnode in self.end_nodes[pos]:
                    score = lnode.backtrace_score + rnode.score
                    if best_node is None or score > best_score:
                        best_node, best_score = lnode, score
                if best_node is None:
                    return []
                rnode.prev = best_node
                rnode.backtrace_score = best_score
        node = self.begin_nodes[self.len][0].prev
        if node is None:
            return []
        results = []
        while node.prev is not None:
            results.append(node)
            node = node.prev
        results.reverse()
        return results

    def nbest(self, n):
        agenda = DaryHeap(arity=4)
        hypotheses = []
        eos = self.begin_nodes[self.len][0]
        agenda.push(_Hypothesis(eos, None, eos.score, eos.score))
        self.viterbi()
        bos_id = self.end_nodes[0][0].id
        while len(agenda):
            top = agenda.pop()
            node = top.node
            if node.id == bos_id:
                hypothesis = []
                following = top.next
                while following.next is not None:
                    hypothesis.append(following.node)
                    following = following.next
                hypotheses.append(hypothesis)
                if len(hypotheses) == n:
                    return hypotheses
            else:
                for lnode in self.end_nodes[node.pos]:
                    agenda.push(_Hypothesis(lnode, top, lnode.backtrace_score + top.gx, lnode.score + top.gx))
                if len(agenda) > 100_000:
                    shrunk = DaryHeap(arity=4)
                    for _ in range(min(512, n * 10)):
                        shrunk.push(agenda.pop())
                    agenda = shrunk
        return hypotheses

    def populate_marginal(self, freq, expected):
        alpha = [0.0] * len(self.nodes)
        beta = [0.0] * len(self.nodes)
        for pos in range(self.len + 1):
            for rnode in self.begin_nodes[pos]:
                for lnode in self.end_nodes[pos]:
                    first = lnode.id == self.end_nodes[pos][0].id  # Node's == compares ids
                    alpha[rnode.node_id] = _log_sum_exp(
                        alpha[rnode.node_id], lnode.score + alpha[lnode.node_id], first
                    )
        for pos in range(self.len, -1, -1):
            for lnode in self.end_nodes[pos]:
                for rnode in self.begin_nodes[pos]:
                    first = rnode.id == self.begin_nodes[pos][0].id
                    beta[lnode.node_id] = _log_sum_exp(
                        beta[lnode.node_id], rnode.score + beta[rnode.node_id], first
                    )
        z = alpha[self.begin_nodes[self.len][0].node_id]
        for pos in range(self.len):
            for node in self.begin_nodes[pos]:
                total = alpha[node.node_id] + node.score + beta[node.node_id] - z
                expected[node.id] += freq * math.exp(total)
        return freq * z


class Model:
    """The parts of the library's Unigram model the trainer uses."""

    def __init__(self, pieces, unk_id=0):
        self.pieces = pieces
        self.token_to_id = {piece: index for index, (piece, _) in enumerate(pieces)}
        scores = [score for _, score in pieces if not math.isnan(score)]
        self.min_score = min(scores) if scores else math.inf
        self.unk_id = unk_id
        self.longest = max((len(piece) for piece, _ in pieces), default=0)

    def populate_nodes(self, lattice):
        unk_score = self.min_score - K_UNK_PENALTY
        sentence = lattice.sentence
        for begin in range(lattice.len):
            has_single_node = False
            for end in range(begin + 1, min(lattice.len, begin + self.longest) + 1):
                piece_id = self.token_to_id.get(sentence[begin:end])
                if piece_id is None or sentence[begin:end] == "":
                    continue
                lattice.insert(begin, end - begin, self.pieces[piece_id][1], piece_id)
                if end == begin + 1:
                    has_single_node = True
            if not has_single_node and self.unk_id is not None:
                lattice.insert(begin, 1, unk_score, self.unk_id)

    def lattice(self, sentence):
        lattice = Lattice(sentence, len(self.pieces) + 1, len(self.pieces) + 2)
        self.populate_nodes(lattice)
        return lattice

    def encode_optimized(self, sentence):
        """The model's own segmentation (`model.rs` `encode_optimized`, fuse_unk on), unknown runs
        fused into one string.

        Its tie rule differs from the trainer's `Lattice.viterbi`: here a candidate replaces the
        best path ending where it ends only when `score + best_till_its_start` is strictly greater
        (the smallest start wins a tie); the Viterbi compares `lnode.backtrace_score +
        rnode.score`, where adding the next node's score can round two different sums to the same
        double, and then keeps the first left node. Both are the library's; an encoded word is the
        model's.
        """
        size = len(sentence)
        unk_score = self.min_score - K_UNK_PENALTY
        best_score = [0.0] * (size + 1)
        starts = [None] * (size + 1)
        ids = [None] * (size + 1)

        def relax(start, end, piece_id, score):
            candidate = score + best_score[start]
            if starts[end] is None or candidate > best_score[end]:
                best_score[end], starts[end], ids[end] = candidate, start, piece_id

        for start in range(size):
            has_single_node = False
            for end in range(start + 1, min(size, start + self.longest) + 1):  # the trie: shortest first
                piece_id = self.token_to_id.get(sentence[start:end])
                if piece_id is None:
                    continue
                relax(start, end, piece_id, self.pieces[piece_id][1])
                has_single_node = has_single_node or end == start + 1
            if not has_single_node:
                relax(start, start + 1, self.unk_id, unk_score)
        results, unknown_run = [], []
        end = size
        while end > 0:
            start = starts[end]
            if ids[end] == self.unk_id:
                unknown_run.append(sentence[start:end])
            else:
                if unknown_run:
                    results.append("".join(reversed(unknown_run)))
                    unknown_run = []
                results.append(sentence[start:end])
            end = start
        if unknown_run:
            results.append("".join(reversed(unknown_run)))
        results.reverse()
        return results


# ---------------------------------------------------------------- the trainer


def digamma(x):
    result = 0.0
    while x < 7.0:
        result -= 1.0 / x
        x += 1.0
    x -= 1.0 / 2.0
    xx = 1.0 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    result += (
        math.log(x)
        + (1.0 / 24.0) * xx2
        - 7.0 / 960.0 * xx4
        + (31.0 / 8064.0) * xx4 * xx2
        - (127.0 / 30720.0) * xx4 * xx4
    )
    return result


def _ln(x):
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


def seed_pieces(sentences, max_piece_length=16, seed_size=1_000_000):
    flat = []
    all_chars = {}
    for string, count in sentences:
        if not string:
            continue
        flat.append(string + "\0")
        for char in string:
            if char != "\0":
                all_chars[char] = all_chars.get(char, 0) + count
    substrings = []
    for string, freq in suffix_tree_nodes("".join(flat)):
        if len(string) <= 1 or "\0" in string or len(string) > max_piece_length:
            continue
        substrings.append((freq * len(string), string))
    seeds = [
        (char, float(count)) for count, char in sorted(((c, ch) for ch, c in all_chars.items()), reverse=True)
    ]
    substrings.sort(reverse=True)
    for score, string in substrings:
        seeds.append((string, float(score)))
        if len(seeds) >= seed_size:
            break
    total = 0.0
    for _, score in seeds:
        total += score
    logsum = math.log(total)
    return [(piece, math.log(score) - logsum) for piece, score in seeds]


def e_step(model, sentences):
    all_sentence_freq = sum(count for _, count in sentences)
    expected = [0.0] * len(model.pieces)
    objective = 0.0
    for string, count in sentences:
        z = model.lattice(string).populate_marginal(float(count), expected)
        objective -= z / all_sentence_freq
    return objective, expected


def m_step(pieces, expected):
    kept = []
    total = 0.0
    for index, (freq, (piece, _)) in enumerate(zip(expected, pieces)):
        if index == 0:
            kept.append((piece, math.nan))
            continue
        if freq < 0.5:
            continue
        kept.append((piece, freq))
        total += freq
    logsum = digamma(total)
    return [(piece, digamma(freq) - logsum) for piece, freq in kept]


def prune(model, pieces, sentences, vocab_size, shrinking_factor, losses=None):
    """The pruned pieces; with a dict as `losses`, stores each candidate's loss by piece."""
    always_keep = [True] * len(pieces)
    alternatives = [[] for _ in pieces]
    for piece_id, (token, _) in enumerate(pieces):
        if piece_id == 0:
            always_keep[piece_id] = False
            continue
        nbests = model.lattice(token).nbest(2)
        if len(nbests) == 1:
            always_keep[piece_id] = True
        elif len(nbests[0]) >= 2:
            always_keep[piece_id] = False
        elif len(nbests[0]) == 1:
            always_keep[piece_id] = True
            alternatives[piece_id] = [node.id for node in nbests[1]]
    vsum = 0.0
    freq = [0.0] * len(pieces)
    inverted = [[] for _ in pieces]
    for index, (string, count) in enumerate(sentences):
        vsum += count
        for node in model.lattice(string).viterbi():
            freq[node.id] += count
            inverted[node.id].append(index)
    total = 0.0
    for value in freq:
        total += value
    logsum = math.log(total)
    candidates = []
    new_pieces = [pieces[0]]
    for piece_id, (token, score) in enumerate(pieces):
        if piece_id == 0:
            continue
        if freq[piece_id] == 0.0 and not always_keep[piece_id]:
            continue
        if not alternatives[piece_id]:
            new_pieces.append((token, score))
            continue
        f = 0.0
        for index in inverted[piece_id]:
            f += sentences[index][1]
        if f == 0.0:
            continue
        f /= vsum
        logprob_sp = math.log(freq[piece_id]) - logsum
        logsum_alt = math.log(total + freq[piece_id] * (len(pieces) - 1))
        logprob_alt = 0.0
        for alternative in alternatives[piece_id]:
            logprob_alt += _ln(freq[alternative] + freq[piece_id]) - logsum_alt
        loss = f * (logprob_sp - logprob_alt)
        candidates.append((piece_id, loss))
        if losses is not None:
            losses[token] = loss
    desired_vocab_size = vocab_size * 11 // 10
    pruned_size = max(desired_vocab_size, int(len(pieces) * shrinking_factor))
    candidates.sort(key=lambda item: -item[1])
    for piece_id, _ in candidates:
        if len(new_pieces) == pruned_size:
            break
        new_pieces.append(pieces[piece_id])
    return new_pieces


def finalize(model, required_chars, vocab_size, special_tokens, unk_token):
    min_score_penalty = 0.0
    pieces = []
    inserted = {"<UNK>"}
    existing = {piece: score for piece, score in model.pieces}
    for char in sorted(required_chars):
        inserted.add(char)
        if char in existing:
            pieces.append((char, existing[char]))
        else:
            pieces.append((char, model.min_score + min_score_penalty))
            min_score_penalty += 0.0001
    need_add_unk = unk_token is not None and unk_token not in special_tokens
    unk_id = None if unk_token is None else (special_tokens.index(unk_token) if not need_add_unk else 0)
    target = vocab_size - len(special_tokens) - (1 if need_add_unk else 0)
    for token, score in model.pieces:
        if token in inserted:
            continue
        inserted.add(token)
        pieces.append((token, 0.0 if math.isnan(score) else score))
        if len(pieces) == target:
            break
    pieces.sort(key=lambda item: -item[1])
    specials = [(token, 0.0) for token in special_tokens]
    if need_add_unk:
        specials.insert(0, (unk_token, 0.0))
    return specials + pieces, unk_id


def train(
    word_counts,
    vocab_size=8000,
    shrinking_factor=0.75,
    n_sub_iterations=2,
    max_piece_length=16,
    seed_size=1_000_000,
    special_tokens=(),
    unk_token=None,
    history=None,
):
    """(final pieces, unk_id); with a list as `history`, appends per round
    (objectives, pieces after the EM, pieces after pruning, {piece: loss})."""
    sentences = [(word, count) for word, count in word_counts.items()]
    special_tokens = list(dict.fromkeys(special_tokens))
    pieces = [("<UNK>", math.nan)] + seed_pieces(sentences, max_piece_length, seed_size)
    desired_vocab_size = vocab_size * 11 // 10
    required_chars = {char for word, _ in sentences for char in word}
    if len(required_chars) > vocab_size:
        raise ValueError("The vocabulary is not large enough to contain all chars")
    model = Model(pieces)
    while True:
        objectives = []
        for _ in range(n_sub_iterations):
            objective, expected = e_step(model, sentences)
            objectives.append(objective)
            pieces = m_step(pieces, expected)
            model = Model(pieces)
        if len(pieces) <= desired_vocab_size:
            if history is not None:
                history.append((objectives, [p for p, _ in pieces[1:]], None, None))
            break
        losses = {}
        after_em = [p for p, _ in pieces[1:]]
        pieces = prune(model, pieces, sentences, vocab_size, shrinking_factor, losses)
        if history is not None:
            history.append((objectives, after_em, [p for p, _ in pieces[1:]], losses))
        model = Model(pieces)
    return finalize(model, required_chars, vocab_size, special_tokens, unk_token)
