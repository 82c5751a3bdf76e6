//! Every rule origin has a fixture: each row of podmut-core's rule-origin table
//! ([`podmut_core::rules`]) is named by the expected errors of at least one conformance case, and
//! every origin a case expects is a row of the table (a renamed origin fails here, not silently).
//!
//! A case that expects `{origin: X}` among its errors shows rule `X` firing natively and through
//! the component (the runner checks both). [`WITHOUT_FIXTURE`] lists the origins no case can show,
//! with the reason; an origin listed there that gains a case fails the check too, so the list stays
//! the truth.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::LoadedCase;

/// Origins no fixture can name, each with the reason. An entry that gains a fixture fails the
/// check (remove it then); a new rule gets a fixture, never an entry here.
pub const WITHOUT_FIXTURE: &[(&str, &str)] = &[
    (
        "meta/annotations-size",
        "needs more than 256 KiB of annotations: a fixture that size is not worth its bytes; the \
         unit test `annotations_may_total_at_most_256_kib` in core/src/pod/names.rs shows it",
    ),
    (
        "status/node-name",
        "unreachable through a request: the pods/status strategy keeps the stored spec before \
         validating (tests/cases/status/node-name-change-ignored.yaml shows it), as upstream's does; \
         the rule is kept because upstream's ValidatePodStatusUpdate has it (unit test in \
         core/src/status_update.rs)",
    ),
];

/// The origins the expected errors of `cases` name.
pub fn named_origins(cases: &[LoadedCase]) -> BTreeSet<String> {
    cases
        .iter()
        .filter_map(|c| c.case.expect.get("errors").and_then(Value::as_array))
        .flatten()
        .filter_map(|e| e.get("origin").and_then(Value::as_str))
        .map(str::to_string)
        .collect()
}

/// Check the table against the cases (see the module documentation); the error lists every
/// problem.
pub fn check_every_origin_has_a_fixture(cases: &[LoadedCase]) -> Result<(), String> {
    let named = named_origins(cases);
    let table: BTreeSet<&str> = podmut_core::rules().iter().map(|r| r.origin).collect();
    let pending: BTreeSet<&str> = WITHOUT_FIXTURE.iter().map(|(origin, _)| *origin).collect();
    let mut problems = Vec::new();
    for origin in &table {
        match (named.contains(*origin), pending.contains(origin)) {
            (false, false) => problems.push(format!(
                "{origin}: no fixture expects this origin (add a case under tests/cases/ and bless it)"
            )),
            (true, true) => problems.push(format!(
                "{origin}: has a fixture now: remove it from WITHOUT_FIXTURE (tests/src/origins.rs)"
            )),
            _ => {}
        }
    }
    for origin in &pending {
        if !table.contains(origin) {
            problems.push(format!("{origin}: in WITHOUT_FIXTURE but not a rule origin"));
        }
    }
    for origin in &named {
        if !table.contains(origin.as_str()) {
            problems.push(format!(
                "{origin}: a fixture expects it but core/src/rules.rs has no such origin (renamed?)"
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} problem(s) with the rule-origin fixtures:\n  {}",
            problems.len(),
            problems.join("\n  ")
        ))
    }
}
