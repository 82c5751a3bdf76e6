//! The oracle suite: podmut against real API servers of every pinned release.
//!
//! `cargo xtask oracle test` (and CI) builds the control planes first and sets
//! `PODMUT_REQUIRE_ORACLE=1`; under a plain `cargo test` without them every case is reported as
//! ignored, naming the command that builds them ([`podmut_oracle::prerequisite`]).
//!
//! - `fixture/<area>/<case>`: each conformance `check` fixture, replayed ([`podmut_oracle::fixtures`]);
//! - `fixture/qos/<case>`: each `qos` fixture's Pod created (dry run): the server's `status.qosClass`
//!   against podmut's class;
//! - `generated/<release>/<path>`: `PODMUT_ORACLE_CASES` (default 1,000) generated changes per
//!   request path and claimed release, seed `PODMUT_ORACLE_SEED` (default 1)
//!   ([`podmut_oracle::batch`]);
//! - `known-differences/...`: the known-differences file covers exactly what differs.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use libtest_mimic::{Arguments, Failed, Trial};
use podmut_oracle::answer::Agreement;
use podmut_oracle::fixtures::{self, Outcome};
use podmut_oracle::known::Known;
use podmut_oracle::plan::{self, Plan};
use podmut_oracle::pool::Pool;
use podmut_oracle::prerequisite::Prerequisites;
use podmut_oracle::{Pins, control_plane, runtime};
use podmut_oracle::{PodPath, Release, batch};

/// The areas whose fixtures are `check` cases on a request path.
const CHECK_AREAS: [&str; 11] = [
    "create",
    "update",
    "spec",
    "ephemeral",
    "resize",
    "status",
    "versions",
    "options",
    "strict",
    "dynamic",
    "input",
];

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(Pool::default)
}

/// Agreement counts per group (`fixtures v1.37.2 update`).
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    seconds: f64,
    cases: u32,
    verdict: u32,
    type_field: u32,
    message: u32,
    warnings: u32,
}

impl Tally {
    fn add(&mut self, a: Agreement) {
        self.cases += 1;
        self.verdict += u32::from(a.verdict);
        self.type_field += u32::from(a.type_field);
        self.message += u32::from(a.message);
        self.warnings += u32::from(a.warnings);
    }
}

fn tallies() -> &'static Mutex<BTreeMap<String, Tally>> {
    static T: OnceLock<Mutex<BTreeMap<String, Tally>>> = OnceLock::new();
    T.get_or_init(Mutex::default)
}

fn record(group: String, a: Agreement) {
    tallies()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(group)
        .or_default()
        .add(a);
}

fn print_tallies() {
    let t = tallies().lock().unwrap_or_else(PoisonError::into_inner);
    if t.is_empty() {
        return;
    }
    let pct = |n: u32, d: u32| {
        if d == 0 {
            100.0
        } else {
            f64::from(n) * 100.0 / f64::from(d)
        }
    };
    if std::env::var_os("PODMUT_ORACLE_MARKDOWN").is_some() {
        println!(
            "\n| group | cases | verdict | (type, field) | message | warnings | cases/s |\n|---|---|---|---|---|---|---|"
        );
        for (group, x) in t.iter() {
            let rate = if x.seconds > 0.0 {
                format!("{:.0}", f64::from(x.cases) / x.seconds)
            } else {
                "-".into()
            };
            println!(
                "| {group} | {} | {:.3} % | {:.3} % | {:.3} % | {:.3} % | {rate} |",
                x.cases,
                pct(x.verdict, x.cases),
                pct(x.type_field, x.cases),
                pct(x.message, x.cases),
                pct(x.warnings, x.cases)
            );
        }
        return;
    }
    println!("\nagreement with the API server (verdict / (type, field) / message / warnings):");
    for (group, x) in t.iter() {
        println!(
            "  {group:<40} {:>6} cases  {:>6.2}%  {:>6.2}%  {:>6.2}%  {:>6.2}%",
            x.cases,
            pct(x.verdict, x.cases),
            pct(x.type_field, x.cases),
            pct(x.message, x.cases),
            pct(x.warnings, x.cases)
        );
    }
}

