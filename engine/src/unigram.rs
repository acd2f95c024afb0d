//! The lattices of every word of a Unigram corpus: forward-backward (the E step's expected counts),
//! Viterbi (pruning's counts) and the edges inside given positions (pruning's windows), the same
//! bits as the Python engine's `CorpusLattices` (explorer/training/unigram/lattices.py).
//!
//! An edge is one occurrence of a seed piece in a word; they are kept grouped by the position
//! where they end, each group by start (longest first), as lengths (u16) and piece ids (u32).
//! Positions with no alive one-character piece get an unknown-character edge (piece `unk`) at the
//! end of their group, computed on the fly. What must match the Python engine bit for bit, and how:
//! - exp and log are fdlibm's, with the operations of explorer/training/unigram/portable_math.py;
//! - a log-sum-exp group is max + ln(sum of exp(value - max)), summed one value after the other
//!   in the group's order (by end: start ascending, the unknown edge last; by start: length
//!   ascending, the unknown edge first);
//! - expected counts are added edge after edge in the Python engine's order: by depth (characters
//!   from the word's start to the edge's end), then end position, then start;
//! - the objective sums count times log-likelihood word after word.
//!
//! Words are independent, so forward-backward runs on chunks of words in parallel (rayon); the
//! terms of the expected counts are computed in parallel and added in the order above.
//!
//! What it does not do: count seeds, choose pieces or score them (Python, shared by both engines).

// The constants of portable_math.py, as bits (its decimal literals, parsed by Python).
use rayon::prelude::*;

const LN2_HI: f64 = f64::from_bits(0x3fe62e42fee00000); // 0.6931471803691238
const LN2_LO: f64 = f64::from_bits(0x3dea39ef35793c76); // 1.9082149292705877e-10
const INV_LN2: f64 = f64::from_bits(0x3ff71547652b82fe); // 1.4426950408889634
const EXP_P: [f64; 5] = [
    f64::from_bits(0x3fc555555555553e), // 0.16666666666666602
    f64::from_bits(0xbf66c16c16bebd93), // -0.0027777777777015593
    f64::from_bits(0x3f11566aaf25de2c), // 6.613756321437934e-05
    f64::from_bits(0xbebbbd41c5d26bf1), // -1.6533902205465252e-06
    f64::from_bits(0x3e66376972bea4d0), // 4.1381367970572385e-08
];
const LOG_LG: [f64; 7] = [
    f64::from_bits(0x3fe5555555555593), // 0.6666666666666735
    f64::from_bits(0x3fd999999997fa04), // 0.3999999999940942
    f64::from_bits(0x3fd2492494229359), // 0.2857142874366239
    f64::from_bits(0x3fcc71c51d8e78af), // 0.22222198432149784
    f64::from_bits(0x3fc7466496cb03de), // 0.1818357216161805
    f64::from_bits(0x3fc39a09d078c69f), // 0.15313837699209373
    f64::from_bits(0x3fc2f112df3e5244), // 0.14798198605116586
];
const EXP_UNDERFLOW: f64 = -745.2;
const EXP_OVERFLOW: f64 = 709.8;
const SQRT_HALF: f64 = f64::from_bits(0x3fe6a09e667f3bcd); // 0.7071067811865476
const NO_PIECE: i32 = -2;
/// Characters per parallel chunk of words (forward-backward), words per chunk of a depth's terms.
const WORDS_CHUNK: usize = 1 << 16;
const TERMS_CHUNK: usize = 1 << 12;

fn power_of_two(k: i64) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// y * 2**k rounded once (as C's ldexp): exact unless the result is subnormal.
fn scale(y: f64, k: i64) -> f64 {
    if k >= -1021 {
        y * power_of_two(k)
    } else {
        y * power_of_two(k + 1000) * power_of_two(-1000)
    }
}

/// fdlibm's exp, step for step as portable_math.exp computes it.
pub fn exp(x: f64) -> f64 {
    if x < EXP_UNDERFLOW {
        return 0.0;
    }
    if x > EXP_OVERFLOW {
        return f64::INFINITY;
    }
    let k = (x * INV_LN2).round_ties_even();
    let hi = x - k * LN2_HI;
    let lo = k * LN2_LO;
    let r = hi - lo;
    let t = r * r;
    let [p1, p2, p3, p4, p5] = EXP_P;
    let c = r - t * (p1 + t * (p2 + t * (p3 + t * (p4 + t * p5))));
    let y = 1.0 + ((r * c) / (2.0 - c) - lo + hi);
    scale(y, k as i64)
}

