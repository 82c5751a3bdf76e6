//! podmut's conformance fixtures: every case under `tests/cases/<area>/` is run natively against
//! `podmut-core` and through the podmut component, and both must give the expected answer.
//!
//! The fixture format (`description`, the documents — whole, or a `base:` plus a JSON merge
//! `patch:` — and `expect`) is described in `tests/cases/README.md`; reading it is
//! `podmut-fixtures`' job. This crate runs a case: the first directory under `cases/` is the area
//! and picks the function ([`area_for`]); areas without a module of their own are `check` cases.
//! `expect` is compared with the outcome as JSON ([`satisfies`]): every key `expect` names must be
//! equal in the outcome (objects may leave keys out; lists must match element by element).
//! `expect: {inputError: text}` expects an input error containing `text`. `cargo xtask bless`
//! rewrites `expect` from the native outcome.

#![expect(
    clippy::panic,
    reason = "test support: a component that cannot load fails the whole suite"
)]

use std::sync::OnceLock;

use serde_json::{Value, json};

pub use podmut_fixtures::{Case, LoadedCase, cases_dir};

pub mod allocate;
pub mod check;
pub mod coverage;
pub mod fields;
pub mod origins;
pub mod patch;
pub mod plan;
pub mod probes;
pub mod qos;
pub mod read_and_check;
pub mod review;
pub mod review_request;
pub mod statuses;
pub mod vap;
pub mod vap_schema;

/// How an area runs its cases: natively and through the component, both giving the function's
/// whole answer as JSON of one shape, and the view of it a fixture's `expect` is compared with.
#[derive(Clone, Copy, Debug)]
pub struct Area {
    /// podmut-core's whole answer.
    pub native: fn(&Case) -> Value,
    /// The component's whole answer, in the same shape.
    pub wasm: fn(&Case) -> Value,
    /// The part of an answer `expect` is compared with and bless writes (input errors aside).
    pub view: fn(&Value) -> Value,
}

/// The area a case directory belongs to.
pub fn area_for(name: &str) -> Area {
    own_area(name).unwrap_or(check::AREA)
}

/// Whether a case directory holds `check` cases (every area without a module of its own).
pub fn is_check_area(name: &str) -> bool {
    own_area(name).is_none()
}

/// The area of a directory with a module of its own.
fn own_area(name: &str) -> Option<Area> {
    Some(match name {
        "qos" => qos::AREA,
        "allocate" => allocate::AREA,
        "probes" => probes::AREA,
        "statuses" => statuses::AREA,
        "coverage" => coverage::AREA,
        "patch" => patch::AREA,
        "fields" => fields::AREA,
        "plan" => plan::AREA,
        "review-request" => review_request::AREA,
        "vap" => vap::AREA,
        _ => return None,
    })
}

/// A native input error as an answer: `{"inputError": {"kind", "input", "message"}}`.
pub fn native_input_error(e: &podmut_core::InputError) -> Value {
    use podmut_core::InputError as E;
    let (kind, input, message) = match e {
        E::Malformed { input, message } => ("malformed", input.as_str(), message.as_str()),
        E::WrongKind { input, message } => ("wrong-kind", input.as_str(), message.as_str()),
        E::TooLarge { input, message } => ("too-large", input.as_str(), message.as_str()),
        E::BadSettings { input, message } => ("bad-settings", input.as_str(), message.as_str()),
        E::NotImplemented(what) => ("not-implemented", "", what.as_str()),
    };
    json!({"inputError": {"kind": kind, "input": input, "message": message}})
}

/// A component call's failure as an answer: an input error in the native shape, or
/// `{"componentFailure": text}` when the component failed as a program (trap, deadline, memory),
/// which no native answer equals.
pub fn component_error(e: &podmut::CallError) -> Value {
    use podmut::types::InputError as E;
    match e {
        podmut::CallError::Input(i) => {
            let (kind, input, message) = match i {
                E::Malformed(p) => ("malformed", p.input.as_str(), p.message.as_str()),
                E::WrongKind(p) => ("wrong-kind", p.input.as_str(), p.message.as_str()),
                E::TooLarge(p) => ("too-large", p.input.as_str(), p.message.as_str()),
                E::BadSettings(p) => ("bad-settings", p.input.as_str(), p.message.as_str()),
                E::NotImplemented(what) => ("not-implemented", "", what.as_str()),
            };
            json!({"inputError": {"kind": kind, "input": input, "message": message}})
        }
        podmut::CallError::Host(h) => json!({"componentFailure": h.to_string()}),
    }
}

/// What `expect` is compared with: an input error as its text `<input>: <message>`, anything
/// else through the area's view.
fn expect_view(area: &Area, answer: &Value) -> Value {
    match answer.get("inputError") {
        Some(e) if e.is_object() => {
            let text = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or_default();
            let shown = if text("input").is_empty() {
                format!("not implemented: {}", text("message"))
            } else {
                format!("{}: {}", text("input"), text("message"))
            };
            json!({ "inputError": shown })
        }
        _ => (area.view)(answer),
    }
}

/// Load every fixture under `dir` (sorted), documents expanded (`tests/cases/README.md`).
pub fn load_cases(dir: &std::path::Path) -> Result<Vec<LoadedCase>, String> {
    podmut_fixtures::load_cases(dir).map_err(|e| e.to_string())
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
///
/// Native and component must give the same whole answer, and its view must satisfy `expect`.
/// With `bless`, the case's `expect:` block is rewritten from the native view instead (the rest of
/// the file stays as written) and the change is printed as a diff; a case whose component and
/// native answers disagree is not blessed but fails.
pub fn run_case(c: &LoadedCase, bless: bool) -> Result<(), String> {
    let area = area_for(&c.area);
    let native = (area.native)(&c.case);
    let wasm = (area.wasm)(&c.case);
    let mut problems = Vec::new();
    if native != wasm {
        problems.push(format!(
            "component and native disagree:\n  native: {native}\n  wasm:   {wasm}"
        ));
    }
    let view = expect_view(&area, &native);
    if bless && problems.is_empty() {
        return bless_case(c, &view);
    }
    if !bless && !satisfies(&view, &c.case.expect) {
        problems.push(format!(
            "the answer differs from expect:\n  expect: {}\n  answer: {view}",
            c.case.expect
        ));
    }
    if problems.is_empty() {
        return Ok(());
    }
    let mut report = format!("{} ({}):\n{}", c.name, c.path.display(), problems.join("\n"));
    if bless {
        report.push_str("\nnot blessed: the component must agree with native first");
    }
    if c.expanded {
        report.push_str("\nthe documents, bases expanded:\n");
        report.push_str(&c.documents_yaml());
    }
    Err(report)
}

/// Rewrite the case's `expect:` from the native view and print what changed.
fn bless_case(c: &LoadedCase, view: &Value) -> Result<(), String> {
    // An input error keeps its hand-written (substring) expectation.
    if view.get("inputError").is_some() && c.case.expect.get("inputError").is_some() {
        return Ok(());
    }
    let text =
        podmut_fixtures::with_expect(&c.text, view).map_err(|e| format!("{}: {e}", c.path.display()))?;
    if text != c.text {
        std::fs::write(&c.path, &text).map_err(|e| format!("{}: {e}", c.path.display()))?;
        eprint!(
            "{}",
            podmut_fixtures::unified_diff(&format!("tests/cases/{}.yaml", c.name), &c.text, &text)
        );
    }
    Ok(())
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
