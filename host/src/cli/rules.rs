//! `podmut rules` and `podmut explain ORIGIN`: the rule-origin table (podmut-core's `rules`, read
//! through the component's `report.rules`) — every origin a check error can carry, its request
//! paths, the upstream function or KEP section it follows, how many conformance fixtures expect
//! it, and what it asks.

use clap::{Args, ValueEnum};
use serde_json::{Value, json};

use super::{Failure, OutputFormat, PolicyArgs, emit};
use crate::output::{to_json_string, to_yaml_string};
use crate::types::{RuleEntry, RuleTable};

/// Output format of `podmut rules`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum RulesFormat {
    /// A table: origin, request paths, fixtures, upstream source.
    #[default]
    Text,
    /// `{"upstream": "...", "rules": [{"origin", "paths", "source", "text", "fixtures"}]}`.
    Json,
    /// The same object as YAML.
    Yaml,
    /// The Markdown table docs/rules.md embeds.
    Markdown,
}

/// Arguments of `podmut rules`.
#[derive(Debug, Args)]
pub(crate) struct RulesArgs {
    /// Output format.
    #[arg(short, long, value_enum, default_value_t)]
    output: RulesFormat,
    #[command(flatten)]
    policy: PolicyArgs,
}

/// Arguments of `podmut explain`.
#[derive(Debug, Args)]
pub(crate) struct ExplainArgs {
    /// The rule id, as errors name it in `origin` (`dynamic/no-privileged`).
    #[arg(value_name = "ORIGIN")]
    origin: String,
    /// Output format: text, or the entry as JSON/YAML (`podmut rules -o json`'s item, with
    /// `upstream`).
    #[arg(short, long, value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    policy: PolicyArgs,
}

fn table(policy: &PolicyArgs) -> Result<RuleTable, Failure> {
    policy.runtime()?.rules().map_err(|e| Failure::from_call(e, &[]))
}

pub(crate) fn run_rules(a: &RulesArgs) -> Result<u8, Failure> {
    let t = table(&a.policy)?;
    match a.output {
        RulesFormat::Text => emit(&rules_text(&t)),
        RulesFormat::Json => emit(&to_json_string(&table_json(&t))),
        RulesFormat::Yaml => emit(&to_yaml_string(&table_json(&t))),
        RulesFormat::Markdown => emit(&rules_markdown(&t)),
    }
    Ok(0)
}

pub(crate) fn run_explain(a: &ExplainArgs) -> Result<u8, Failure> {
    let t = table(&a.policy)?;
    let Some(rule) = t.rules.iter().find(|r| r.origin == a.origin) else {
        return Err(Failure::input(unknown_origin(&a.origin, &t.rules)));
    };
    let mut v = entry_json(rule);
    if let Some(o) = v.as_object_mut() {
        o.insert("upstream".into(), json!(t.upstream));
    }
    match a.output {
        OutputFormat::Text => emit(&explain_text(rule, &t.upstream)),
        OutputFormat::Json => emit(&to_json_string(&v)),
        OutputFormat::Yaml => emit(&to_yaml_string(&v)),
    }
    Ok(0)
}

fn entry_json(r: &RuleEntry) -> Value {
    json!({
        "origin": r.origin,
        "paths": r.paths,
        "source": r.source,
        "text": r.text,
        "fixtures": r.fixtures,
    })
}

fn table_json(t: &RuleTable) -> Value {
    json!({
        "upstream": t.upstream,
        "rules": t.rules.iter().map(entry_json).collect::<Vec<_>>(),
    })
}

/// `kubectl get`-style columns: ORIGIN, PATHS, FIXTURES, SOURCE.
fn rules_text(t: &RuleTable) -> String {
    let rows: Vec<[String; 4]> = t
        .rules
        .iter()
        .map(|r| {
            [
                r.origin.clone(),
                r.paths.join(","),
                r.fixtures.to_string(),
                r.source.clone(),
            ]
        })
        .collect();
    let header = ["ORIGIN", "PATHS", "FIXTURES", "SOURCE"].map(str::to_owned);
    let mut widths = [0usize; 3];
    for row in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let [origin, paths, fixtures, source] = row;
        out.push_str(&format!(
            "{origin:<w0$}   {paths:<w1$}   {fixtures:>w2$}   {source}\n",
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
        ));
    }
    out.push_str(&format!(
        "\n{} rules; sources refer to {}. `podmut explain ORIGIN` prints one.\n",
        t.rules.len(),
        t.upstream
    ));
    out
}

