//! Kubernetes resource quantities with upstream `resource.ParseQuantity` semantics.
//!
//! Why not `kube_quantity`: it parses the number through an `f64` (losing precision past 2^53), accepts
//! forms upstream rejects (`1e3Ki`, `inf`) and has no `Value()`/`MilliValue()` rounding. Validation
//! and the kubelet's capacity messages need upstream's exact behaviour, so the grammar of
//! `parseQuantityString` and the rounding of `ParseQuantity` are reproduced here. Values are held
//! as an integer count of nano-units (10^-9), which covers upstream's whole range (it rounds up to
//! nano precision and caps at 2^63-1 units).

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

mod exact;

use exact::Exact;

use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;

/// JSON keys whose values are resource lists (maps of quantities) in the objects podmut reads.
pub(crate) const RESOURCE_LIST_KEYS: &[&str] = &[
    "limits",
    "requests",
    "allocatable",
    "capacity",
    "overhead",
    "allocatedResources",
];

/// JSON keys whose values are a single quantity.
pub(crate) const QUANTITY_KEYS: &[&str] = &["sizeLimit"];

/// Nano-units per unit.
const NANO: i128 = 1_000_000_000;
/// Upstream caps every quantity at the largest int64 value (in units).
const MAX_UNITS: i128 = i64::MAX as i128;

/// The suffix family of a quantity (upstream `resource.Format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// `Ki`, `Mi`, ... (base 2).
    BinarySI,
    /// `n`, `u`, `m`, `k`, `M`, ... (base 10).
    DecimalSI,
    /// `e3`, `E6`, ...
    DecimalExponent,
}

/// Why a quantity string is not a quantity.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QuantityError {
    /// Upstream `ErrFormatWrong`.
    #[error("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")]
    FormatWrong,
    /// Upstream `ErrSuffix`.
    #[error("unable to parse quantity's suffix")]
    Suffix,
    /// Upstream `ErrNumeric`.
    #[error("unable to parse numeric part of quantity")]
    Numeric,
}

/// A parsed quantity: exact value in nano-units plus the suffix family it was written in.
#[derive(Clone, Debug)]
pub struct Quantity {
    nanos: i128,
    format: Format,
    /// The text as written, when upstream keeps it (see the module documentation).
    text: Option<Arc<str>>,
    /// The exact value, when it is beyond the cap (`nanos` then holds the cap, with its sign).
    huge: Option<Exact>,
}

impl PartialEq for Quantity {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Quantity {}
impl PartialOrd for Quantity {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Quantity {
    fn cmp(&self, other: &Self) -> Ordering {
        match (&self.huge, &other.huge) {
            (None, None) => self.nanos.cmp(&other.nanos),
            (Some(a), Some(b)) => a.cmp(b),
            // A value beyond the cap is beyond every capped value on its side of zero.
            (Some(a), None) if a.is_negative() => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (None, Some(b)) if b.is_negative() => Ordering::Greater,
            (None, Some(_)) => Ordering::Less,
        }
    }
}

/// `mantissa * 10^exponent` with the mantissa's trailing zeros moved into the exponent
/// (upstream `removeInt64Factors(_, 10)`).
fn strip_tens(mut mantissa: i128, mut exponent: i32) -> (i128, i32) {
    while mantissa != 0 && mantissa % 10 == 0 {
        mantissa /= 10;
        exponent += 1;
    }
    (mantissa, exponent)
}

impl Quantity {
    /// Zero, in decimal SI.
    pub const ZERO: Quantity = Quantity {
        nanos: 0,
        format: Format::DecimalSI,
        text: None,
        huge: None,
    };

