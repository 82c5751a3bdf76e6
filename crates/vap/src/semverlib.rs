//! The Kubernetes CEL semver library (`k8s.io/apiserver/pkg/cel/library/semverlib.go`):
//! `semver(string[, normalize])`, `isSemver(string[, normalize])`, `major`, `minor`, `patch`,
//! `isLessThan`, `isGreaterThan`, `compareTo`.
//!
//! Upstream parses with `github.com/blang/semver/v4`'s strict `Parse` (SemVer 2.0.0: three
//! numbers without leading zeros, no `v`, no spaces); the `semver` crate's `Version::parse` accepts
//! and refuses the same strings for the cases upstream tests, so it parses here. Two differences are
//! bridged: blang's error for a version without three parts ("No Major.Minor.Patch elements
//! found", which upstream's tests expect) is produced before the crate is asked, and versions are
//! ordered and compared by precedence (build metadata ignored), as blang's `Compare` does — the
//! crate's `Ord` would order by build metadata too.

use std::cmp::Ordering;
use std::sync::Arc;

use cel::extractors::{Arguments, This};
use cel::objects::Opaque;
use cel::{Context, ExecutionError, Value};

type Res = Result<Value, ExecutionError>;

/// A `kubernetes.Semver` CEL value.
#[derive(Debug)]
pub(crate) struct Semver(::semver::Version);

impl PartialEq for Semver {
    fn eq(&self, other: &Self) -> bool {
        self.0.cmp_precedence(&other.0) == Ordering::Equal
    }
}

impl Eq for Semver {}

impl Opaque for Semver {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.Semver"
    }
}

/// Add the functions to a context. `isLessThan`, `isGreaterThan` and `compareTo` are shared with
/// the quantity library, which hands semver receivers to [`compare`].
pub(crate) fn register(ctx: &mut Context<'_, '_>) {
    // A clash with the environment is a bug every test shows, never an input's fault.
    let _ = ctx.add_function("semver", semver);
    let _ = ctx.add_function("isSemver", is_semver);
    let _ = ctx.add_function("major", major);
    let _ = ctx.add_function("minor", minor);
    let _ = ctx.add_function("patch", patch);
}

/// blang's `Parse`, as far as upstream relies on it.
fn parse(s: &str) -> Result<::semver::Version, String> {
    if s.is_empty() {
        return Err("Version string empty".to_owned());
    }
    if s.splitn(3, '.').count() != 3 {
        return Err("No Major.Minor.Patch elements found".to_owned());
    }
    ::semver::Version::parse(s).map_err(|e| format!("{e} in {s:?}"))
}

/// Upstream's `normalizeAndParse`: drop one leading `v`, drop leading zeros of each part, fill a
/// missing minor or patch with 0 (not when the short version carries pre-release or build data).
fn normalize_and_parse(s: &str) -> Result<::semver::Version, String> {
    let s = s.strip_prefix('v').unwrap_or(s);
    let mut parts: Vec<String> = s
        .splitn(3, '.')
        .map(|p| {
            if p.len() <= 1 {
                return p.to_owned();
            }
            let trimmed = p.trim_start_matches('0');
            if trimmed.starts_with(|c: char| c.is_ascii_digit()) {
                trimmed.to_owned()
            } else {
                format!("0{trimmed}")
            }
        })
        .collect();
    if parts.len() < 3 {
        if parts.last().is_some_and(|p| p.contains(['+', '-'])) {
            return Err("short version cannot contain PreRelease/Build meta data".to_owned());
        }
        parts.resize(3, "0".to_owned());
    }
    parse(&parts.join("."))
}

/// The string and the `normalize` flag of `semver(...)` / `isSemver(...)`.
fn arguments<'a>(function: &str, args: &'a [Value]) -> Result<(&'a str, bool), ExecutionError> {
    match args {
        [Value::String(s)] => Ok((s.as_str(), false)),
        [Value::String(s), Value::Bool(n)] => Ok((s.as_str(), *n)),
        other => Err(ExecutionError::no_such_overload(
            function,
            other.iter().map(|a| a.type_of().to_string()).collect(),
        )),
    }
}

fn parse_with(s: &str, normalize: bool) -> Result<::semver::Version, String> {
    if normalize {
        normalize_and_parse(s)
    } else {
        parse(s)
    }
}

fn semver(Arguments(args): Arguments) -> Res {
    let (s, normalize) = arguments("semver", &args)?;
    let v = parse_with(s, normalize).map_err(|e| ExecutionError::function_error("semver", e))?;
    Ok(Value::Opaque(Arc::new(Semver(v))))
}

fn is_semver(Arguments(args): Arguments) -> Res {
    let (s, normalize) = arguments("isSemver", &args)?;
    Ok(Value::Bool(parse_with(s, normalize).is_ok()))
}

fn version<'a>(function: &str, v: &'a Value) -> Result<&'a ::semver::Version, ExecutionError> {
    as_semver(v)
        .ok_or_else(|| ExecutionError::no_such_member_overload(function, vec![v.type_of().to_string()]))
}

