//! `podmut test PATH...`: declarative suites of Pod (and workload) changes and what each must get,
//! run through the component; with `--server-dry-run` each case is also sent to a real cluster and
//! must get the same answer there. A line per case, a summary line, JUnit XML for CI, `-o json`.

mod expect;
mod judge;
mod junit;
mod server;
mod suite;

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use serde_json::{Value, json};

use super::connection_args::ConnectionArgs;
use super::inputs::ValidateArgs;
use super::{Failure, OutputFormat, PolicyArgs, emit};
use crate::output::{to_json_string, to_yaml_string};

/// Arguments of `podmut test`.
#[derive(Debug, Args)]
pub(crate) struct TestArgs {
    /// Suite files (YAML or JSON, kind Test), or directories: their files that hold suites.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// With a directory, also read its subdirectories.
    #[arg(short = 'R', long)]
    recursive: bool,
    /// Run only the cases whose `suite/case` name contains this text.
    #[arg(long, value_name = "TEXT")]
    run: Option<String>,
    /// Also write the results as JUnit XML to this file.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    validate: ValidateArgs,
    #[command(flatten)]
    policy: PolicyArgs,
    #[command(flatten)]
    cluster: ClusterArgs,
}

/// `--server-dry-run` and kubectl's connection flags.
#[derive(Debug, Args)]
#[command(next_help_heading = "Cluster (kubectl's flags)")]
struct ClusterArgs {
    /// Also send every case to the cluster of your kubeconfig as a dry run; a case fails when the
    /// server answers otherwise. Use a test cluster: an update's old Pod is created for real.
    #[arg(long)]
    server_dry_run: bool,
    /// kubectl's connection flags.
    #[command(flatten)]
    connection: ConnectionArgs,
}

/// One case's result.
#[derive(Debug)]
pub(crate) struct CaseResult {
    suite: String,
    file: String,
    name: String,
    /// How podmut's answer differs from the expectation.
    failures: Vec<String>,
    /// Why the case could not be judged.
    error: Option<String>,
    /// podmut's answer.
    answer: Option<judge::Answer>,
    /// The server's, with `--server-dry-run`.
    server: Option<server::Outcome>,
    seconds: f64,
}

impl CaseResult {
    /// Everything that makes the case fail, one line each.
    fn problems(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.error.iter().cloned().collect();
        lines.extend(self.failures.iter().cloned());
        match &self.server {
            Some(server::Outcome::Answered { disagreements, .. }) => {
                lines.extend(disagreements.iter().map(|d| format!("server dry run: {d}")));
            }
            Some(server::Outcome::Failed(e)) => lines.push(format!("server dry run: {e}")),
            Some(server::Outcome::Skipped(_)) | None => {}
        }
        lines
    }

    fn passed(&self) -> bool {
        self.problems().is_empty()
    }
}

pub(crate) fn run(a: &TestArgs) -> Result<u8, Failure> {
    let mut cases = Vec::new();
    for path in &a.paths {
        let named = !path.is_dir();
        for file in super::batch::files(std::slice::from_ref(path), a.recursive)? {
            cases.extend(suite::read(&file, named)?);
        }
    }
    if let Some(filter) = &a.run {
        cases.retain(|c| format!("{}/{}", c.suite, c.name).contains(filter.as_str()));
    }
    if cases.is_empty() {
        return Err(Failure::input("no test case to run"));
    }
    let runtime = a.policy.runtime()?;
    a.cluster
        .connection
        .only_with(a.cluster.server_dry_run, "--server-dry-run")?;
    let mut server = if a.cluster.server_dry_run {
        Some(server::Server::connect(&a.cluster.connection.connection())?)
    } else {
        None
    };
    if let Some(s) = &server {
        judge_as(&mut cases, s)?;
    }
    let level = a.validate.level();
    let results: Vec<CaseResult> = cases
        .iter()
        .map(|case| {
            let start = Instant::now();
            let (answer, error) = match judge::judge(&runtime, case, level) {
                Ok(answer) => (Some(answer), None),
                Err(e) => (None, Some(e)),
            };
            let failures = answer
                .as_ref()
                .map(|ans| expect::compare(&case.expect, ans))
                .unwrap_or_default();
            let server = match (&mut server, &answer) {
                (Some(s), Some(ans)) => Some(s.run(case, ans)),
                _ => None,
            };
            CaseResult {
                suite: case.suite.clone(),
                file: case.file.clone(),
                name: case.name.clone(),
                failures,
                error,
                answer,
                server,
                seconds: start.elapsed().as_secs_f64(),
            }
        })
        .collect();
    let (server_version, server_namespaces) = server
        .as_ref()
        .map(|s| (s.version.clone(), s.namespaces()))
        .unzip();
    if let Some(s) = server {
        for left in s.close() {
            eprintln!("Warning: --server-dry-run: could not clean up {left}");
        }
    }
    if let Some(path) = &a.junit {
        std::fs::write(path, junit::render(&results))
            .map_err(|e| Failure::input(format!("--junit {}: cannot write: {e}", path.display())))?;
    }
    let failed = results.iter().filter(|r| !r.passed()).count();
    match a.output {
        OutputFormat::Text => emit(&text(&results, server_version.as_deref())),
        OutputFormat::Json => emit(&to_json_string(&json_report(
            &results,
            server_version.as_deref(),
            server_namespaces.as_deref(),
        ))),
        OutputFormat::Yaml => emit(&to_yaml_string(&json_report(
            &results,
            server_version.as_deref(),
            server_namespaces.as_deref(),
        ))),
    }
    Ok(u8::from(failed > 0))
}