    /// Parse like upstream `resource.ParseQuantity` (`1Gi` equals `1024Mi`; `1.5.5Gi` is an error).
    pub fn parse(s: &str) -> Result<Self, QuantityError> {
        if s.is_empty() {
            return Err(QuantityError::FormatWrong);
        }
        let parts = split_quantity(s)?;
        let (base, exponent, format) = interpret_suffix(parts.suffix).ok_or(QuantityError::Suffix)?;
        // Digits of the mantissa as one integer, with `frac_digits` decimals.
        // (Concatenated only when there is a fraction: this runs for every quantity of every Pod.)
        let joined;
        let digits = if parts.denom.is_empty() {
            parts.num
        } else {
            joined = [parts.num, parts.denom].concat();
            &joined
        };
        let digits = digits.trim_start_matches('0');
        let frac_digits = i32::try_from(parts.denom.len()).map_err(|_| QuantityError::Numeric)?;
        let mut nanos = scale_to_nanos(digits, frac_digits, base, exponent)?;
        if !parts.positive {
            nanos = -nanos;
        }
        // Upstream: BinarySI values strictly between 0 and 1 are reformatted as DecimalSI.
        let fast = fast_path(&parts, exponent, format);
        let format = if format == Format::BinarySI && nanos.abs() < NANO && nanos != 0 {
            Format::DecimalSI
        } else {
            format
        };
        Ok(Self {
            nanos,
            format,
            text: fast.filter(|f| f.kept).map(|_| Arc::from(s)),
            huge: fast
                .filter(|f| beyond_cap(f.value, f.scale))
                .map(|f| Exact::new(f.value, f.scale)),
        })
    }

    /// Parse a k8s-openapi quantity.
    pub fn from_k8s(q: &K8sQuantity) -> Result<Self, QuantityError> {
        Self::parse(&q.0)
    }

    /// The exact value in nano-units.
    pub fn nanos(&self) -> i128 {
        self.nanos
    }

    /// Upstream `Value()`: units, rounded up (away from zero for positive values).
    pub fn value(&self) -> i64 {
        clamp_i64(div_ceil(self.nanos, NANO))
    }

    /// Upstream `MilliValue()`: milli-units, rounded up.
    pub fn milli_value(&self) -> i64 {
        clamp_i64(div_ceil(self.nanos, 1_000_000))
    }

    /// `MilliValue()` as Go computes it for every value, beyond the int64 range too (where the
    /// result wraps; see [`Exact::go_scaled_int64`]): what a message prints with `%d`.
    pub fn go_milli_value(&self) -> i64 {
        self.huge
            .as_ref()
            .map_or_else(|| self.milli_value(), |e| e.go_scaled_int64(3))
    }

    /// `Value()` as Go computes it for every value (see [`Quantity::go_milli_value`]).
    pub fn go_value(&self) -> i64 {
        self.huge
            .as_ref()
            .map_or_else(|| self.value(), |e| e.go_scaled_int64(0))
    }

    /// Upstream `Sign()`.
    pub fn sign(&self) -> i32 {
        match self.nanos.cmp(&0) {
            Ordering::Less => -1,
            Ordering::Equal => 0,
            Ordering::Greater => 1,
        }
    }

    /// True for zero.
    pub fn is_zero(&self) -> bool {
        self.nanos == 0
    }

    /// Upstream `Add`: the sum, exact beyond the int64 range; a zero takes the other's format.
    #[must_use]
    pub fn add(&self, other: &Quantity) -> Quantity {
        let format = if self.is_zero() { other.format } else { self.format };
        let nanos = self.nanos + other.nanos;
        if self.huge.is_none() && other.huge.is_none() && nanos.abs() <= MAX_UNITS * NANO {
            return Quantity {
                nanos,
                format,
                text: None,
                huge: None,
            };
        }
        Self::from_exact(self.exact().add(&other.exact()), format)
    }

    /// The exact value.
    fn exact(&self) -> Exact {
        self.huge.clone().unwrap_or_else(|| Exact::new(self.nanos, -9))
    }