fn as_semver(v: &Value) -> Option<&::semver::Version> {
    match v {
        Value::Opaque(o) => o.downcast_ref::<Semver>().map(|s| &s.0),
        _ => None,
    }
}

/// Go's `types.Int(v.Major)`: a uint64 taken as an int64, as upstream converts it.
#[expect(
    clippy::cast_possible_wrap,
    reason = "upstream converts the uint64 part to int64 the same way"
)]
fn int(n: u64) -> Res {
    Ok(Value::Int(n as i64))
}

fn major(This(this): This<Value>) -> Res {
    int(version("major", &this)?.major)
}

fn minor(This(this): This<Value>) -> Res {
    int(version("minor", &this)?.minor)
}

fn patch(This(this): This<Value>) -> Res {
    int(version("patch", &this)?.patch)
}

/// blang's `Compare` of two semver values, or `None` when `this` is not one (another library's
/// receiver). A semver compared with anything else is "no such overload".
pub(crate) fn compare(
    function: &str,
    this: &Value,
    other: &Value,
) -> Option<Result<Ordering, ExecutionError>> {
    let a = as_semver(this)?;
    Some(as_semver(other).map(|b| a.cmp_precedence(b)).ok_or_else(|| {
        ExecutionError::no_such_member_overload(
            function,
            vec![this.type_of().to_string(), other.type_of().to_string()],
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::super::cel::eval;

    /// Upstream `library/semver_test.go` TestSemver, every case (the `version: 1` cases are the
    /// normalize overloads, which current API servers have).
    #[test]
    fn semver() {
        for (e, want) in [
            ("semver('1.2.3') == semver('1.2.3')", true),
            ("isSemver('1.2.3-beta.1+build.1')", true),
            ("isSemver('')", false),
            ("isSemver('v1.0.0')", false),
            ("isSemver(' 1.0.0')", false),
            ("isSemver('1. 0.0')", false),
            ("isSemver('1.0.0 ')", false),
            ("isSemver('01.01.01')", false),
            ("isSemver('1')", false),
            ("isSemver('1.1')", false),
            ("isSemver('', true)", false),
            ("isSemver(' 1.0.0', true)", false),
            ("isSemver('1. 0.0', true)", false),
            ("isSemver('1.0.0 ', true)", false),
            ("isSemver('v1.0.0', true)", true),
            ("isSemver('01.01.01', true)", true),
            ("isSemver('1', true)", true),
            ("isSemver('1.1', true)", true),
            ("semver('v01.01', true) == semver('1.1.0')", true),
            ("semver('1.2.3') == semver('1.0.0')", false),
            ("semver('1.0.0').isLessThan(semver('1.2.3'))", true),
            ("semver('1.0.0').isLessThan(semver('1.0.0'))", false),
            ("semver('1.2.3').isGreaterThan(semver('1.0.0'))", true),
            ("semver('1.0.0').isGreaterThan(semver('1.0.0'))", false),
            ("semver('1.2.3').compareTo(semver('1.2.3')) == 0", true),
            ("semver('1.0.0').compareTo(semver('1.2.3')) == -1", true),
            ("semver('1.2.3').compareTo(semver('1.0.0')) == 1", true),
            ("semver('1.2.3').major() == 1", true),
            ("semver('1.2.3').minor() == 2", true),
            ("semver('1.2.3').patch() == 3", true),
        ] {
            assert_eq!(eval(e), Ok(cel::Value::Bool(want)), "{e}");
        }
        let e = eval("semver('v1.0')").unwrap_err();
        assert!(e.contains("No Major.Minor.Patch elements found"), "{e}");
        let e = eval("isSemver([1, 2, 3])").unwrap_err();
        assert!(e.contains("isSemver"), "{e}");
    }

    /// The library's documented examples and SemVer 2.0.0's precedence, as blang orders it.
    #[test]
    fn semver_rules() {
        for e in [
            "isSemver('0.1.0-alpha.1')",
            "!isSemver('200K') && !isSemver('Three') && !isSemver('Mi')",
            "semver('1.0', true) == semver('1.0.0')",
            "semver('01.01.01', true) == semver('1.1.1')",
            "!isSemver('1.0-beta', true)",
            "!isSemver('1.2.3-01')",
            "semver('1.0.0-alpha').isLessThan(semver('1.0.0-alpha.1'))",
            "semver('1.0.0-alpha.1').isLessThan(semver('1.0.0-alpha.beta'))",
            "semver('1.0.0-beta.2').isLessThan(semver('1.0.0-beta.11'))",
            "semver('1.0.0-rc.1').isLessThan(semver('1.0.0'))",
            // Build metadata does not order or distinguish versions.
            "semver('1.0.0+a').compareTo(semver('1.0.0+b')) == 0",
            "semver('1.0.0+a') == semver('1.0.0+b')",
            // The quantity library's comparisons still work beside semver's.
            "quantity('1Ki').isGreaterThan(quantity('1k'))",
        ] {
            assert_eq!(eval(e), Ok(cel::Value::Bool(true)), "{e}");
        }
        let e = eval("semver('1.0.0').isLessThan(quantity('1'))").unwrap_err();
        assert!(e.contains("isLessThan"), "{e}");
    }
}
