//! A case's expectation compared with podmut's answer: what differs, one line each (nothing when
//! the case passes). Only what the expectation gives is compared.

use super::judge::{Answer, Cause};
use super::suite::{Expect, ExpectedDecision, ExpectedError, ExpectedVap};
use crate::types::VapDecision;

/// The differences between `expect` and `got`.
pub(crate) fn compare(expect: &Expect, got: &Answer) -> Vec<String> {
    let mut out = Vec::new();
    if expect.allowed != got.allowed {
        out.push(if got.allowed {
            "expected denied, got allowed".to_owned()
        } else {
            format!("expected allowed, got denied: {}", got.message)
        });
    }
    if let Some(errors) = &expect.errors {
        out.extend(errors_differ(errors, &got.errors));
    }
    if let Some(m) = &expect.message
        && *m != got.message
    {
        out.push(format!("message: expected {m:?}, got {:?}", got.message));
    }
    if let Some(q) = &expect.qos_class
        && got.qos_class.as_ref() != Some(q)
    {
        out.push(format!(
            "qosClass: expected {q}, got {}",
            got.qos_class.as_deref().unwrap_or("none")
        ));
    }
    if let Some(w) = &expect.warnings {
        let (mut a, mut b) = (w.clone(), got.warnings.clone());
        a.sort();
        b.sort();
        if a != b {
            out.push(format!("warnings: expected {w:?}, got {:?}", got.warnings));
        }
    }
    if let Some(v) = &expect.vap {
        out.extend(vap_differs(v, got));
    }
    out
}

/// The (type, field) pairs, and the origins the expectation pins, as multisets.
fn errors_differ(expected: &[ExpectedError], got: &[Cause]) -> Option<String> {
    let mut unmatched: Vec<&Cause> = got.iter().collect();
    let mut missing = Vec::new();
    for e in expected {
        let found = unmatched.iter().position(|c| {
            c.type_ == e.type_ && c.field == e.field && e.origin.as_ref().is_none_or(|o| *o == c.origin)
        });
        match found {
            Some(i) => {
                unmatched.remove(i);
            }
            None => missing.push(error_text(&e.type_, &e.field, e.origin.as_deref())),
        }
    }
    if missing.is_empty() && unmatched.is_empty() {
        return None;
    }
    let extra: Vec<String> = unmatched
        .iter()
        .map(|c| error_text(&c.type_, &c.field, Some(&c.origin)))
        .collect();
    Some(format!(
        "errors: missing [{}], unexpected [{}]",
        missing.join(", "),
        extra.join(", ")
    ))
}

fn error_text(type_: &str, field: &str, origin: Option<&str>) -> String {
    match origin {
        Some(o) => format!("{type_} {field} ({o})"),
        None => format!("{type_} {field}"),
    }
}

fn vap_differs(expect: &ExpectedVap, got: &Answer) -> Vec<String> {
    let Some(report) = &got.vap else {
        return vec!["vap: expected the policies' answer, but the case has no policies".to_owned()];
    };
    let mut out = Vec::new();
    if let Some(a) = expect.allowed
        && a != report.allowed
    {
        out.push(format!(
            "vap: expected {}, got {}",
            verdict_word(a),
            verdict_word(report.allowed)
        ));
    }
    if let Some(decisions) = &expect.decisions {
        let mut unmatched: Vec<&VapDecision> = report.decisions.iter().collect();
        let mut missing = Vec::new();
        for d in decisions {
            match unmatched.iter().position(|g| decision_matches(d, g)) {
                Some(i) => {
                    unmatched.remove(i);
                }
                None => missing.push(match &d.message {
                    Some(m) => format!("{} {}: {m}", d.action, d.policy),
                    None => format!("{} {}", d.action, d.policy),
                }),
            }
        }
        if !missing.is_empty() || !unmatched.is_empty() {
            let extra: Vec<String> = unmatched
                .iter()
                .map(|g| format!("{} {}: {}", g.action, g.policy, g.message))
                .collect();
            out.push(format!(
                "vap decisions: missing [{}], unexpected [{}]",
                missing.join(", "),
                extra.join(", ")
            ));
        }
    }
    out
}

fn decision_matches(want: &ExpectedDecision, got: &VapDecision) -> bool {
    want.policy == got.policy
        && want.action == got.action
        && want.binding.as_ref().is_none_or(|b| *b == got.binding)
        && want.message.as_ref().is_none_or(|m| *m == got.message)
}

fn verdict_word(allowed: bool) -> &'static str {
    if allowed { "allowed" } else { "denied" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answer(allowed: bool, errors: &[(&str, &str)]) -> Answer {
        Answer {
            allowed,
            message: if allowed {
                String::new()
            } else {
                "Pod \"web\" is invalid".into()
            },
            errors: errors
                .iter()
                .map(|(t, f)| Cause {
                    type_: (*t).into(),
                    field: (*f).into(),
                    origin: "update/x".into(),
                    message: String::new(),
                })
                .collect(),
            warnings: vec!["w".into()],
            qos_class: Some("Burstable".into()),
            vap: None,
            new: json!({}),
        }
    }

    fn expect(v: serde_json::Value) -> Expect {
        serde_json::from_value(v).expect("a valid expectation")
    }

    #[test]
    fn what_agrees_passes() {
        let e = expect(
            json!({"allowed": false, "errors": [{"type": "FieldValueForbidden", "field": "spec"}],
            "qosClass": "Burstable", "warnings": ["w"]}),
        );
        assert_eq!(
            compare(&e, &answer(false, &[("FieldValueForbidden", "spec")])),
            Vec::<String>::new()
        );
    }

    #[test]
    fn each_difference_is_a_line() {
        let e = expect(
            json!({"allowed": true, "errors": [{"type": "FieldValueInvalid", "field": "spec"}],
            "qosClass": "Guaranteed", "warnings": []}),
        );
        let got = compare(&e, &answer(false, &[("FieldValueForbidden", "spec")]));
        assert_eq!(
            got,
            vec![
                "expected allowed, got denied: Pod \"web\" is invalid".to_owned(),
                "errors: missing [FieldValueInvalid spec], unexpected [FieldValueForbidden spec (update/x)]"
                    .to_owned(),
                "qosClass: expected Guaranteed, got Burstable".to_owned(),
                "warnings: expected [], got [\"w\"]".to_owned(),
            ]
        );
    }

    #[test]
    fn a_pinned_origin_must_match() {
        let e = expect(json!({"allowed": false,
            "errors": [{"type": "FieldValueForbidden", "field": "spec", "origin": "update/y"}]}));
        assert_eq!(
            compare(&e, &answer(false, &[("FieldValueForbidden", "spec")])).len(),
            1
        );
    }

    #[test]
    fn a_vap_expectation_without_policies_fails() {
        let e = expect(json!({"allowed": true, "vap": {"allowed": true}}));
        assert_eq!(compare(&e, &answer(true, &[])).len(), 1);
    }
}