    /// A quantity of `value`: in nano-units when it is within the cap, else kept exactly.
    fn from_exact(value: Exact, format: Format) -> Quantity {
        let cap = MAX_UNITS * NANO;
        match value.to_nanos().filter(|n| n.abs() <= cap) {
            Some(nanos) => Quantity {
                nanos,
                format,
                text: None,
                huge: None,
            },
            None => Quantity {
                nanos: if value.is_negative() { -cap } else { cap },
                format,
                text: None,
                huge: Some(value),
            },
        }
    }

    /// `nanos` nano-units, in the suffix family of `like`.
    pub fn from_nanos(nanos: i128, like: &Quantity) -> Quantity {
        Quantity {
            nanos: nanos.clamp(-MAX_UNITS * NANO, MAX_UNITS * NANO),
            format: like.format,
            text: None,
            huge: None,
        }
    }

    /// The quantity with the opposite sign.
    #[must_use]
    pub fn negated(&self) -> Quantity {
        Quantity {
            nanos: -self.nanos,
            format: self.format,
            text: None,
            huge: self.huge.as_ref().map(Exact::negated),
        }
    }

    /// Round up to milli precision (upstream `RoundUp(-3)`, applied by `SetDefaults_ResourceList`).
    /// The text as written stays when nothing was rounded (upstream keeps it for a scale of -3 or
    /// more, and every kept text of a smaller scale has something below a milli-unit).
    #[must_use]
    pub(crate) fn round_up_milli(&self) -> Quantity {
        let nanos = div_ceil(self.nanos, 1_000_000) * 1_000_000;
        Quantity {
            nanos,
            format: self.format,
            text: self.text.clone().filter(|_| nanos == self.nanos),
            huge: self.huge.clone(),
        }
    }

    /// True when the value has a fractional part below one milli-unit (e.g. `1n`).
    pub(crate) fn has_sub_milli_precision(&self) -> bool {
        self.nanos % 1_000_000 != 0
    }
}

impl fmt::Display for Quantity {
    /// Upstream `String()`: the text as written when upstream keeps it, else `CanonicalizeBytes` in
    /// the quantity's suffix family.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(text) = &self.text {
            return f.write_str(text);
        }
        if self.nanos == 0 {
            return f.write_str("0");
        }
        let abs = self.nanos.abs();
        // BinarySI between -1024 and 1024, or not a whole number, is shown as DecimalSI.
        if self.huge.is_none() && self.format == Format::BinarySI && abs >= 1024 * NANO && abs % NANO == 0 {
            let sign = if self.nanos < 0 { "-" } else { "" };
            let mut units = abs / NANO;
            let suffixes = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
            let mut i = 0;
            while i + 1 < suffixes.len() && units % 1024 == 0 {
                units /= 1024;
                i += 1;
            }
            return write!(f, "{sign}{units}{}", suffixes[i]);
        }
        if let Some(e) = self.huge.as_ref().filter(|_| self.format == Format::BinarySI)
            && let Some((digits, times)) = e.base1024()
        {
            let sign = if e.is_negative() { "-" } else { "" };
            // Upstream writes no suffix past `Ei`.
            let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
                .get(times as usize)
                .copied()
                .unwrap_or_default();
            return write!(f, "{sign}{digits}{suffix}");
        }
        let (mantissa, exponent) = match &self.huge {
            Some(e) => {
                let (digits, exponent) = e.canonical_digits(true);
                let sign = if e.is_negative() { "-" } else { "" };
                (format!("{sign}{digits}"), exponent)
            }
            None => {
                let (m, e) = canonical_decimal(self.nanos, -9);
                (m.to_string(), e)
            }
        };
        match self.format {
            Format::DecimalExponent if exponent == 0 => write!(f, "{mantissa}"),
            Format::DecimalExponent => write!(f, "{mantissa}e{exponent}"),
            // Upstream writes no suffix for an exponent its table lacks.
            Format::DecimalSI | Format::BinarySI => write!(f, "{mantissa}{}", decimal_suffix(exponent)),
        }
    }
}