/// Cases that name no release are judged as the server's, as `check --live` judges.
fn judge_as(cases: &mut [suite::Case], s: &server::Server) -> Result<(), Failure> {
    let unnamed = cases
        .iter()
        .any(|c| !c.settings.contains_key("kubernetesVersion"));
    if unnamed {
        super::check::kubernetes_version(&s.minor).map_err(|why| {
            Failure::input(format!(
                "--server-dry-run: the cluster runs {}: {why}; name the release in the suites (kubernetesVersion)",
                s.version
            ))
        })?;
    }
    for c in cases {
        c.settings
            .entry("kubernetesVersion")
            .or_insert_with(|| Value::String(s.minor.clone()));
    }
    Ok(())
}

/// `PASS  suite/case`, the differences under a failing case, and the summary line.
fn text(results: &[CaseResult], server: Option<&str>) -> String {
    let mut out = String::new();
    if let Some(v) = server {
        out.push_str(&format!("server dry run: {v}\n"));
    }
    for r in results {
        let word = if r.passed() { "PASS" } else { "FAIL" };
        let note = match &r.server {
            Some(server::Outcome::Skipped(why)) => format!(" (server dry run skipped: {why})"),
            _ => String::new(),
        };
        out.push_str(&format!("{word}  {}/{}{note}\n", r.suite, r.name));
        for p in r.problems() {
            out.push_str(&format!("      {p}\n"));
        }
    }
    out.push_str(&summary_line(results));
    out.push('\n');
    out
}

/// `3 passed, 1 failed` (and how many cases the server did not see).
fn summary_line(results: &[CaseResult]) -> String {
    let failed = results.iter().filter(|r| !r.passed()).count();
    let mut line = format!("{} passed, {failed} failed", results.len() - failed);
    let skipped = results
        .iter()
        .filter(|r| matches!(r.server, Some(server::Outcome::Skipped(_))))
        .count();
    if skipped > 0 {
        line.push_str(&format!(" ({skipped} not sent to the server)"));
    }
    line
}

fn json_report(results: &[CaseResult], server: Option<&str>, namespaces: Option<&[String]>) -> Value {
    let failed = results.iter().filter(|r| !r.passed()).count();
    let mut report = json!({
        "cases": results.iter().map(case_json).collect::<Vec<_>>(),
        "summary": {"total": results.len(), "passed": results.len() - failed, "failed": failed},
    });
    if let Some(v) = server {
        report["server"] = json!({"gitVersion": v, "namespaces": namespaces});
    }
    report
}

fn case_json(r: &CaseResult) -> Value {
    let mut item = json!({
        "suite": r.suite,
        "file": r.file,
        "name": r.name,
        "result": if r.passed() { "pass" } else { "fail" },
        "problems": r.problems(),
        "seconds": r.seconds,
    });
    if let Some(a) = &r.answer {
        item["got"] = json!({
            "allowed": a.allowed,
            "message": a.message,
            "errors": a.errors.iter().map(|e| json!({"type": e.type_, "field": e.field, "origin": e.origin, "message": e.message})).collect::<Vec<_>>(),
            "warnings": a.warnings,
            "qosClass": a.qos_class,
            "vap": a.vap.as_ref().map(|v| json!({
                "allowed": v.allowed,
                "message": v.message,
                "decisions": v.decisions.iter().map(|d| json!({"policy": d.policy, "binding": d.binding, "action": d.action, "message": d.message})).collect::<Vec<_>>(),
            })),
        });
    }
    if let Some(e) = &r.error {
        item["error"] = json!(e);
    }
    if let Some(s) = &r.server {
        item["server"] = match s {
            server::Outcome::Answered {
                answer,
                disagreements,
            } => json!({
                "result": if disagreements.is_empty() { "agree" } else { "disagree" },
                "allowed": answer.allowed,
                "code": answer.code,
                "message": answer.message,
                "causes": answer.causes.iter().map(|(t, f)| json!({"type": t, "field": f})).collect::<Vec<_>>(),
            }),
            server::Outcome::Skipped(why) => json!({"result": "skipped", "reason": why}),
            server::Outcome::Failed(e) => json!({"result": "error", "reason": e}),
        };
    }
    item
}
