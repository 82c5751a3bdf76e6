//! Exact decimals (`mantissa × 10^exponent`) for the quantities upstream keeps exactly beyond the
//! int64 range: a value `ParseQuantity`'s fast path read uncapped (`1e400`), and sums that leave
//! the range (`Quantity.Add` falls back to `inf.Dec`, which does not cap).

use std::cmp::Ordering;

use num_bigint::BigInt;

/// The most decimal digits an alignment may create: beyond it two values are so far apart that
/// the larger decides every comparison, and a sum keeps the larger alone (upstream would build a
/// number of that many digits).
const MAX_ALIGN: u32 = 4096;

/// `mantissa × 10^exponent`.
#[derive(Clone, Debug)]
pub(crate) struct Exact {
    mantissa: BigInt,
    exponent: i32,
}

impl Exact {
    /// `mantissa × 10^exponent`.
    pub(crate) fn new(mantissa: impl Into<BigInt>, exponent: i32) -> Self {
        Self {
            mantissa: mantissa.into(),
            exponent,
        }
    }

    /// Whether the value is below zero.
    pub(crate) fn is_negative(&self) -> bool {
        self.mantissa < BigInt::ZERO
    }

    /// The value with the opposite sign.
    pub(crate) fn negated(&self) -> Self {
        Self::new(-self.mantissa.clone(), self.exponent)
    }

    /// The value in nano-units, when it is a whole number of them that fits an `i128`.
    pub(crate) fn to_nanos(&self) -> Option<i128> {
        let shift = u32::try_from(i64::from(self.exponent) + 9).ok()?;
        if shift > 40 {
            return (self.mantissa == BigInt::ZERO).then_some(0);
        }
        i128::try_from(&self.mantissa * BigInt::from(10).pow(shift)).ok()
    }

    /// Go's `ScaledValue(10^-scale)` of a value kept as `inf.Dec` (`scaledValue`): the value times
    /// `10^scale`, rounded up, then `big.Int.Int64()` — the low 64 bits of the magnitude, with the
    /// sign, wrapping as Go's conversion does (a multiple of `2^64`, such as `10^64` and beyond,
    /// gives 0).
    pub(crate) fn go_scaled_int64(&self, scale: i32) -> i64 {
        let exponent = i64::from(self.exponent) + i64::from(scale);
        let scaled = if exponent >= 64 {
            return 0;
        } else if exponent >= 0 {
            &self.mantissa * BigInt::from(10).pow(u32::try_from(exponent).unwrap_or(0))
        } else {
            let Ok(shift) = u32::try_from(-exponent) else {
                return i64::from(self.mantissa > BigInt::ZERO);
            };
            if shift > MAX_ALIGN {
                // |value| < 1: rounded up, 1 for a positive value and 0 for a negative one.
                return i64::from(self.mantissa > BigInt::ZERO);
            }
            let divisor = BigInt::from(10).pow(shift);
            // `/` truncates toward zero: that is the ceiling unless a positive remainder is left.
            let (q, r) = (&self.mantissa / &divisor, &self.mantissa % &divisor);
            if r > BigInt::ZERO { q + 1 } else { q }
        };
        let (sign, digits) = scaled.to_u64_digits();
        // Go's `int64(low64(x.abs))`: the low 64 bits reinterpreted, two's complement.
        let low = i64::from_ne_bytes(digits.first().copied().unwrap_or(0).to_ne_bytes());
        if sign == num_bigint::Sign::Minus {
            low.wrapping_neg()
        } else {
            low
        }
    }

    /// The sign, then the order of magnitude: the power of ten just above the value.
    fn magnitude(&self) -> (Ordering, i64) {
        let (digits, exponent) = self.canonical_digits(false);
        let digits = i64::try_from(digits.len()).unwrap_or(i64::MAX);
        (self.mantissa.cmp(&BigInt::ZERO), i64::from(exponent) + digits)
    }

    /// Both mantissas at the smaller exponent, when that creates at most [`MAX_ALIGN`] digits.
    fn aligned(&self, other: &Self) -> Option<(BigInt, BigInt, i32)> {
        let exponent = self.exponent.min(other.exponent);
        let shift = |e: i32| {
            u32::try_from(i64::from(e) - i64::from(exponent))
                .ok()
                .filter(|s| *s <= MAX_ALIGN)
        };
        let (a, b) = (shift(self.exponent)?, shift(other.exponent)?);
        let ten = BigInt::from(10);
        Some((
            &self.mantissa * ten.pow(a),
            &other.mantissa * ten.pow(b),
            exponent,
        ))
    }

    /// The sum; of two values too far apart to align, the larger in magnitude.
    pub(crate) fn add(&self, other: &Self) -> Self {
        match self.aligned(other) {
            Some((a, b, exponent)) => Self::new(a + b, exponent),
            None if self.magnitude().1 < other.magnitude().1 => other.clone(),
            None => self.clone(),
        }
    }