/// Upstream `AsCanonicalBytes`: trailing zeros into the exponent, then the exponent down to a
/// multiple of three.
fn canonical_decimal(mantissa: i128, exponent: i32) -> (i128, i32) {
    let (m, e) = strip_tens(mantissa, exponent);
    match e.rem_euclid(3) {
        1 => (m * 10, e - 1),
        2 => (m * 100, e - 2),
        _ => (m, e),
    }
}

/// The DecimalSI suffix of a power of ten (a multiple of three), empty when there is none.
fn decimal_suffix(exponent: i32) -> &'static str {
    match exponent {
        -9 => "n",
        -6 => "u",
        -3 => "m",
        3 => "k",
        6 => "M",
        9 => "G",
        12 => "T",
        15 => "P",
        18 => "E",
        _ => "",
    }
}

/// What `ParseQuantity`'s fast path (an `int64Amount`) makes of a quantity, when it takes it.
#[derive(Clone, Copy)]
struct FastPath {
    /// The signed mantissa.
    value: i64,
    /// Its power of ten.
    scale: i32,
    /// Whether the text is in canonical form, so upstream keeps it.
    kept: bool,
}

/// Upstream `ParseQuantity` up to its slow path: the mantissa fits 18 digits (fewer for binary
/// suffixes), the scale is at least nano, and a binary product fits an int64.
fn fast_path(p: &Parts<'_>, exponent: i32, format: Format) -> Option<FastPath> {
    let digits = i32::try_from(p.num.len() + p.denom.len()).ok()?;
    let (scale, shift, precision) = match format {
        Format::DecimalSI | Format::DecimalExponent => (exponent, 0, 18 - digits),
        Format::BinarySI if exponent >= 0 && p.denom.is_empty() => {
            (0, exponent, 15 - digits - exponent * 3 / 10 - 1)
        }
        Format::BinarySI => return None,
    };
    let denom = i32::try_from(p.denom.len()).ok()?;
    let scale = scale.checked_sub(denom)?;
    if precision < 0 || scale < -9 {
        return None;
    }
    let shifted = [p.num, p.denom].concat();
    let unsigned: i64 = shifted.parse().ok()?;
    let value = unsigned.checked_mul(1i64.checked_shl(u32::try_from(shift).ok()?)?)?;
    let kept = match format {
        Format::BinarySI => exponent % 10 == 0 && unsigned & 0x07 != 0,
        _ => scale % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0'),
    };
    Some(FastPath {
        value: if p.positive { value } else { -value },
        scale,
        kept,
    })
}

/// Whether `value * 10^scale` units is beyond upstream's cap of 2^63-1 units.
fn beyond_cap(value: i64, scale: i32) -> bool {
    let Ok(scale) = usize::try_from(scale) else {
        return false;
    };
    value != 0
        && POW10
            .get(scale)
            .and_then(|p| i128::from(value).abs().checked_mul(*p))
            .is_none_or(|v| v > MAX_UNITS)
}

fn clamp_i64(v: i128) -> i64 {
    i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX })
}

/// Ceiling division for a positive divisor.
fn div_ceil(n: i128, d: i128) -> i128 {
    let q = n / d;
    if n % d > 0 { q + 1 } else { q }
}

struct Parts<'a> {
    positive: bool,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

/// Upstream `parseQuantityString`, character for character.
fn split_quantity(s: &str) -> Result<Parts<'_>, QuantityError> {
    let b = s.as_bytes();
    let end = b.len();
    let mut pos = 0;
    let mut positive = true;
    match b.first() {
        Some(b'-') => {
            positive = false;
            pos += 1;
        }
        Some(b'+') => pos += 1,
        _ => {}
    }
    while pos < end && b[pos] == b'0' {
        pos += 1;
    }
    if pos >= end {
        return Ok(Parts {
            positive,
            num: "0",
            denom: "",
            suffix: "",
        });
    }
    let num_start = pos;
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    let num = if pos == num_start { "0" } else { &s[num_start..pos] };
    let mut denom = "";
    if pos < end && b[pos] == b'.' {
        pos += 1;
        let d_start = pos;
        while pos < end && b[pos].is_ascii_digit() {
            pos += 1;
        }
        denom = &s[d_start..pos];
    }
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < end && (b[pos] == b'-' || b[pos] == b'+') {
        pos += 1;
    }
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos < end {
        return Err(QuantityError::FormatWrong);
    }
    Ok(Parts {
        positive,
        num,
        denom,
        suffix: &s[suffix_start..],
    })
}

