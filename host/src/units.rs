//! Durations and sizes as Kubernetes users write them: Go durations (`1m30s`, `500ms`, `2h`) and
//! Kubernetes quantities (`256Mi`, `3M`, `1.5Gi`, `3e6`), for every flag that takes one.
//!
//! Hand-written because the host must not link podmut-core (where the rules' quantity arithmetic
//! lives) and the only crates for Go durations bring their own, different syntax (humantime reads
//! `1m` as a minute too, but also `1 day`, and rejects `1.5h`).

use std::time::Duration;

/// A Go `time.ParseDuration` string (`300ms`, `1.5h`, `2h45m`, `1m30s`; units ns, us, µs, ms, s,
/// m, h). A plain number is read as seconds, as podmut always took it. Negative durations are
/// refused: no flag takes one.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let bad = || format!("{s:?} is not a duration (e.g. 500ms, 2s, 1m30s, 1h)");
    if t.is_empty() || t.starts_with('-') {
        return Err(bad());
    }
    let t = t.strip_prefix('+').unwrap_or(t);
    if let Ok(secs) = t.parse::<f64>() {
        return Duration::try_from_secs_f64(secs).map_err(|_| bad());
    }
    let mut rest = t;
    let mut total = 0f64;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .ok_or_else(|| format!("{s:?}: missing unit (ns, us, ms, s, m, h)"))?;
        let (num, tail) = rest.split_at(num_len);
        if num.is_empty() || num == "." {
            return Err(bad());
        }
        let n: f64 = num.parse().map_err(|_| bad())?;
        let unit_len = tail
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(tail.len());
        let (unit, next) = tail.split_at(unit_len);
        let scale = match unit {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            other => {
                return Err(format!(
                    "unknown unit {other:?} in duration {s:?} (use ns, us, ms, s, m or h)"
                ));
            }
        };
        total += n * scale;
        rest = next;
    }
    Duration::try_from_secs_f64(total).map_err(|_| bad())
}

/// A Kubernetes quantity as a byte count (`3145728`, `512Ki`, `256Mi`, `3M`, `1.5Gi`, `3e6`),
/// rounded up to a whole byte like `Quantity.Value()`. Zero is refused: every size flag is a limit.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let bad = || format!("{s:?} is not a size (e.g. 3145728, 512Ki, 256Mi, 3M, 1Gi)");
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+'))
        .unwrap_or(t.len());
    let (num, suffix) = t.split_at(split);
    let (mantissa, exp10, exp2) = match suffix {
        "" => (num, 0i32, 0u32),
        "Ki" => (num, 0, 10),
        "Mi" => (num, 0, 20),
        "Gi" => (num, 0, 30),
        "Ti" => (num, 0, 40),
        "Pi" => (num, 0, 50),
        "Ei" => (num, 0, 60),
        "k" => (num, 3, 0),
        "M" => (num, 6, 0),
        "G" => (num, 9, 0),
        "T" => (num, 12, 0),
        "P" => (num, 15, 0),
        "E" => (num, 18, 0),
        e if e.starts_with(['e', 'E']) => {
            let exp: i32 = e[1..].parse().map_err(|_| bad())?;
            (num, exp, 0)
        }
        _ => return Err(bad()),
    };
    let mantissa = mantissa.strip_prefix('+').unwrap_or(mantissa);
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty() || !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    // digits * 2^exp2 * 10^(exp10 - frac_len), exactly, rounded up.
    let digits: u128 = format!("{int}{frac}").parse().map_err(|_| bad())?;
    let scale = exp10 - i32::try_from(frac.len()).map_err(|_| bad())?;
    let power = 10u128.checked_pow(scale.unsigned_abs()).ok_or_else(bad)?;
    let binary = digits.checked_mul(1u128 << exp2).ok_or_else(bad)?;
    let bytes = if scale >= 0 {
        binary.checked_mul(power).ok_or_else(bad)?
    } else {
        binary.div_ceil(power)
    };
    u64::try_from(bytes).ok().filter(|b| *b > 0).ok_or_else(bad)
}

/// [`parse_size`] as a `usize` (for in-process limits).
pub fn parse_size_usize(s: &str) -> Result<usize, String> {
    parse_size(s).and_then(|b| usize::try_from(b).map_err(|_| format!("{s:?} is too large")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations() {
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("1m30s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("2h45m").unwrap(), Duration::from_secs(9900));
        assert_eq!(parse_duration("1.5h").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse_duration("300us").unwrap(), Duration::from_micros(300));
        assert_eq!(parse_duration("3").unwrap(), Duration::from_secs(3));
        assert_eq!(parse_duration("0").unwrap(), Duration::ZERO);
        for bad in ["", "-1s", "fast", "1d", "1m30", "s", ".s"] {
            assert!(parse_duration(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn kubernetes_quantities() {
        assert_eq!(parse_size("3Mi").unwrap(), 3 << 20);
        assert_eq!(parse_size("1024").unwrap(), 1024);
        assert_eq!(parse_size("3M").unwrap(), 3_000_000);
        assert_eq!(parse_size("1.5Gi").unwrap(), 3 << 29);
        assert_eq!(parse_size("3e6").unwrap(), 3_000_000);
        assert_eq!(parse_size("1.5k").unwrap(), 1500);
        assert_eq!(parse_size("0.5").unwrap(), 1, "rounded up");
        for bad in ["0", "lots", "3Mb", "-1", "1.2.3Mi", "", "Mi", "99999999Ei"] {
            assert!(parse_size(bad).is_err(), "{bad:?}");
        }
    }
}
