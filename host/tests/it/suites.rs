//! `podmut test` through the built binary (and so through the component): the example suite, the
//! lines and summary of a failing suite, the JSON report, JUnit XML read by an XML parser and held
//! to the JUnit schema's rules, and a suite's bad input. Also `check` on several files.

use std::collections::BTreeMap;

use crate::support::{
    assert_contains_all, examples, expect_bad_input, json_of, run, stderr, stdout, tempdir, write,
};

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop}\n\
spec:\n  containers:\n  - name: app\n    image: nginx:1.27\n    resources: {limits: {cpu: 500m, memory: 64Mi}}\n";

/// A suite of three cases: one that passes, one whose expectations are wrong, one that cannot be
/// judged (its new Pod has a field of the wrong type).
const MIXED: &str = r#"apiVersion: podmut.io/v1alpha1
kind: Test
metadata: {name: mixed}
cases:
- name: an image update
  old: pod.yaml
  patch: {"spec": {"containers": [{"name": "app", "image": "nginx:1.28"}]}}
  expect: {allowed: true, qosClass: Guaranteed}
- name: wrong <expectations> & more
  old: pod.yaml
  patch: {"spec": {"containers": [{"name": "app", "command": ["sh"]}]}}
  expect:
    allowed: true
    errors: [{type: FieldValueInvalid, field: spec.containers}]
    qosClass: BestEffort
- name: an unreadable Pod
  new: {apiVersion: v1, kind: Pod, metadata: {name: x}, spec: {containers: "not a list"}}
  expect: {allowed: true}
"#;

fn mixed_suite(dir: &std::path::Path) -> String {
    write(dir, "pod.yaml", POD);
    write(dir, "mixed.yaml", MIXED).to_string_lossy().into_owned()
}