/// Upstream `suffixer.interpret`: (base, exponent, format).
fn interpret_suffix(suffix: &str) -> Option<(u32, i32, Format)> {
    let decimal = |e| Some((10, e, Format::DecimalSI));
    let binary = |e| Some((2, e, Format::BinarySI));
    match suffix {
        "" => decimal(0),
        "n" => decimal(-9),
        "u" => decimal(-6),
        "m" => decimal(-3),
        "k" => decimal(3),
        "M" => decimal(6),
        "G" => decimal(9),
        "T" => decimal(12),
        "P" => decimal(15),
        "E" => decimal(18),
        "Ki" => binary(10),
        "Mi" => binary(20),
        "Gi" => binary(30),
        "Ti" => binary(40),
        "Pi" => binary(50),
        "Ei" => binary(60),
        s if s.len() > 1 && (s.starts_with('e') || s.starts_with('E')) => {
            let e: i32 = s[1..].parse().ok()?;
            Some((10, e, Format::DecimalExponent))
        }
        _ => None,
    }
}

/// 10^0 ..= 10^38, every power of ten an `i128` holds.
const POW10: [i128; 39] = {
    let mut t = [1i128; 39];
    let mut i = 1;
    while i < t.len() {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// Turn `digits * 10^-frac_digits * base^exponent` into nano-units, rounding a non-zero value up to
/// the next nano-unit and capping at 2^63-1 units, as upstream does.
fn scale_to_nanos(digits: &str, frac_digits: i32, base: u32, exponent: i32) -> Result<i128, QuantityError> {
    if digits.is_empty() {
        return Ok(0);
    }
    let cap = MAX_UNITS * NANO;
    // A mantissa longer than 40 digits is beyond any capped value unless heavily scaled down; keep
    // the leading digits and remember whether anything non-zero was dropped (for rounding up).
    let (mantissa, dropped_nonzero, shift) = leading_digits(digits, 36);
    // value = mantissa * 10^(shift - frac_digits) * base^exponent, in units; nanos = value * 10^9.
    let mut pow10 = shift - frac_digits + 9;
    let mut value: i128 = mantissa;
    let mut inexact = dropped_nonzero;
    if base == 2 {
        // Binary exponents are always >= 0 here (Ki..Ei).
        let factor = 1i128.checked_shl(u32::try_from(exponent).map_err(|_| QuantityError::Suffix)?);
        value = match factor.and_then(|f| value.checked_mul(f)) {
            Some(v) => v,
            None => return Ok(cap),
        };
    } else {
        pow10 += exponent;
    }
    if pow10 >= 0 {
        // One multiplication by 10^pow10: the product only grows with each factor of ten, so it
        // is capped exactly when multiplying digit by digit would have been.
        value = match usize::try_from(pow10).ok().and_then(|e| POW10.get(e)) {
            _ if value == 0 => 0,
            Some(f) => value.checked_mul(*f).filter(|v| *v <= cap).unwrap_or(cap),
            None => return Ok(cap),
        };
    } else {
        // One division by 10^-pow10, inexact when it leaves a remainder (every non-negative i128
        // is below 10^39, so a larger divisor leaves zero and the whole value as remainder).
        match usize::try_from(-pow10).ok().and_then(|e| POW10.get(e)) {
            Some(d) => {
                inexact |= value % d != 0;
                value /= d;
            }
            None => {
                inexact |= value != 0;
                value = 0;
            }
        }
    }
    if inexact {
        value += 1;
    }
    Ok(value.min(cap))
}

/// The first `max` significant digits as an integer, whether a non-zero digit was dropped, and how
/// many digits were dropped (a power of ten to multiply back).
fn leading_digits(digits: &str, max: usize) -> (i128, bool, i32) {
    let keep = digits.len().min(max);
    let mut v: i128 = 0;
    for c in digits[..keep].bytes() {
        v = v * 10 + i128::from(c - b'0');
    }
    let dropped = &digits[keep..];
    let dropped_nonzero = dropped.bytes().any(|c| c != b'0');
    (
        v,
        dropped_nonzero,
        i32::try_from(dropped.len()).unwrap_or(i32::MAX),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_like_upstream() {
        assert_eq!(
            Quantity::parse("1Gi").unwrap(),
            Quantity::parse("1024Mi").unwrap()
        );
        assert_eq!(Quantity::parse("1500m").unwrap().milli_value(), 1500);
        assert!(Quantity::parse("1.5.5Gi").is_err());
    }

    fn q(s: &str) -> Quantity {
        Quantity::parse(s).unwrap()
    }

    #[test]
    fn parses_upstream_forms() {
        assert_eq!(q("1Gi").value(), 1 << 30);
        assert_eq!(q("1G").value(), 1_000_000_000);
        assert_eq!(q("100m").milli_value(), 100);
        assert_eq!(q("0.1").milli_value(), 100);
        assert_eq!(q("1e3").value(), 1000);
        assert_eq!(q("1E-3").milli_value(), 1);
        assert_eq!(q("-2").value(), -2);
        assert_eq!(q("+2").value(), 2);
        assert_eq!(q("0").value(), 0);
        assert_eq!(q("1.").value(), 1);
        assert_eq!(q(".5").milli_value(), 500);
        assert_eq!(q("1n").milli_value(), 1, "rounds up");
        assert_eq!(q("9223372036854775807").value(), i64::MAX);
        assert_eq!(q("1Ei").value(), 1 << 60);
        assert_eq!(q("100Ei").value(), i64::MAX, "capped");
        assert_eq!(q("123456789012345678901234567890").value(), i64::MAX);
        // Upstream quirk kept: a bare suffix has an empty numerator, which parses as zero.
        assert_eq!(q("Gi").value(), 0);
    }

    #[test]
    fn rejects_bad_forms() {
        for bad in [
            "", "1.5.5Gi", "1Gib", "abc", "1 Gi", "1e3Ki", "inf", "1ki", "--1", "1e",
        ] {
            assert!(Quantity::parse(bad).is_err(), "{bad:?} should be rejected");
        }
    }

    /// `scale_to_nanos` as it was written before the one-step multiply/divide: ten at a time.
    fn scale_digit_by_digit(digits: &str, frac_digits: i32, base: u32, exponent: i32) -> i128 {
        if digits.is_empty() {
            return 0;
        }
        let cap = MAX_UNITS * NANO;
        let (mut value, mut inexact, shift) = leading_digits(digits, 36);
        let mut pow10 = shift - frac_digits + 9;
        if base == 2 {
            match 1i128
                .checked_shl(exponent as u32)
                .and_then(|f| value.checked_mul(f))
            {
                Some(v) => value = v,
                None => return cap,
            }
        } else {
            pow10 += exponent;
        }
        if pow10 >= 0 {
            for _ in 0..pow10 {
                match value.checked_mul(10) {
                    Some(v) if v <= cap => value = v,
                    _ => return cap,
                }
            }
        } else {
            for _ in 0..(-pow10) {
                if value == 0 {
                    break;
                }
                inexact |= value % 10 != 0;
                value /= 10;
            }
        }
        (value + i128::from(inexact)).min(cap)
    }

    #[test]
    fn one_step_scaling_agrees_with_digit_by_digit() {
        let digits = [
            "",
            "1",
            "5",
            "25",
            "250",
            "1000",
            "123456789",
            "999999999999999999",
            "9223372036854775807",
            "170141183460469231731687303715884105727",
            "1234567890123456789012345678901234567890123",
        ];
        let exponents = [
            (10, -60),
            (10, -40),
            (10, -18),
            (10, -9),
            (10, -3),
            (10, 0),
            (10, 3),
            (10, 18),
            (10, 30),
            (10, 40),
            (10, 300),
            (2, 0),
            (2, 10),
            (2, 20),
            (2, 60),
        ];
        for d in digits {
            for frac in [0, 1, 3, 9, 12, 40, 50] {
                for (base, exponent) in exponents {
                    assert_eq!(
                        scale_to_nanos(d, frac, base, exponent),
                        Ok(scale_digit_by_digit(d, frac, base, exponent)),
                        "{d} frac {frac} {base}^{exponent}"
                    );
                }
            }
        }
    }

    #[test]
    fn compares_by_value() {
        assert_eq!(q("1Gi"), q("1024Mi"));
        assert_eq!(q("1000m"), q("1"));
        assert!(q("1.5") > q("1400m"));
        assert_eq!(q("500m").add(&q("500m")), q("1"));
    }

    #[test]
    fn displays_canonically() {
        assert_eq!(q("1024Mi").to_string(), "1Gi");
        assert_eq!(q("1500m").to_string(), "1500m");
        assert_eq!(q("2000m").to_string(), "2");
        assert_eq!(q("0.5Gi").to_string(), "512Mi");
        assert_eq!(q("1.5").to_string(), "1500m");
        assert_eq!(q("2000e3").to_string(), "2e6");
        assert_eq!(q("1024").to_string(), "1024");
    }

    #[test]
    fn keeps_the_text_upstream_keeps() {
        for kept in ["1e3", "+1", "0100m", "1.500k", "9Ki", "1E3", "100m", "128Mi"] {
            assert_eq!(q(kept).to_string(), kept);
        }
        // Not canonical: trailing zeros, a leading zero digit, a scale not a multiple of three, a
        // binary mantissa divisible by 8.
        for (written, shown) in [
            ("1000", "1k"),
            ("0.5", "500m"),
            ("1.5k", "1500"),
            ("8Ki", "8Ki"),
            ("1024Ki", "1Mi"),
        ] {
            assert_eq!(q(written).to_string(), shown, "{written}");
        }
        assert_eq!(q("1u").round_up_milli().to_string(), "1m");
        assert_eq!(q("+1").add(&Quantity::ZERO).to_string(), "1");
    }

    #[test]
    fn values_beyond_the_cap_read_by_the_fast_path_stay_exact() {
        assert_eq!(q("1e400").to_string(), "10e399");
        assert_eq!(q("-1e400").to_string(), "-10e399");
        assert_eq!(q("1000E").to_string(), "1");
        assert!(q("1e400") > q("1e399") && q("1e399") > q("9223372036854775807"));
        assert!(q("-1e400") < q("-9223372036854775807"));
        assert_eq!(q("10e399"), q("1e400"));
        // The slow path caps: more than 18 digits.
        assert_eq!(q("99999999999999999999").to_string(), "9223372036854775807");
        assert_eq!(q("99999999999999999999"), q("9223372036854775807"));
        // Sums leave the int64 range exactly, in the first non-zero operand's format.
        let sum = q("1e400").add(&q("100m")).to_string();
        assert!(
            sum.starts_with("1000") && sum.ends_with("0100e-3") && sum.len() == 404 + 3,
            "{sum}"
        );
        assert_eq!(
            Quantity::ZERO.add(&q("1e400")).add(&q("8")).to_string().len(),
            401
        );
        assert_eq!(q("9E").add(&q("9E")).to_string(), "18E");
        let binary = q("4Gi").add(&q("1e400")).to_string();
        assert!(
            binary.starts_with("93132257461547851562500") && binary.ends_with("0004Gi"),
            "{binary}"
        );
        assert_eq!(q("1e400").add(&q("-1e400")), Quantity::ZERO);
    }
}