    /// Upstream `AsCanonicalBase1024Bytes` of a whole number: the digits with every factor of 1024
    /// divided out, and how many there were. `None` for a fraction, or for a number of more than
    /// [`MAX_ALIGN`] digits (shown in decimal instead).
    pub(crate) fn base1024(&self) -> Option<(String, u32)> {
        let (digits, exponent) = self.canonical_digits(false);
        let zeros = u32::try_from(exponent).ok().filter(|z| *z <= MAX_ALIGN)?;
        let mut value: BigInt = digits.parse().ok()?;
        value *= BigInt::from(10).pow(zeros);
        let k = BigInt::from(1024);
        let mut times = 0;
        while value != BigInt::ZERO && (&value % &k) == BigInt::ZERO {
            value /= &k;
            times += 1;
        }
        Some((value.to_string(), times))
    }

    /// Upstream `AsCanonicalBytes`: the digits without trailing zeros (moved into the exponent),
    /// then, with `multiple_of_three`, the exponent lowered to a multiple of three. The sign is
    /// not in the digits.
    pub(crate) fn canonical_digits(&self, multiple_of_three: bool) -> (String, i32) {
        let text = self.mantissa.magnitude().to_string();
        let trimmed = text.trim_end_matches('0');
        if trimmed.is_empty() {
            return ("0".to_owned(), 0);
        }
        let zeros = i32::try_from(text.len() - trimmed.len()).unwrap_or(i32::MAX);
        let mut digits = trimmed.to_owned();
        let mut exponent = self.exponent.saturating_add(zeros);
        if multiple_of_three {
            let down = exponent.rem_euclid(3);
            for _ in 0..down {
                digits.push('0');
            }
            exponent -= down;
        }
        (digits, exponent)
    }
}

impl PartialEq for Exact {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Exact {}

impl PartialOrd for Exact {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Exact {
    fn cmp(&self, other: &Self) -> Ordering {
        let ((sa, ma), (sb, mb)) = (self.magnitude(), other.magnitude());
        if sa != sb || sa == Ordering::Equal {
            return sa.cmp(&sb);
        }
        let by_magnitude = if sa == Ordering::Greater {
            ma.cmp(&mb)
        } else {
            mb.cmp(&ma)
        };
        by_magnitude.then_with(|| match self.aligned(other) {
            Some((a, b, _)) => a.cmp(&b),
            None => Ordering::Equal,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_int64_wraps_as_go_does() {
        // 10^403 is a multiple of 2^64: its low 64 bits are 0 (the API server prints 0).
        assert_eq!(Exact::new(1, 400).go_scaled_int64(3), 0);
        // 2^64 + 5 keeps 5; negative values negate the low bits.
        let two64_plus_5 = BigInt::from(u64::MAX) + BigInt::from(6);
        assert_eq!(Exact::new(two64_plus_5.clone(), 0).go_scaled_int64(0), 5);
        assert_eq!(Exact::new(-two64_plus_5, 0).go_scaled_int64(0), -5);
        // Rounded up: 1.5 units is 2, -1.5 is -1.
        assert_eq!(Exact::new(15, -1).go_scaled_int64(0), 2);
        assert_eq!(Exact::new(-15, -1).go_scaled_int64(0), -1);
        assert_eq!(Exact::new(15, -1).go_scaled_int64(3), 1500);
    }

    #[test]
    fn adds_compares_and_prints_like_inf_dec() {
        let big = Exact::new(1, 400);
        let milli = Exact::new(100, -3);
        let sum = big.add(&milli);
        let (digits, exponent) = sum.canonical_digits(true);
        assert_eq!(exponent, -3);
        assert_eq!(digits.len(), 404);
        assert!(digits.starts_with("1000") && digits.ends_with("0100"));
        assert!(sum > big && big > milli && Exact::new(10, 399) == big);
        assert!(big.negated() < milli.negated());
        assert_eq!(Exact::new(1500, 0).canonical_digits(true), ("1500".to_owned(), 0));
        assert_eq!(Exact::new(15, 2).canonical_digits(true), ("1500".to_owned(), 0));
        let (digits, times) = Exact::new(1, 400)
            .add(&Exact::new(4_294_967_296_i64, 0))
            .base1024()
            .unwrap();
        assert_eq!(times, 3);
        assert!(digits.starts_with("9313225746154785156250000") && digits.ends_with("0004"));
        assert_eq!(Exact::new(15, -1).base1024(), None);
        // Too far apart to align: the larger decides, and no huge number is built.
        let far = Exact::new(1, 2_000_000_000);
        assert!(far > big && far.add(&milli) == far);
    }
}
