//! podmut's conformance fixtures: every case under `tests/cases/<area>/` is run natively against
//! `podmut-core` and through the podmut component, and both must give the expected answer.
//!
//! A case file (YAML) — the fields an area reads, plus `description` and `expect`:
//!
//! ```yaml
//! description: adding a container on the main resource is forbidden
//! subresource: none          # check cases: none | dynamic | ephemeralcontainers | resize | status
//! settings: {}               # optional settings profile (policies/default.yaml keys)
//! old: {kind: Pod, ...}      # check: optional (without it a create is validated)
//! new: {kind: Pod, ...}
//! expect:
//!   allowed: false
//!   errors:
//!     - {type: FieldValueForbidden, field: spec.containers, origin: update/container-list}
//! ```
//!
//! The first directory under `cases/` is the area and picks the function ([`area_for`]): `qos` cases
//! give `pod` and expect `{qosClass}`; areas without a module of their own are `check` cases.
//! `expect` is compared with the outcome as JSON: every key `expect` names must be equal in the outcome
//! (objects may leave keys out; lists must match element by element). `expect: {inputError: text}`
//! expects an input error containing `text`. `PODMUT_BLESS=1` rewrites `expect` from the native outcome.

#![allow(
    clippy::panic,
    reason = "test support: a component that cannot load fails the whole suite"
)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub mod allocate;
pub mod check;
pub mod coverage;
pub mod probes;
pub mod qos;
pub mod statuses;

/// One fixture file. Each area reads the fields it needs.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Case {
    /// What the case shows (and, where it applies, the upstream test or KEP sentence it comes from).
    pub description: String,
    /// Check cases: the request path.
    #[serde(default = "default_subresource", skip_serializing_if = "is_none_subresource")]
    pub subresource: String,
    /// Settings profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<Value>,
    /// The Pod before the change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old: Option<Value>,
    /// The Pod after the change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new: Option<Value>,
    /// A single Pod (qos).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod: Option<Value>,
    /// A request document (allocate, statuses, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<Value>,
    /// Skip Kubernetes defaulting.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_defaults: bool,
    /// The expected outcome (area-specific JSON).
    pub expect: Value,
}

fn default_subresource() -> String {
    "none".into()
}

fn is_none_subresource(s: &str) -> bool {
    s == "none"
}

/// A loaded case with its location.
#[derive(Clone, Debug)]
pub struct LoadedCase {
    /// `<area>/<name>` (the test name).
    pub name: String,
    /// The area directory.
    pub area: String,
    /// The file.
    pub path: PathBuf,
    /// The case.
    pub case: Case,
}

/// How an area runs its cases: natively and through the component, both giving outcome JSON.
#[derive(Clone, Copy, Debug)]
pub struct Area {
    /// Run against podmut-core.
    pub native: fn(&Case) -> Value,
    /// Run through the component.
    pub wasm: fn(&Case) -> Value,
}

/// The area a case directory belongs to.
pub fn area_for(name: &str) -> Area {
    match name {
        "qos" => qos::AREA,
        "allocate" => allocate::AREA,
        "probes" => probes::AREA,
        "statuses" => statuses::AREA,
        "coverage" => coverage::AREA,
        _ => check::AREA,
    }
}

/// The outcome of an input error.
pub fn input_error(text: impl Into<String>) -> Value {
    json!({ "inputError": text.into() })
}

/// The fixtures directory.
pub fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("cases")
}

/// Load every case file under `dir` (sorted).
pub fn load_cases(dir: &Path) -> Result<Vec<LoadedCase>, String> {
    let mut files = Vec::new();
    collect(dir, &mut files).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let case: Case = serde_yaml_ng::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let rel = path.strip_prefix(dir).unwrap_or(&path).with_extension("");
        let name = rel.to_string_lossy().replace('\\', "/");
        let area = name.split('/').next().unwrap_or("").to_owned();
        out.push(LoadedCase {
            name,
            area,
            path,
            case,
        });
    }
    Ok(out)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let p = entry?.path();
        if p.is_dir() {
            collect(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(p);
        }
    }
    Ok(())
}

