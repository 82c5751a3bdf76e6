//! `admission::review` and `document::parse_pod` read JSON straight into the typed objects (one
//! pass) and everything else through a JSON value (YAML, numeric quantities, other resources). Both
//! readings must give the same answer: every update and create fixture under `tests/cases/` is
//! wrapped in an AdmissionReview and judged both ways, and each answer must agree with the
//! fixture's own `check`; every fixture Pod must decode to the same object both ways.
#![expect(clippy::unwrap_used, reason = "a test: failing loudly is the point")]

use podmut_core::Settings;
use podmut_core::{parse_pod, parse_text, pod_from_value, read_json_directly};
use podmut_core::{read_pod_review_directly, review, review_value};
use serde_json::{Value, json};

/// Fixture areas that are not `check` cases (see `podmut_conformance::area_for`).
const NOT_CHECK_AREAS: &[&str] = &["qos", "allocate", "probes", "statuses", "coverage", "vap"];

/// The request paths a `check` fixture can name (`none` = the main resource).
const CHECK_SUBRESOURCES: &[&str] = &["none", "dynamic", "ephemeralcontainers", "resize", "status"];

/// The fixture as an AdmissionReview (UPDATE with an old Pod, else CREATE); `None` for fixtures a
/// review cannot carry (no new Pod, an unknown path, or a CREATE on a subresource).
fn wrap(case: &podmut_conformance::Case) -> Option<Value> {
    let sub = case.subresource.as_str();
    let new = case.new.as_ref()?;
    if !CHECK_SUBRESOURCES.contains(&sub) || (case.old.is_none() && sub != "none") {
        return None;
    }
    Some(podmut_fuzzgen::admission_review(case.old.as_ref(), new, sub))
}

fn general(text: &str, settings_text: &str) -> Result<String, String> {
    let settings = Settings::parse(settings_text).map_err(|e| e.to_string())?;
    let value = parse_text(text, "admission-review", settings.max_input_bytes).map_err(|e| e.to_string())?;
    let response = review_value(value, &settings).map_err(|e| e.to_string())?;
    Ok(serde_json::to_string(&response.into_review()).unwrap())
}

#[test]
fn direct_and_general_readings_agree_on_every_fixture() {
    let cases = podmut_conformance::load_cases(&podmut_conformance::cases_dir()).unwrap();
    let (mut compared, mut direct, mut denied) = (0, 0, 0);
    for c in &cases {
        if NOT_CHECK_AREAS.contains(&c.area.as_str()) {
            continue;
        }
        let Some(doc) = wrap(&c.case) else {
            continue;
        };
        let settings = podmut_conformance::settings_text(&c.case);
        // The admission plugins that read the Node run before a webhook is called, so a review
        // never emulates them: a check with `nodes` judges more than a review does.
        if Settings::parse(&settings).is_ok_and(|s| s.nodes.is_some()) {
            continue;
        }
        let json_text = doc.to_string();
        let yaml_text = podmut_core::to_yaml(&doc);
        let answer = review(&json_text, &settings).map_err(|e| e.to_string());
        if Settings::parse(&settings).is_ok_and(|s| read_pod_review_directly(&json_text, &s).is_some()) {
            direct += 1;
        }
        assert_eq!(
            answer,
            general(&json_text, &settings),
            "{}: direct vs general reading",
            c.name
        );
        assert_eq!(
            answer,
            review(&yaml_text, &settings).map_err(|e| e.to_string()),
            "{}: JSON vs YAML review",
            c.name
        );
        // The review's verdict is the fixture's own check verdict.
        let expected = (podmut_conformance::check::AREA.native)(&c.case);
        match (&answer, expected.get("allowed").and_then(Value::as_bool)) {
            (Ok(text), Some(allowed)) => {
                let out: Value = serde_json::from_str(text).unwrap();
                assert_eq!(
                    out["response"]["allowed"],
                    json!(allowed),
                    "{}: review vs check",
                    c.name
                );
                assert_eq!(out["response"]["uid"], doc["request"]["uid"], "{}", c.name);
                if !allowed {
                    denied += 1;
                    let causes = out["response"]["status"]["details"]["causes"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default();
                    let fields: Vec<&str> = causes.iter().filter_map(|c| c["field"].as_str()).collect();
                    for e in expected["errors"].as_array().into_iter().flatten() {
                        let f = e["field"].as_str().unwrap_or_default();
                        assert!(
                            fields.contains(&f),
                            "{}: cause at {f} missing from {fields:?}",
                            c.name
                        );
                    }
                }
            }
            (Err(_), None) => {}
            (a, e) => panic!("{}: review gave {a:?}, check gave {expected} ({e:?})", c.name),
        }
        compared += 1;
    }
    eprintln!("{compared} fixtures judged both ways, {direct} read directly, {denied} denials");
    assert!(compared > 300, "only {compared} fixtures were judged both ways");
    assert!(
        direct * 10 > compared * 8,
        "only {direct} of {compared} reviews took the direct reading"
    );
    assert!(denied > 100, "only {denied} denials compared");
}

#[test]
fn every_fixture_pod_decodes_the_same_directly_and_through_a_value() {
    let cases = podmut_conformance::load_cases(&podmut_conformance::cases_dir()).unwrap();
    let limit = Settings::default().max_input_bytes;
    let (mut compared, mut direct) = (0, 0);
    for c in &cases {
        for pod in [&c.case.old, &c.case.new, &c.case.pod].into_iter().flatten() {
            let json = pod.to_string();
            let general = parse_text(&json, "pod", limit).and_then(|v| pod_from_value(v, "pod"));
            let yaml = podmut_core::to_yaml(pod);
            let answer = parse_pod(&json, "pod", limit);
            assert_eq!(answer, general, "{}: direct vs general decoding", c.name);
            assert_eq!(answer, parse_pod(&yaml, "pod", limit), "{}: JSON vs YAML", c.name);
            if read_json_directly::<k8s_openapi::api::core::v1::Pod>(&json, limit).is_some() {
                direct += 1;
            }
            compared += 1;
        }
    }
    eprintln!("{compared} fixture Pods decoded both ways, {direct} directly");
    assert!(compared > 500, "only {compared} Pods compared");
    assert!(
        direct * 10 > compared * 8,
        "only {direct} of {compared} Pods took the direct reading"
    );
}
