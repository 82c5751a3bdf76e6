//! `podmut rules` and `podmut explain` through the built binary (so through the component's
//! `report.rules`), and docs/rules.md's rule table, generated from the same call.

use crate::support::{expect_bad_input, json_of, run, stderr, stdout};

#[test]
fn rules_lists_every_origin_with_paths_source_and_fixtures() {
    let o = run(&["rules", "-o", "json"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let v = json_of(&o);
    assert!(
        v["upstream"].as_str().unwrap().starts_with("Kubernetes v1."),
        "{v}"
    );
    let rules = v["rules"].as_array().unwrap();
    assert!(rules.len() > 200, "{} rules", rules.len());
    let origins: Vec<&str> = rules.iter().map(|r| r["origin"].as_str().unwrap()).collect();
    assert!(origins.windows(2).all(|w| w[0] < w[1]), "sorted, each once");
    let dynamic = rules
        .iter()
        .find(|r| r["origin"] == "dynamic/no-privileged")
        .expect("dynamic/no-privileged is listed");
    assert_eq!(dynamic["paths"], serde_json::json!(["dynamic"]));
    assert!(
        dynamic["source"].as_str().unwrap().contains("KEP-5972"),
        "{dynamic}"
    );
    assert!(dynamic["fixtures"].as_u64().unwrap() >= 1, "{dynamic}");
    assert!(!dynamic["text"].as_str().unwrap().is_empty());
    // The origins no fixture can show are listed with 0.
    let size = rules
        .iter()
        .find(|r| r["origin"] == "meta/annotations-size")
        .unwrap();
    assert_eq!(size["fixtures"], 0, "{size}");

    let yaml = run(&["rules", "-o", "yaml"]);
    let y: serde_json::Value = serde_yaml_ng::from_slice(&yaml.stdout).unwrap();
    assert_eq!(y, v, "-o yaml is the same object");

    let text = stdout(&run(&["rules"]));
    let header = text.lines().next().unwrap();
    for col in ["ORIGIN", "PATHS", "FIXTURES", "SOURCE"] {
        assert!(header.contains(col), "{header}");
    }
    let line = text
        .lines()
        .find(|l| l.starts_with("dynamic/no-privileged "))
        .expect("a row per origin");
    assert!(line.contains(" dynamic ") && line.contains("KEP-5972"), "{line}");
    assert!(text.lines().filter(|l| l.contains('/')).count() >= rules.len());
}

#[test]
fn explain_prints_one_entry_with_its_text() {
    let all = json_of(&run(&["rules", "-o", "json"]));
    let entry = all["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["origin"] == "security/sysctl")
        .unwrap()
        .clone();
    let o = run(&["explain", "security/sysctl"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let text = stdout(&o);
    for needle in [
        "ORIGIN:     security/sysctl".to_owned(),
        format!("SOURCE:     {}", entry["source"].as_str().unwrap()),
        format!("FIXTURES:   {}", entry["fixtures"]),
        "DESCRIPTION:".to_owned(),
        entry["text"].as_str().unwrap().to_owned(),
    ] {
        assert!(text.contains(&needle), "lacks {needle:?}:\n{text}");
    }
    let j = json_of(&run(&["explain", "security/sysctl", "-o", "json"]));
    let mut want = entry;
    want["upstream"] = all["upstream"].clone();
    assert_eq!(j, want);
}

#[test]
fn an_unknown_origin_is_bad_input_with_close_matches() {
    let o = run(&["explain", "dynamic/no-privilegd"]);
    expect_bad_input(&o, "unknown rule origin \"dynamic/no-privilegd\"");
    assert!(
        stderr(&o).contains("did you mean dynamic/no-privileged?"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).is_empty());
    let o = run(&["explain", "nothing/like-this-at-all"]);
    expect_bad_input(&o, "podmut rules");
    assert!(!stderr(&o).contains("did you mean"), "{}", stderr(&o));
}

/// docs/rules.md's rule table is `podmut rules -o markdown` between its markers; `PODMUT_BLESS=1`
/// rewrites it (refused under CI, like the fixtures).
#[test]
fn the_docs_rule_table_is_current() {
    const BEGIN: &str = "<!-- BEGIN podmut rules -o markdown (generated: PODMUT_BLESS=1 cargo test -p podmut --test it -- rules::) -->\n";
    const END: &str = "<!-- END podmut rules -o markdown -->";
    let o = run(&["rules", "-o", "markdown"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let table = stdout(&o);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/rules.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let start = readme
        .find(BEGIN)
        .expect("docs/rules.md has the rules BEGIN marker")
        + BEGIN.len();
    let end = start
        + readme[start..]
            .find(END)
            .expect("docs/rules.md has the rules END marker");
    if readme[start..end] == table {
        return;
    }
    let bless = std::env::var_os("PODMUT_BLESS").is_some_and(|v| !v.is_empty() && v != "0");
    let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty());
    if bless && !ci {
        let updated = format!("{}{table}{}", &readme[..start], &readme[end..]);
        std::fs::write(&path, updated).unwrap();
        return;
    }
    panic!(
        "docs/rules.md's rule table is stale: regenerate it with \
         `PODMUT_BLESS=1 cargo test -p podmut --test it -- rules::the_docs_rule_table_is_current`"
    );
}