fn main() -> std::process::ExitCode {
    let args = Arguments::from_args();
    let trials = match trials() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("oracle: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let conclusion = libtest_mimic::run(&args, trials);
    pool().shutdown();
    print_tallies();
    conclusion.exit_code()
}

/// Why the suite cannot run here, when it cannot: the first missing binary of a release it judges.
fn missing_binaries(claimed: &[Release]) -> Option<String> {
    claimed
        .iter()
        .find_map(|r| control_plane::binaries(*r).err())
        .map(|e| e.to_string())
}

fn trials() -> Result<Vec<Trial>, String> {
    let pins = Pins::load().map_err(|e| e.to_string())?;
    let known = Arc::new(Known::load().map_err(|e| e.to_string())?);
    let open = Arc::new(Known::load_open().map_err(|e| e.to_string())?);
    let cases = podmut_fixtures::load_cases(&podmut_fixtures::cases_dir()).map_err(|e| e.to_string())?;
    let claimed = fixtures::claimed(&pins);
    let needs = Prerequisites::new(missing_binaries(&claimed));
    let Some(default) = claimed.iter().copied().max() else {
        return Err(format!(
            "podmut claims none of the pinned releases ({:?})",
            pins.kubernetes
        ));
    };
    let mut trials = Vec::new();
    let mut used_skips = Vec::new();
    let cases_qos: Vec<_> = cases.iter().filter(|c| c.area == "qos").cloned().collect();
    for c in cases
        .into_iter()
        .filter(|c| CHECK_AREAS.contains(&c.area.as_str()))
    {
        // A fixture that names no release is replayed on every claimed one; the newest keeps the
        // plain name, the others are `fixture/<release>/<name>`.
        let pinned = c
            .case
            .settings
            .as_ref()
            .is_some_and(|s| s.get("kubernetesVersion").is_some());
        let releases: Vec<Release> = if pinned { vec![default] } else { claimed.clone() };
        for release in releases {
            let name = if release == default {
                format!("fixture/{}", c.name)
            } else {
                format!("fixture/{release}/{}", c.name)
            };
            let planned = plan::plan(
                &c.area,
                &c.case.subresource,
                c.case.settings.as_ref(),
                c.case.old.as_ref(),
                c.case.new.as_ref(),
                &pins,
                release,
            );
            let planned = match planned {
                Ok(p) => p,
                Err(skip) if release == default => {
                    used_skips.push(skip.id().to_owned());
                    let trial = match known.for_skip(skip.id()) {
                        Some(entry) => Trial::test(name, || Ok(()))
                            .with_kind(format!("known: {}", entry.id))
                            .with_ignored_flag(true),
                        None => {
                            let why =
                                format!("not replayable ({}) and not in known-differences.yaml", skip.id());
                            Trial::test(name, move || Err(Failed::from(why)))
                        }
                    };
                    trials.push(trial);
                    continue;
                }
                // Reported once, under the newest release.
                Err(_) => continue,
            };
            let listed = known
                .for_case(&c.name)
                .or_else(|| open.for_case(&c.name))
                .map(|e| e.id.clone());
            let case_name = c.name.clone();
            let kind = planned.config.release.to_string();
            trials.push(needs.trial(name, &kind, move || {
                run_fixture(&case_name, &planned, listed.as_deref())
            }));
        }
    }
    for c in cases_qos {
        let name = format!("fixture/{}", c.name);
        let trial = match c.case.pod.clone() {
            Some(pod) if pod.get("kind").and_then(serde_json::Value::as_str) == Some("Pod") => {
                let config = podmut_oracle::Config::stock(default);
                let listed = known.for_case(&c.name).map(|e| e.id.clone());
                needs.trial(name, "", move || run_qos(&config, &pod, listed.as_deref()))
            }
            _ => match known.for_skip("podmut-input") {
                Some(entry) => Trial::test(name, || Ok(()))
                    .with_kind(format!("known: {}", entry.id))
                    .with_ignored_flag(true),
                None => Trial::test(name, || {
                    Err(Failed::from(
                        "not a Pod, and no podmut-input entry in known-differences.yaml",
                    ))
                }),
            },
        };
        trials.push(trial);
    }
    for release in claimed {
        for path in PodPath::ALL {
            let name = format!("generated/{release}/{}", path.name());
            let open = open.mutations_on(path.name());
            trials.push(needs.trial(name, "", move || run_generated(release, path, &open)));
        }
    }
    let stale: Vec<String> = known
        .entries
        .iter()
        // `vap-` skips are the vap suite's (tests/vap.rs), which checks them itself.
        .filter(|e| {
            e.skip
                .as_ref()
                .is_some_and(|s| !s.starts_with("vap-") && !used_skips.contains(s))
        })
        .map(|e| e.id.clone())
        .collect();
    trials.push(Trial::test("known-differences/every-skip-is-used", move || {
        if stale.is_empty() {
            Ok(())
        } else {
            Err(Failed::from(format!(
                "known-differences.yaml lists skips no fixture has: {}; delete them",
                stale.join(", ")
            )))
        }
    }));
    Ok(trials)
}

fn run_qos(
    config: &podmut_oracle::Config,
    pod: &serde_json::Value,
    listed: Option<&str>,
) -> Result<(), Failed> {
    let got = runtime()
        .block_on(fixtures::replay_qos(pool(), config, pod))
        .map_err(|e| Failed::from(e.to_string()))?;
    let (ours, theirs) = match (got, listed) {
        (Ok(answers), _) => answers,
        (Err(_), Some(_)) => return Ok(()),
        (Err(why), None) => {
            return Err(Failed::from(format!(
                "the server refuses the Pod, so it computes no QoS class: {why}"
            )));
        }
    };
    let agree = ours == theirs;
    record(
        format!("fixtures {} qos", config.release),
        Agreement {
            verdict: agree,
            type_field: agree,
            message: agree,
            warnings: true,
        },
    );
    match (agree, listed) {
        (true, None) | (false, Some(_)) => Ok(()),
        (true, Some(id)) => Err(Failed::from(format!(
            "listed in known-differences.yaml ({id}) but agrees now: delete it"
        ))),
        (false, None) => Err(Failed::from(format!("QoS class: podmut {ours}, server {theirs}"))),
    }
}

fn run_fixture(name: &str, plan: &Plan, listed: Option<&str>) -> Result<(), Failed> {
    let outcome = runtime()
        .block_on(fixtures::replay(pool(), plan))
        .map_err(|e| Failed::from(e.to_string()))?;
    let area = name.split('/').next().unwrap_or_default();
    match outcome {
        Outcome::OldRefused(why) => Err(Failed::from(format!(
            "the server refuses the fixture's old Pod, so the change cannot be judged ({}): {why}",
            plan.config.describe()
        ))),
        Outcome::SettingsRefused { server, podmut } => {
            judged(Outcome::settings_agree(&server, &podmut), listed, || {
                format!(
                    "{name} ({}): kube-apiserver refuses these settings, podmut does not\n  server: {server}\n  podmut: {podmut}",
                    plan.config.describe()
                )
            })
        }
        Outcome::Compared { agreement, report } => {
            record(format!("fixtures {} {area}", plan.config.release), agreement);
            judged(agreement.full(), listed, || {
                format!("{name} ({}):\n{report}", plan.config.describe())
            })
        }
    }
}

/// A fixture's result: agreeing passes unless it is listed (the entry is stale then); a listed
/// disagreement passes; any other disagreement fails with `report`.
fn judged(agrees: bool, listed: Option<&str>, report: impl FnOnce() -> String) -> Result<(), Failed> {
    match (agrees, listed) {
        (true, None) | (false, Some(_)) => Ok(()),
        (true, Some(id)) => Err(Failed::from(format!(
            "listed ({id}) but agrees with the server now: delete it from the entry"
        ))),
        (false, None) => Err(Failed::from(report())),
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn run_generated(release: Release, path: PodPath, open: &[String]) -> Result<(), Failed> {
    let seed = env_u64("PODMUT_ORACLE_SEED", 1);
    let count = env_u64("PODMUT_ORACLE_CASES", 1000);
    let result = runtime()
        .block_on(batch::run(pool(), release, path, seed, count, 8, open))
        .map_err(|e| Failed::from(e.to_string()))?;
    let t = Tally {
        seconds: result.elapsed.as_secs_f64(),
        cases: u32::try_from(result.cases).unwrap_or(u32::MAX),
        verdict: u32::try_from(result.agreed[0]).unwrap_or(0),
        type_field: u32::try_from(result.agreed[1]).unwrap_or(0),
        message: u32::try_from(result.agreed[2]).unwrap_or(0),
        warnings: u32::try_from(result.agreed[3]).unwrap_or(0),
    };
    tallies()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(format!("generated {release} {}", path.name()), t);
    let stale: Vec<&String> = open
        .iter()
        .filter(|m| !result.open_seen.contains_key(*m))
        .collect();
    if result.failures_total == 0 && (stale.is_empty() || count < 1000) {
        if result.open_total > 0 {
            println!(
                "generated/{release}/{}: {} of {} cases disagree through mutations listed in open-disagreements.yaml",
                path.name(),
                result.open_total,
                result.cases
            );
        }
        return Ok(());
    }
    if result.failures_total == 0 {
        return Err(Failed::from(format!(
            "open-disagreements.yaml lists mutations of {} that no longer disagree in {} cases: {stale:?}; delete them",
            path.name(),
            result.cases
        )));
    }
    let mut report = format!(
        "{} of {} generated cases disagree with the server; by mutation: {:?}\n",
        result.failures_total, result.cases, result.by_mutation
    );
    for (label, r) in &result.failures {
        report.push_str(&format!("\n{label}\n{r}"));
    }
    Err(Failed::from(report))
}
