//! `count / (freq_a * freq_b)` exactly as Python's `int / int` computes it: the correctly rounded
//! double of the exact quotient (round half to even), at any size. A plain `f64` division of the
//! two values only agrees while both are below 2**53; beyond that the product would be rounded
//! first. Scores decide which pair WordPiece (course flavor) merges, so they must be the same bits.

const EXACT: u128 = 1 << 53;

/// The correctly rounded `num / den` for `num, den > 0`, `den < 2**127`.
pub fn ratio(num: u128, den: u128) -> f64 {
    debug_assert!(num > 0 && den > 0 && den < (1 << 127) && num < (1 << 127));
    if num < EXACT && den < EXACT {
        return num as f64 / den as f64; // both exact: IEEE division rounds correctly
    }
    // Long division, one bit at a time: `r / d` is the part of the quotient still to produce,
    // kept in [0, 1) after the leading bit; `exponent` is that leading bit's power of two.
    let (mut r, d, exponent) = if num >= den {
        let k = (den.leading_zeros() - num.leading_zeros()) as i32;
        let k = if den << k > num { k - 1 } else { k };
        (num, den << k, k)
    } else {
        let k = (num.leading_zeros() - den.leading_zeros()) as i32;
        let k = if num << k < den { k + 1 } else { k };
        (num << k, den, -k)
    };
    // 54 bits: 53 of the significand and one rounding bit; what is left decides ties.
    let mut bits: u64 = 0;
    for _ in 0..54 {
        bits <<= 1;
        if r >= d {
            r -= d;
            bits |= 1;
        }
        r <<= 1;
    }
    let sticky = r != 0;
    let mut significand = bits >> 1;
    let mut exponent = exponent;
    if bits & 1 == 1 && (sticky || significand & 1 == 1) {
        significand += 1;
        if significand == 1 << 53 {
            significand = 1 << 52;
            exponent += 1;
        }
    }
    // significand * 2**(exponent - 52), exactly: a power of two built from its bits.
    let scale = f64::from_bits(((1023 + exponent - 52) as u64) << 52);
    significand as f64 * scale
}

#[cfg(test)]
mod tests {
    use super::ratio;

    #[test]
    fn small_values_are_plain_division() {
        assert_eq!(ratio(1, 3), 1.0 / 3.0);
        assert_eq!(ratio(7, 2), 3.5);
        assert_eq!(ratio(5, 5), 1.0);
    }

    #[test]
    fn large_values_round_the_exact_quotient() {
        // (2**53 + 1) / 1: the exact value is a tie between 2**53 and 2**53 + 2; even wins.
        assert_eq!(ratio((1 << 53) + 1, 1), 9007199254740992.0);
        assert_eq!(ratio((1 << 53) + 3, 1), 9007199254740996.0);
        // 1 / (2**53 + 1) is just below 2**-53: not the plain f64 quotient of a rounded divisor.
        let value = ratio(1, (1 << 53) + 1);
        assert!(value < 1.0 / 9007199254740992.0);
        assert_eq!(ratio(3 << 60, 3 << 60), 1.0);
        assert_eq!(ratio(1 << 80, 1 << 20), (1u64 << 60) as f64);
    }
}
