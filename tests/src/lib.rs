//! podmut's conformance fixtures: every case under `tests/cases/<area>/` is run natively against
//! `podmut-core` and through the podmut component, and both must give the expected answer.
//!
//! A case file (YAML):
//!
//! ```yaml
//! description: adding a container on the main resource is forbidden
//! subresource: none          # none | dynamic | ephemeralcontainers | resize | status (check cases)
//! settings: {}               # optional settings profile (policies/default.yaml keys)
//! old: {kind: Pod, ...}      # optional: without it a create is validated
//! new: {kind: Pod, ...}
//! expect:
//!   allowed: false
//!   errors:
//!     - {type: FieldValueForbidden, field: spec.containers, origin: update/container-list}
//! ```
//!
//! Areas (the first directory under `cases/`) choose the function: `qos` cases give `pod` and
//! expect `qosClass`; every other area is a `check` case. `PODMUT_BLESS=1` rewrites `expect` from
//! the native result.

#![allow(
    clippy::panic,
    reason = "test support: a component that cannot load fails the whole suite"
)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use podmut::types as wit;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One expected (or actual) error, matched on type, field and origin; never on message text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpectedError {
    /// The cause type, e.g. `FieldValueForbidden`.
    #[serde(rename = "type")]
    pub error_type: String,
    /// The rendered field path.
    pub field: String,
    /// The rule id.
    pub origin: String,
}

/// What a case expects.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Expect {
    /// Check cases: the verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed: Option<bool>,
    /// Check cases: every error, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<ExpectedError>>,
    /// QoS cases: the class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qos_class: Option<String>,
    /// Any case: the input is rejected, and the message contains this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_error: Option<String>,
}

/// One fixture file.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Case {
    /// What the case shows.
    pub description: String,
    /// Check cases: the request path.
    #[serde(default = "default_subresource")]
    pub subresource: String,
    /// Settings profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<Value>,
    /// Check cases: the old Pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old: Option<Value>,
    /// Check cases: the new Pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new: Option<Value>,
    /// QoS cases: the Pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod: Option<Value>,
    /// QoS cases: skip defaulting.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_defaults: bool,
    /// The expected answer.
    pub expect: Expect,
}

fn default_subresource() -> String {
    "none".into()
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

/// The answer one implementation gave, in the comparable form.
pub type Outcome = Expect;

fn json_text(v: &Option<Value>) -> Option<String> {
    v.as_ref().map(Value::to_string)
}

fn settings_text(c: &Case) -> String {
    c.settings.as_ref().map(Value::to_string).unwrap_or_default()
}

/// Run a case natively against podmut-core.
pub fn run_native(c: &LoadedCase) -> Outcome {
    let case = &c.case;
    if c.area == "qos" {
        let pod = json_text(&case.pod).unwrap_or_default();
        return match podmut_core::qos_document(&pod, !case.no_defaults, false) {
            Ok(q) => Outcome {
                qos_class: Some(q.as_str().into()),
                ..Default::default()
            },
            Err(e) => Outcome {
                input_error: Some(e.to_string()),
                ..Default::default()
            },
        };
    }
    let sub = case.subresource.parse::<podmut_core::Subresource>();
    let sub = match sub {
        Ok(s) => s,
        Err(e) => {
            return Outcome {
                input_error: Some(e),
                ..Default::default()
            };
        }
    };
    let new = json_text(&case.new).unwrap_or_default();
    match podmut_core::check_documents(json_text(&case.old).as_deref(), &new, sub, &settings_text(case)) {
        Ok(v) => Outcome {
            allowed: Some(v.allowed),
            errors: Some(
                v.errors
                    .iter()
                    .map(|e| ExpectedError {
                        error_type: e.error_type.cause_type().into(),
                        field: e.field.to_string(),
                        origin: e.origin.into(),
                    })
                    .collect(),
            ),
            ..Default::default()
        },
        Err(e) => Outcome {
            input_error: Some(e.to_string()),
            ..Default::default()
        },
    }
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

fn call_error_text(e: &podmut::CallError) -> String {
    e.to_string()
}

/// Run a case through the podmut component.
pub fn run_wasm(c: &LoadedCase) -> Outcome {
    let case = &c.case;
    let rt = runtime();
    if c.area == "qos" {
        let pod = json_text(&case.pod).unwrap_or_default();
        let opts = wit::QosOptions {
            apply_defaults: !case.no_defaults,
            always_compute: false,
        };
        return match rt.qos(&pod, opts) {
            Ok(q) => Outcome {
                qos_class: Some(podmut::output::qos_name(q).into()),
                ..Default::default()
            },
            Err(e) => Outcome {
                input_error: Some(call_error_text(&e)),
                ..Default::default()
            },
        };
    }
    let sub = match podmut::output::parse_subresource(&case.subresource) {
        Ok(s) => s,
        Err(e) => {
            return Outcome {
                input_error: Some(e),
                ..Default::default()
            };
        }
    };
    let new = json_text(&case.new).unwrap_or_default();
    match rt.check(json_text(&case.old).as_deref(), &new, sub, &settings_text(case)) {
        Ok(v) => Outcome {
            allowed: Some(v.allowed),
            errors: Some(
                v.errors
                    .iter()
                    .map(|e| ExpectedError {
                        error_type: podmut::output::cause_type(e.type_).into(),
                        field: e.field.clone(),
                        origin: e.origin.clone(),
                    })
                    .collect(),
            ),
            ..Default::default()
        },
        Err(e) => Outcome {
            input_error: Some(call_error_text(&e)),
            ..Default::default()
        },
    }
}

/// Whether an outcome satisfies an expectation (an expected input error matches by substring).
pub fn satisfies(actual: &Outcome, expected: &Expect) -> bool {
    match (&expected.input_error, &actual.input_error) {
        (Some(want), Some(got)) => return got.contains(want.as_str()),
        (Some(_), None) | (None, Some(_)) => return false,
        (None, None) => {}
    }
    actual.allowed == expected.allowed
        && actual.errors == expected.errors
        && actual.qos_class == expected.qos_class
}

/// Run one case both ways; `Err` explains every disagreement.
pub fn run_case(c: &LoadedCase, bless: bool) -> Result<(), String> {
    let native = run_native(c);
    let wasm = run_wasm(c);
    let mut problems = Vec::new();
    if bless {
        let mut updated = c.case.clone();
        let kept_input_error = c.case.expect.input_error.clone();
        updated.expect = native;
        if updated.expect.input_error.is_some() && kept_input_error.is_some() {
            updated.expect.input_error = kept_input_error;
        }
        let text = serde_yaml_ng::to_string(&updated).map_err(|e| e.to_string())?;
        std::fs::write(&c.path, text).map_err(|e| format!("{}: {e}", c.path.display()))?;
        return Ok(());
    }
    if !satisfies(&native, &c.case.expect) {
        problems.push(format!(
            "native result differs from expect:\n  expect: {:?}\n  native: {native:?}",
            c.case.expect
        ));
    }
    let same = match (&native.input_error, &wasm.input_error) {
        // Input-error texts differ in prefix between core and the host; both must be input errors.
        (Some(_), Some(_)) => satisfies(&wasm, &c.case.expect) || c.case.expect.input_error.is_none(),
        _ => native == wasm,
    };
    if !same {
        problems.push(format!(
            "component and native disagree:\n  native: {native:?}\n  wasm:   {wasm:?}"
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