/// fdlibm's log of a positive, finite, normal x, as portable_math.log computes it (NaN for NaN
/// and infinity, as it gives; the trainer never asks about 0, negatives or subnormals).
pub fn ln(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i64 - 1022; // x = mantissa * 2**exponent
    let mantissa = f64::from_bits((bits & ((1 << 52) - 1)) | (1022 << 52)); // in [0.5, 1)
    let (m, k) = if mantissa < SQRT_HALF {
        (mantissa * 2.0, exponent - 1)
    } else {
        (mantissa, exponent)
    };
    let k = k as f64;
    let f = m - 1.0;
    let hfsq = 0.5 * f * f;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let [lg1, lg2, lg3, lg4, lg5, lg6, lg7] = LOG_LG;
    let t1 = w * (lg2 + w * (lg4 + w * lg6));
    let t2 = z * (lg1 + w * (lg3 + w * (lg5 + w * lg7)));
    let r = t2 + t1;
    s * (hfsq + r) + k * LN2_LO - hfsq + f + k * LN2_HI
}

/// An allocation that failed (a worker's memory limit): the caller raises MemoryError, and the run
/// stops at its last finished step as the Python engine's would, instead of the process aborting.
#[derive(Debug, PartialEq)]
pub struct OutOfMemory;

/// `len` copies of `value`, or OutOfMemory.
fn filled<T: Clone>(len: usize, value: T) -> Result<Vec<T>, OutOfMemory> {
    let mut vector = Vec::new();
    vector.try_reserve_exact(len).map_err(|_| OutOfMemory)?;
    vector.resize(len, value);
    Ok(vector)
}

fn log_sum_exp(values: &[f64]) -> f64 {
    // The maximum as np.maximum takes it: a NaN anywhere makes it NaN (f64::max would skip it).
    let maximum = values.iter().copied().fold(f64::NEG_INFINITY, |a, b| {
        if a.is_nan() || b.is_nan() {
            f64::NAN
        } else {
            a.max(b)
        }
    });
    let mut sum = 0.0;
    for value in values {
        sum += exp(value - maximum);
    }
    maximum + ln(sum)
}

pub struct Lattices {
    word_starts: Vec<u32>,
    word_ends: Vec<u32>,
    counts: Vec<f64>,
    /// Per position: the one-character seed piece there, -1 for a word's separator, NO_PIECE for
    /// a character that is not a seed.
    char_piece: Vec<i32>,
    unk: u32,
    max_length: usize,
    /// Edges ending at position e: `offsets[e]..offsets[e + 1]`.
    offsets: Vec<u32>,
    lengths: Vec<u16>,
    pieces: Vec<u32>,
    alive: Vec<bool>,
}

/// The edges of one group, (start, piece) in the group's order.
type Group = Vec<(u32, u32)>;

impl Lattices {
    /// Edges in any order; `word_starts`/`word_ends` the words' character ranges (a separator
    /// after each), positions 0..=last word end.
    #[allow(clippy::too_many_arguments)]
    pub fn new<L: Copy + Into<u32>>(
        word_starts: Vec<u32>,
        word_ends: Vec<u32>,
        counts: Vec<f64>,
        char_piece: Vec<i32>,
        unk: u32,
        max_length: usize,
        edge_starts: &[u32],
        edge_lengths: &[L],
        edge_pieces: &[u32],
    ) -> Result<Lattices, OutOfMemory> {
        let mut char_piece = char_piece;
        for (position, piece) in char_piece.iter_mut().enumerate() {
            if *piece < 0 && word_ends.binary_search(&(position as u32)).is_err() {
                *piece = NO_PIECE; // a character that is no seed: always an unknown edge
            }
        }
        let positions = char_piece.len() + 1;
        let mut offsets = filled(positions + 1, 0u32)?;
        for (start, length) in edge_starts.iter().zip(edge_lengths) {
            offsets[(start + (*length).into()) as usize + 1] += 1;
        }
        for e in 0..positions {
            offsets[e + 1] += offsets[e];
        }
        // Each group's start is its insertion point; once filled, offsets[e] is group e's end,
        // i.e. group e + 1's start: shifted by one, the offsets again.
        let mut lengths = filled(edge_starts.len(), 0u16)?;
        let mut pieces = filled(edge_starts.len(), 0u32)?;
        for ((start, length), piece) in edge_starts.iter().zip(edge_lengths).zip(edge_pieces) {
            let e = (start + (*length).into()) as usize;
            let at = offsets[e] as usize;
            lengths[at] = (*length).into() as u16;
            pieces[at] = *piece;
            offsets[e] += 1;
        }
        offsets.copy_within(0..positions, 1);
        offsets[0] = 0;
        // Each group by start ascending, i.e. by length descending (groups hold a few edges).
        for e in 0..positions {
            let (low, high) = (offsets[e] as usize, offsets[e + 1] as usize);
            let mut group: Vec<(u16, u32)> = (low..high).map(|i| (lengths[i], pieces[i])).collect();
            group.sort_unstable_by_key(|(length, _)| std::cmp::Reverse(*length));
            for (i, (length, piece)) in group.into_iter().enumerate() {
                lengths[low + i] = length;
                pieces[low + i] = piece;
            }
        }
        Ok(Lattices {
            word_starts,
            word_ends,
            counts,
            char_piece,
            unk,
            max_length,
            offsets,
            lengths,
            pieces,
            alive: filled(unk as usize, true)?,
        })
    }