/// A JSON document as text (for the functions that take documents).
pub fn json_text(v: Option<&Value>) -> Option<String> {
    v.map(Value::to_string)
}

/// The settings document of a case (`""` for the defaults).
pub fn settings_text(c: &Case) -> String {
    c.settings.as_ref().map(Value::to_string).unwrap_or_default()
}

/// The component, compiled once per test process.
pub fn runtime() -> &'static podmut::Runtime {
    static RT: OnceLock<podmut::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        let options = podmut::RuntimeOptions {
            cache: podmut::CacheMode::Off,
            ..Default::default()
        };
        match podmut::Runtime::load(&podmut::ComponentSource::Embedded, options) {
            Ok(rt) => rt,
            Err(e) => panic!("cannot load the embedded component: {e}"),
        }
    })
}

/// Whether `actual` satisfies `expected`: equal scalars; for objects every expected key matches
/// (extra keys in `actual` are fine); lists match element by element; `inputError` matches by
/// substring.
pub fn satisfies(actual: &Value, expected: &Value) -> bool {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => e.iter().all(|(k, ev)| match (k.as_str(), ev, a.get(k)) {
            ("inputError", Value::String(want), Some(Value::String(got))) => got.contains(want.as_str()),
            (_, ev, Some(av)) => satisfies(av, ev),
            (_, Value::Null, None) => true,
            _ => false,
        }),
        (Value::Array(e), Value::Array(a)) => {
            e.len() == a.len() && e.iter().zip(a).all(|(ev, av)| satisfies(av, ev))
        }
        (e, a) => e == a,
    }
}

/// Run one case both ways; `Err` explains every disagreement.
pub fn run_case(c: &LoadedCase, bless: bool) -> Result<(), String> {
    let area = area_for(&c.area);
    let native = (area.native)(&c.case);
    let wasm = (area.wasm)(&c.case);
    if bless {
        let mut updated = c.case.clone();
        // An input error keeps its hand-written (substring) expectation.
        if native.get("inputError").is_none() || c.case.expect.get("inputError").is_none() {
            updated.expect = native;
        }
        let text = serde_yaml_ng::to_string(&updated).map_err(|e| e.to_string())?;
        std::fs::write(&c.path, text).map_err(|e| format!("{}: {e}", c.path.display()))?;
        return Ok(());
    }
    let mut problems = Vec::new();
    if !satisfies(&native, &c.case.expect) {
        problems.push(format!(
            "native outcome differs from expect:\n  expect: {}\n  native: {native}",
            c.case.expect
        ));
    }
    if !satisfies(&wasm, &c.case.expect) {
        problems.push(format!(
            "component outcome differs from expect:\n  expect: {}\n  wasm:   {wasm}",
            c.case.expect
        ));
    }
    // Beyond the expectation, both implementations must agree on everything but input-error wording
    // (the host prefixes it differently).
    let comparable = |v: &Value| {
        if v.get("inputError").is_some() {
            json!("input error")
        } else {
            v.clone()
        }
    };
    if comparable(&native) != comparable(&wasm) {
        problems.push(format!(
            "component and native disagree:\n  native: {native}\n  wasm:   {wasm}"
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} ({}):\n{}",
            c.name,
            c.path.display(),
            problems.join("\n")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn satisfies_is_a_subset_match() {
        let actual =
            json!({"allowed": false, "errors": [{"type": "A", "field": "f", "origin": "o", "extra": 1}]});
        assert!(satisfies(&actual, &json!({"allowed": false})));
        assert!(satisfies(
            &actual,
            &json!({"errors": [{"type": "A", "field": "f"}]})
        ));
        assert!(!satisfies(&actual, &json!({"errors": []})));
        assert!(!satisfies(&actual, &json!({"allowed": true})));
        assert!(!satisfies(&actual, &json!({"missing": 1})));
        assert!(satisfies(
            &json!({"inputError": "new-pod: bad field x"}),
            &json!({"inputError": "field x"})
        ));
    }
}