/// `kubectl explain`-style: the fields, then the text.
fn explain_text(r: &RuleEntry, upstream: &str) -> String {
    format!(
        "ORIGIN:     {}\nPATHS:      {}\nSOURCE:     {}\nUPSTREAM:   {upstream}\nFIXTURES:   {}\n\nDESCRIPTION:\n    {}\n",
        r.origin,
        r.paths.join(", "),
        r.source,
        r.fixtures,
        r.text
    )
}

/// A Markdown table cell: `|` escaped, no line breaks.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// docs/rules.md's rule table.
fn rules_markdown(t: &RuleTable) -> String {
    let mut out = format!(
        "{} rules (sources: {}).\n\n| origin | request paths | upstream source | fixtures | what it asks |\n|---|---|---|--:|---|\n",
        t.rules.len(),
        t.upstream
    );
    for r in &t.rules {
        out.push_str(&format!(
            "| `{}` | {} | `{}` | {} | {} |\n",
            r.origin,
            r.paths.join(", "),
            cell(&r.source),
            r.fixtures,
            cell(&r.text)
        ));
    }
    out
}

/// The error for an origin that is not in the table, with the closest ones (as kubectl suggests a
/// command for a typo).
fn unknown_origin(origin: &str, rules: &[RuleEntry]) -> String {
    let close = suggestions(origin, rules);
    let mut msg = format!("unknown rule origin {origin:?}");
    match close.as_slice() {
        [] => {}
        [one] => msg.push_str(&format!("; did you mean {one}?")),
        many => msg.push_str(&format!("; did you mean one of {}?", many.join(", "))),
    }
    msg.push_str(" (`podmut rules` lists every origin)");
    msg
}

/// Up to three origins within a small edit distance of `origin`, with the same name in another
/// area (`no-privileged` → `dynamic/no-privileged`), or containing it (`privileged`), closest
/// first.
fn suggestions(origin: &str, rules: &[RuleEntry]) -> Vec<String> {
    let name = |o: &str| o.rsplit_once('/').map_or(o, |(_, n)| n).to_owned();
    let wanted = name(origin);
    let limit = (origin.len() / 4).clamp(2, 4);
    let mut scored: Vec<(usize, &str)> = rules
        .iter()
        .filter_map(|r| {
            let d = edit_distance(origin, &r.origin);
            if d <= limit {
                Some((d, r.origin.as_str()))
            } else if name(&r.origin) == wanted {
                Some((limit + 1, r.origin.as_str()))
            } else if origin.len() >= 4 && r.origin.contains(origin) {
                Some((limit + 2, r.origin.as_str()))
            } else {
                None
            }
        })
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, o)| o.to_owned()).collect()
}

/// Levenshtein distance over chars (what kubectl's and clap's suggestions use, in spirit; origins
/// are short, so the O(n·m) table is nothing).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = Vec::with_capacity(b.len() + 1);
        cur.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            let del = prev[j + 1] + 1;
            let ins = cur[j] + 1;
            cur.push(sub.min(del).min(ins));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(origin: &str) -> RuleEntry {
        RuleEntry {
            origin: origin.into(),
            paths: vec!["dynamic".into()],
            source: "KEP-5972".into(),
            text: "a | b".into(),
            fixtures: 1,
        }
    }

    #[test]
    fn close_origins_are_suggested() {
        let rules = [
            entry("dynamic/no-privileged"),
            entry("dynamic/no-host-ports"),
            entry("security/sysctl"),
        ];
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(
            suggestions("dynamic/no-privilegd", &rules),
            ["dynamic/no-privileged"]
        );
        assert_eq!(suggestions("no-privileged", &rules), ["dynamic/no-privileged"]);
        assert_eq!(suggestions("sysctl", &rules), ["security/sysctl"]);
        assert!(suggestions("volume/nothing-like-it", &rules).is_empty());
        let msg = unknown_origin("dynamic/no-privilegd", &rules);
        assert!(msg.contains("did you mean dynamic/no-privileged?"), "{msg}");
    }

    #[test]
    fn markdown_cells_escape_pipes() {
        let t = RuleTable {
            upstream: "Kubernetes v1.37.2".into(),
            rules: vec![entry("dynamic/no-privileged")],
        };
        let md = rules_markdown(&t);
        assert!(
            md.contains("| `dynamic/no-privileged` | dynamic | `KEP-5972` | 1 | a \\| b |"),
            "{md}"
        );
    }
}