    /// Forget the edges of pieces no longer alive. Alive sets only shrink; Err when one grows.
    pub fn set_alive(&mut self, alive: &[bool]) -> Result<(), &'static str> {
        if alive.len() != self.alive.len() {
            return Err("alive has the wrong length");
        }
        if alive
            .iter()
            .zip(&self.alive)
            .any(|(now, before)| *now && !*before)
        {
            return Err("a piece came back to life: the lattices dropped its edges");
        }
        let mut kept = 0usize;
        let mut low = 0usize;
        for e in 0..self.offsets.len() - 1 {
            let high = self.offsets[e + 1] as usize;
            for i in low..high {
                if alive[self.pieces[i] as usize] {
                    self.lengths[kept] = self.lengths[i];
                    self.pieces[kept] = self.pieces[i];
                    kept += 1;
                }
            }
            low = high;
            self.offsets[e + 1] = kept as u32;
        }
        self.lengths.truncate(kept);
        self.pieces.truncate(kept);
        self.lengths.shrink_to_fit();
        self.pieces.shrink_to_fit();
        self.alive = alive.to_vec();
        Ok(())
    }

    /// Edges alive, unknown edges included.
    pub fn edge_count(&self) -> usize {
        let unknown = (0..self.char_piece.len())
            .filter(|p| self.unknown(*p))
            .count();
        self.pieces.len() + unknown
    }

    /// A character of a word with no alive one-character piece (never a separator).
    fn unknown(&self, position: usize) -> bool {
        let piece = self.char_piece[position];
        piece == NO_PIECE || piece >= 0 && !self.alive[piece as usize]
    }

    /// The edges ending at `end`, start ascending, the unknown edge last.
    fn ending_at(&self, end: usize, group: &mut Group) {
        group.clear();
        for i in self.offsets[end] as usize..self.offsets[end + 1] as usize {
            group.push((end as u32 - self.lengths[i] as u32, self.pieces[i]));
        }
        if self.unknown(end - 1) {
            group.push((end as u32 - 1, self.unk));
        }
    }

    /// Words by depth: `visit(depth, words)` for every depth from 1, with the words (in order)
    /// at least that long (the Python engine's forward order: by depth, then position).
    fn by_depth(&self, mut visit: impl FnMut(usize, &[usize])) {
        let mut active: Vec<usize> = (0..self.word_starts.len())
            .filter(|w| self.word_ends[*w] > self.word_starts[*w])
            .collect();
        let mut depth = 1;
        while !active.is_empty() {
            visit(depth, &active);
            active.retain(|w| (self.word_ends[*w] - self.word_starts[*w]) as usize > depth);
            depth += 1;
        }
    }

    /// Expected count of every piece (index `unk` for unknown edges) and the objective: minus the
    /// count-weighted mean log-likelihood of the words.
    pub fn expected_counts(&self, scores: &[f64]) -> Result<(Vec<f64>, f64), OutOfMemory> {
        let positions = self.char_piece.len() + 1;
        let mut alpha = filled(positions, 0.0f64)?;
        let mut beta = filled(positions, 0.0f64)?;
        // Words are independent: chunks of them run in parallel, each on its own positions.
        let chunks = self.word_chunks();
        let mut parts = Vec::with_capacity(chunks.len());
        let (mut alpha_rest, mut beta_rest) = (&mut alpha[..], &mut beta[..]);
        let mut base = 0usize;
        for (first, last) in &chunks {
            let end = self.word_ends[*last - 1] as usize + 1;
            let (alpha_part, alpha_tail) = alpha_rest.split_at_mut(end - base);
            let (beta_part, beta_tail) = beta_rest.split_at_mut(end - base);
            parts.push((*first, *last, base, alpha_part, beta_part));
            (alpha_rest, beta_rest, base) = (alpha_tail, beta_tail, end);
        }
        parts
            .into_par_iter()
            .for_each(|(first, last, base, alpha, beta)| {
                for w in first..last {
                    self.forward_backward(w, base, scores, alpha, beta);
                }
            });
        // Expected counts, added edge after edge in the Python engine's order (by depth, then
        // position): the terms of one depth are computed in parallel, then added in order.
        let mut expected = filled(self.unk as usize + 1, 0.0f64)?;
        self.by_depth(|depth, words| {
            let terms: Vec<Vec<(u32, f64)>> = words
                .par_chunks(TERMS_CHUNK)
                .map(|words| {
                    let mut group = Group::new();
                    let mut terms = Vec::new();
                    for w in words {
                        let e = self.word_starts[*w] as usize + depth;
                        let whole = alpha[self.word_ends[*w] as usize];
                        let count = self.counts[*w];
                        self.ending_at(e, &mut group);
                        for (s, piece) in &group {
                            let total =
                                alpha[*s as usize] + scores[*piece as usize] + beta[e] - whole;
                            terms.push((*piece, count * exp(total)));
                        }
                    }
                    terms
                })
                .collect();
            for (piece, term) in terms.into_iter().flatten() {
                expected[piece as usize] += term;
            }
        });
        let mut weighted = 0.0f64;
        let mut total_count = 0.0f64;
        for w in 0..self.word_starts.len() {
            let term = self.counts[w] * alpha[self.word_ends[w] as usize];
            weighted = if w == 0 { term } else { weighted + term };
            total_count += self.counts[w];
        }
        Ok((expected, -weighted / total_count))
    }

    /// Word ranges (first, last + 1) of about WORDS_CHUNK characters each.
    fn word_chunks(&self) -> Vec<(usize, usize)> {
        let mut chunks = Vec::new();
        let mut first = 0;
        for w in 0..self.word_starts.len() {
            if (self.word_ends[w] - self.word_starts[first]) as usize >= WORDS_CHUNK
                || w + 1 == self.word_starts.len()
            {
                chunks.push((first, w + 1));
                first = w + 1;
            }
        }
        chunks
    }

    /// One word's alpha (log-probability of its prefixes) and beta (of its suffixes), in the
    /// chunk's slices (`base`: the chunk's first position).
    fn forward_backward(
        &self,
        w: usize,
        base: usize,
        scores: &[f64],
        alpha: &mut [f64],
        beta: &mut [f64],
    ) {
        let (start, end) = (self.word_starts[w] as usize, self.word_ends[w] as usize);
        let mut group = Group::new();
        let mut values = Vec::new();
        for e in start + 1..=end {
            self.ending_at(e, &mut group);
            values.clear();
            values.extend(
                group
                    .iter()
                    .map(|(s, p)| alpha[*s as usize - base] + scores[*p as usize]),
            );
            alpha[e - base] = log_sum_exp(&values);
        }
        // Backward: edges starting at s, length ascending, found at the tail of each end group
        // (start ascending) as s goes down.
        let mut cursor: Vec<u32> = (start..=end).map(|e| self.offsets[e + 1]).collect();
        for s in (start..end).rev() {
            values.clear();
            if self.unknown(s) {
                values.push(scores[self.unk as usize] + beta[s + 1 - base]);
            }
            for length in 1..=self.max_length.min(end - s) {
                let e = s + length;
                let at = cursor[e - start] as usize;
                if at > self.offsets[e] as usize && self.lengths[at - 1] as usize == length {
                    values.push(scores[self.pieces[at - 1] as usize] + beta[e - base]);
                    cursor[e - start] -= 1;
                }
            }
            beta[s - base] = log_sum_exp(&values);
        }
    }

    /// How often each piece occurs in the words' best segmentations (count-weighted); ties go to
    /// the edge starting first.
    pub fn viterbi_counts(&self, scores: &[f64]) -> Result<Vec<f64>, OutOfMemory> {
        let positions = self.char_piece.len() + 1;
        let mut best = filled(positions, 0.0f64)?;
        let mut best_edge = filled(positions, (0u32, 0u32))?;
        let mut group = Group::new();
        let mut freq = filled(self.unk as usize + 1, 0.0f64)?;
        for w in 0..self.word_starts.len() {
            let (start, end) = (self.word_starts[w] as usize, self.word_ends[w] as usize);
            for e in start + 1..=end {
                self.ending_at(e, &mut group);
                let mut winner = (f64::NEG_INFINITY, (0, 0));
                for (i, (s, piece)) in group.iter().enumerate() {
                    let value = best[*s as usize] + scores[*piece as usize];
                    if i == 0 || value > winner.0 {
                        winner = (value, (*s, *piece));
                    }
                }
                best[e] = winner.0;
                best_edge[e] = winner.1;
            }
            let mut position = end;
            while position > start {
                let (s, piece) = best_edge[position];
                freq[piece as usize] += self.counts[w];
                position = s as usize;
            }
        }
        Ok(freq)
    }

    /// (starts, lengths, pieces) of the edges starting at the marked positions, by start, then
    /// length, unknown edges included.
    pub fn by_start(&self, marked: &[bool]) -> (Vec<i32>, Vec<u16>, Vec<i32>) {
        let mut found: Vec<(u64, u32)> = Vec::new();
        let multiplier = self.max_length as u64 + 2;
        for e in 1..self.offsets.len() - 1 {
            for i in self.offsets[e] as usize..self.offsets[e + 1] as usize {
                let start = e - self.lengths[i] as usize;
                if marked[start] {
                    found.push((
                        start as u64 * multiplier + self.lengths[i] as u64,
                        self.pieces[i],
                    ));
                }
            }
        }
        for (position, is_marked) in marked.iter().enumerate().take(self.char_piece.len()) {
            if *is_marked && self.unknown(position) {
                found.push((position as u64 * multiplier + 1, self.unk));
            }
        }
        found.sort_unstable_by_key(|(key, _)| *key);
        let starts = found
            .iter()
            .map(|(key, _)| (key / multiplier) as i32)
            .collect();
        let lengths = found
            .iter()
            .map(|(key, _)| (key % multiplier) as u16)
            .collect();
        let pieces = found.iter().map(|(_, piece)| *piece as i32).collect();
        (starts, lengths, pieces)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_and_ln_stay_within_one_ulp_of_the_c_library() {
        let mut x = -800.0;
        while x < 700.0 {
            let (ours, exact) = (exp(x), x.exp());
            assert!((ours - exact).abs() <= f64::EPSILON * exact.abs().max(f64::MIN_POSITIVE));
            if ours > 0.0 && ours.is_normal() {
                let (ours_log, exact_log) = (ln(ours), ours.ln());
                assert!((ours_log - exact_log).abs() <= f64::EPSILON * exact_log.abs().max(1e-300));
            }
            x += 0.0137;
        }
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(ln(1.0), 0.0);
        assert_eq!(exp(-746.0), 0.0);
    }

    /// Two words, "ab" and "b": pieces a=0, b=1, ab=2; forward-backward gives expected counts
    /// that add up to the characters covered, and Viterbi picks "ab" when it scores higher.
    #[test]
    fn a_small_corpus() {
        // positions: a=0 b=1 sep=2 b=3 sep=4
        let lattices = Lattices::new(
            vec![0, 3],
            vec![2, 4],
            vec![2.0, 1.0],
            vec![0, 1, -1, 1],
            3,
            16,
            &[0, 1, 0, 3],
            &[1u8, 1, 2, 1],
            &[0, 1, 2, 1],
        )
        .unwrap();
        let scores = [(0.2f64).ln(), (0.3f64).ln(), (0.5f64).ln(), f64::NAN];
        let (expected, objective) = lattices.expected_counts(&scores).unwrap();
        assert!(objective > 0.0);
        // "ab" is one piece or two; each reading's probability shares its count
        let p_ab = 0.5 / (0.5 + 0.2 * 0.3);
        assert!((expected[2] - 2.0 * p_ab).abs() < 1e-12);
        assert!((expected[1] - (2.0 * (1.0 - p_ab) + 1.0)).abs() < 1e-12);
        assert_eq!(
            lattices.viterbi_counts(&scores).unwrap(),
            vec![0.0, 1.0, 2.0, 0.0]
        );
    }

    #[test]
    fn an_allocation_that_cannot_be_made_is_an_error_not_an_abort() {
        assert_eq!(filled(usize::MAX / 4, 0.0f64), Err(OutOfMemory));
        assert_eq!(filled(3, 1u8), Ok(vec![1, 1, 1]));
    }

    #[test]
    fn a_dead_character_becomes_an_unknown_edge() {
        let mut lattices = Lattices::new(
            vec![0],
            vec![1],
            vec![1.0],
            vec![0],
            1,
            16,
            &[0],
            &[1u8],
            &[0],
        )
        .unwrap();
        lattices.set_alive(&[false]).unwrap();
        assert_eq!(lattices.edge_count(), 1);
        assert_eq!(
            lattices.viterbi_counts(&[0.0, -3.0]).unwrap(),
            vec![0.0, 1.0]
        );
        assert!(lattices.set_alive(&[true]).is_err());
        assert_eq!(
            lattices.by_start(&[true, false]),
            (vec![0], vec![1], vec![1])
        );
    }
}