#[test]
fn the_example_suite_passes_through_the_component() {
    let out = run(&["test", examples().to_str().unwrap()]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert_contains_all(
        &text,
        &[
            "PASS  examples/an image update is allowed on the main resource\n",
            "PASS  examples/a resize may not change the QoS class\n",
            "PASS  examples-immutable-namespace/the policy refuses a debug container\n",
            "11 passed, 0 failed\n",
        ],
    );
    assert!(!text.contains("FAIL"), "{text}");
}

#[test]
fn a_failing_case_names_each_difference_and_the_summary_counts_it() {
    let dir = tempdir();
    let out = run(&["test", &mixed_suite(dir.path())]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    assert_contains_all(
        &text,
        &[
            "PASS  mixed/an image update\n",
            "FAIL  mixed/wrong <expectations> & more\n",
            "      expected allowed, got denied: Pod \"web\" is invalid: spec: Forbidden: pod updates may not change fields",
            "      errors: missing [FieldValueInvalid spec.containers], unexpected [FieldValueForbidden spec (",
            "      qosClass: expected BestEffort, got Guaranteed\n",
            "FAIL  mixed/an unreadable Pod\n",
            "1 passed, 2 failed\n",
        ],
    );
}

#[test]
fn json_gives_each_case_its_result_answer_and_problems() {
    let dir = tempdir();
    let out = run(&["test", &mixed_suite(dir.path()), "-o", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v = json_of(&out);
    assert_eq!(
        v["summary"],
        serde_json::json!({"total": 3, "passed": 1, "failed": 2})
    );
    let cases = v["cases"].as_array().unwrap();
    assert_eq!(cases[0]["result"], "pass");
    assert_eq!(cases[0]["got"]["qosClass"], "Guaranteed");
    assert_eq!(cases[1]["result"], "fail");
    assert_eq!(cases[1]["got"]["allowed"], false);
    assert_eq!(cases[1]["got"]["errors"][0]["type"], "FieldValueForbidden");
    assert_eq!(cases[1]["problems"].as_array().unwrap().len(), 3);
    assert!(
        cases[2]["error"].as_str().unwrap().contains("containers"),
        "{}",
        cases[2]
    );
    assert!(cases[2].get("got").is_none());
}

/// The attributes of an element, for the schema checks below.
fn attrs<'a>(n: roxmltree::Node<'a, 'a>) -> BTreeMap<&'a str, &'a str> {
    n.attributes().map(|a| (a.name(), a.value())).collect()
}

fn count(n: roxmltree::Node<'_, '_>, key: &str) -> usize {
    attrs(n)[key]
        .parse()
        .unwrap_or_else(|e| panic!("{key}={:?}: {e}", attrs(n)[key]))
}

/// The rules of the JUnit XML schema CI systems read (Jenkins' junit-10.xsd, which GitLab and the
/// GitHub reporters follow): `testsuites` holds `testsuite`s with `name`, `tests`, `failures`,
/// `errors`, `skipped`, `time`; each `testcase` has `name`, `classname` and a decimal `time`, and
/// at most one of `failure`/`error` with a `message` and a `type`; the counts add up.
#[test]
fn junit_output_is_junit_xml_a_ci_system_reads() {
    let dir = tempdir();
    let junit = dir.path().join("report.xml");
    let out = run(&[
        "test",
        &mixed_suite(dir.path()),
        "--junit",
        junit.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("not XML ({e}):\n{xml}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let suites: Vec<_> = root.children().filter(roxmltree::Node::is_element).collect();
    assert_eq!(suites.len(), 1);
    let (mut failures, mut errors, mut tests) = (0, 0, 0);
    for suite in &suites {
        assert_eq!(suite.tag_name().name(), "testsuite");
        let a = attrs(*suite);
        for key in ["name", "tests", "failures", "errors", "skipped", "time"] {
            assert!(a.contains_key(key), "testsuite lacks {key}: {xml}");
        }
        assert_eq!(a["name"], "mixed");
        let cases: Vec<_> = suite.children().filter(roxmltree::Node::is_element).collect();
        assert_eq!(count(*suite, "tests"), cases.len());
        let (mut f, mut e) = (0, 0);
        for case in &cases {
            assert_eq!(case.tag_name().name(), "testcase");
            let a = attrs(*case);
            assert_eq!(a["classname"], "mixed");
            a["time"].parse::<f64>().unwrap();
            let children: Vec<_> = case.children().filter(roxmltree::Node::is_element).collect();
            assert!(children.len() <= 1, "{xml}");
            if let Some(c) = children.first() {
                let ca = attrs(*c);
                assert!(ca.contains_key("message") && ca.contains_key("type"), "{xml}");
                match c.tag_name().name() {
                    "failure" => f += 1,
                    "error" => e += 1,
                    other => panic!("unexpected <{other}> in a testcase: {xml}"),
                }
            }
        }
        assert_eq!((count(*suite, "failures"), count(*suite, "errors")), (f, e));
        failures += f;
        errors += e;
        tests += cases.len();
    }
    assert_eq!((failures, errors, tests), (1, 1, 3));
    assert_eq!(
        (
            count(root, "tests"),
            count(root, "failures"),
            count(root, "errors")
        ),
        (3, 1, 1)
    );
    let failing = doc
        .descendants()
        .find(|n| n.attribute("name") == Some("wrong <expectations> & more"))
        .expect("the failing case, its name unescaped");
    let failure = failing.first_element_child().unwrap();
    assert!(
        failure
            .attribute("message")
            .unwrap()
            .starts_with("expected allowed, got denied")
    );
    assert!(
        failure
            .text()
            .unwrap()
            .contains("\nqosClass: expected BestEffort, got Guaranteed")
    );
}

#[test]
fn a_suite_s_mistake_names_the_file_and_the_field() {
    let dir = tempdir();
    let bad = write(
        dir.path(),
        "bad.yaml",
        "apiVersion: podmut.io/v1alpha1\nkind: Test\ncases:\n- name: c\n  new: {kind: Pod}\n  expect: {alowed: true}\n",
    );
    let out = run(&["test", bad.to_str().unwrap()]);
    expect_bad_input(&out, "bad.yaml: cases[0].expect.alowed: unknown field `alowed`");
    // A context key misspelt on a case or on the suite is refused too.
    let case_key = write(
        dir.path(),
        "case-key.yaml",
        "apiVersion: podmut.io/v1alpha1\nkind: Test\ncases:\n- name: c\n  new: {kind: Pod}\n  setings: {}\n  expect: {allowed: true}\n",
    );
    let out = run(&["test", case_key.to_str().unwrap()]);
    expect_bad_input(&out, "case-key.yaml: cases[0]: unknown field `setings`");
    let suite_key = write(
        dir.path(),
        "suite-key.yaml",
        "apiVersion: podmut.io/v1alpha1\nkind: Test\nkubernetesVersoin: '1.36'\ncases: []\n",
    );
    let out = run(&["test", suite_key.to_str().unwrap()]);
    expect_bad_input(&out, "suite-key.yaml: unknown field `kubernetesVersoin`");
    let other = write(dir.path(), "pod.yaml", POD);
    expect_bad_input(
        &run(&["test", other.to_str().unwrap()]),
        "pod.yaml: not a podmut test suite (apiVersion podmut.io/v1alpha1, kind Test); found v1 Pod",
    );
    let missing = write(
        dir.path(),
        "missing.yaml",
        "apiVersion: podmut.io/v1alpha1\nkind: Test\ncases:\n- name: c\n  old: nowhere.yaml\n  new: nowhere.yaml\n  expect: {allowed: true}\n",
    );
    expect_bad_input(
        &run(&["test", missing.to_str().unwrap()]),
        "missing.yaml: cases[0] (\"c\"): old: cannot read",
    );
}

#[test]
fn run_selects_cases_by_name() {
    let dir = tempdir();
    let out = run(&["test", &mixed_suite(dir.path()), "--run", "image update"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).ends_with("1 passed, 0 failed\n"), "{}", stdout(&out));
}

#[test]
fn check_takes_several_files_and_directories_with_a_line_each_and_a_summary() {
    let dir = tempdir();
    let ok = write(dir.path(), "a.yaml", POD);
    write(
        dir.path(),
        "b.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: bad, namespace: shop}\nspec: {containers: []}\n",
    );
    let out = run(&["check", "--new", dir.path().to_str().unwrap()]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    assert_contains_all(
        &text,
        &[
            "a.yaml: pod shop/web: allowed\n",
            "b.yaml: pod shop/bad: denied: Pod \"bad\" is invalid: spec.containers: Required value",
            "2 resources: 1 allowed, 1 denied, 0 errors\n",
        ],
    );
    let json = json_of(&run(&[
        "check",
        "--new",
        ok.to_str().unwrap(),
        "--new",
        ok.to_str().unwrap(),
        "-o",
        "json",
    ]));
    assert_eq!(json["summary"]["resources"], 2);
    assert!(json["items"][0]["file"].as_str().unwrap().ends_with("a.yaml"));
}

#[test]
fn check_pairs_old_and_new_objects_across_files() {
    let (old, new) = (tempdir(), tempdir());
    write(old.path(), "web.yaml", POD);
    write(new.path(), "web.yaml", &POD.replace("nginx:1.27", "nginx:1.28"));
    write(new.path(), "extra.yaml", &POD.replace("name: web", "name: extra"));
    let out = run(&[
        "check",
        "--old",
        old.path().to_str().unwrap(),
        "--new",
        new.path().to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(2), "{text}{}", stderr(&out));
    assert_contains_all(
        &text,
        &[
            "web.yaml: pod shop/web: allowed\n",
            "extra.yaml: pod shop/extra: error: ",
            "has no old Pod in --old to pair with",
            "2 resources: 1 allowed, 0 denied, 1 errors\n",
        ],
    );
}
