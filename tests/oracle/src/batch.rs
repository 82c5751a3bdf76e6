//! Generated changes in bulk: for one release and one request path, the base Pods are created
//! once (a dry run stores nothing, so every case reuses them), then each generated change is sent
//! with `dryRun=All` and given to podmut, several in flight at a time.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::OracleError;
use crate::answer::{self, Agreement, Answer};
use crate::api::{Api, PodPath};
use crate::control_plane::Config;
use crate::exchange;
use crate::fixtures::podmut_answer;
use crate::generate::{self, Rng};
use crate::pool::Pool;
use crate::releases::Release;

/// The Node every base Pod is bound to.
pub const NODE: &str = "oracle-node";

/// What a batch found.
#[derive(Clone, Debug, Default)]
pub struct BatchResult {
    /// Cases run.
    pub cases: u64,
    /// Per aspect, how many agreed.
    pub agreed: [u64; 4],
    /// How many the server allowed.
    pub server_allowed: u64,
    /// Cases that disagree on verdict, (type, field) or message, none of whose mutations is
    /// listed as open.
    pub failures_total: u64,
    /// The first of them: (case label, report).
    pub failures: Vec<(String, String)>,
    /// Cases that disagree with one of their mutations listed as open.
    pub open_total: u64,
    /// Per listed mutation, the disagreeing cases that had it (a listed mutation never seen
    /// disagreeing is stale).
    pub open_seen: BTreeMap<String, u64>,
    /// Disagreements counted by mutation id.
    pub by_mutation: BTreeMap<String, u64>,
    /// Wall time of the cases (setup excluded).
    pub elapsed: Duration,
}

impl BatchResult {
    fn add(&mut self, a: Agreement) {
        self.cases += 1;
        for (i, ok) in [a.verdict, a.type_field, a.message, a.warnings]
            .into_iter()
            .enumerate()
        {
            self.agreed[i] += u64::from(ok);
        }
    }

    /// Cases in full agreement.
    pub fn full(&self) -> u64 {
        self.cases - self.failures_total - self.open_total
    }

    /// Sort one disagreeing case: covered by an open mutation, or a failure.
    fn disagreed(&mut self, label: String, mutations: &[&str], report: String, open: &[String]) {
        for m in mutations {
            *self.by_mutation.entry((*m).to_owned()).or_default() += 1;
        }
        let listed: Vec<&str> = mutations
            .iter()
            .copied()
            .filter(|m| open.iter().any(|o| o == m))
            .collect();
        if !listed.is_empty() {
            self.open_total += 1;
            for m in listed {
                *self.open_seen.entry(m.to_owned()).or_default() += 1;
            }
            return;
        }
        self.failures_total += 1;
        let limit = std::env::var("PODMUT_ORACLE_REPORT")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(20);
        if self.failures.len() < limit {
            self.failures.push((label, report));
        }
    }
}

/// The podmut settings that describe a stock server of `release`: the newest release podmut
/// supports is described by podmut's default settings (no `kubernetesVersion`), which must answer
/// as that stock server does; the others name their release.
pub fn stock_settings(release: Release) -> Value {
    if release.minor == podmut_core::KubernetesVersion::NEWEST.minor() {
        json!({})
    } else {
        json!({"kubernetesVersion": release.minor_name(), "applyDefaults": true, "fieldValidation": "ignore"})
    }
}

/// Create the bases in `ns` (for every path but create); their stored objects by name.
async fn setup(api: &Api, ns: &str, path: PodPath, bases: &[Value]) -> Result<Vec<Value>, OracleError> {
    api.create_namespace(ns).await?;
    api.ensure_node(NODE).await?;
    if path == PodPath::Create {
        return Ok(bases.iter().map(generate::create_form).collect());
    }
    let mut stored = Vec::new();
    for b in bases {
        let b = exchange::in_namespace(b, ns);
        match exchange::create_old(api, ns, &b).await? {
            Ok(s) => stored.push(s),
            Err(refused) => {
                return Err(OracleError::Server(format!(
                    "base Pod {}: {}",
                    b.pointer("/metadata/name")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                    crate::fixtures::refusal(&refused)
                )));
            }
        }
    }
    Ok(stored)
}

/// One generated case sent and judged: (label, agreement, allowed by the server, report).
async fn one(
    api: Api,
    ns: String,
    path: PodPath,
    release: Release,
    seed: u64,
    index: u64,
    start: Arc<Vec<Value>>,
) -> Result<(String, Vec<&'static str>, Agreement, bool, String), OracleError> {
    let b = Rng::for_case(path, seed ^ 0xBA5E, index).below(start.len());
    let mut from = start[b].clone();
    if path == PodPath::Create {
        from = exchange::in_namespace(&from, &ns);
    }
    let g = generate::generate(path, seed, index, &from);
    let stored = (path != PodPath::Create).then(|| &start[b]);
    let name = stored
        .unwrap_or(&g.doc)
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let reply = api
        .dry_run(&ns, &name, path, &g.doc, "fieldValidation=Ignore")
        .await?;
    let settings = crate::fixtures::with_nodes(&stock_settings(release), stored);
    let podmut_json = podmut_answer(path, stored, &g.doc, &settings);
    let podmut = Answer::from_podmut(&podmut_json);
    let server = crate::fixtures::server_answer(&reply, &g.doc, stored, release);
    let agreement = answer::compare(&podmut, &server);
    let label = format!(
        "{} seed={seed} index={index} base={} mutations={:?}",
        path.name(),
        g.base,
        g.mutations
    );
    let report = if agreement.full() {
        String::new()
    } else {
        format!(
            "{}  sent: {}\n",
            answer::report(&podmut, &server, agreement),
            g.doc
        )
    };
    Ok((label, g.mutations, agreement, server.allowed, report))
}

/// Run `count` generated cases of `path` against a stock `release`, `parallel` at a time; a
/// disagreeing case with a mutation in `open` is counted apart ([`crate::known`]).
pub async fn run(
    pool: &Pool,
    release: Release,
    path: PodPath,
    seed: u64,
    count: u64,
    parallel: usize,
    open: &[String],
) -> Result<BatchResult, OracleError> {
    let server = pool
        .get(&Config::stock(release))
        .await
        .map_err(OracleError::Start)?;
    let bases = generate::bases().map_err(OracleError::Server)?;
    let ns = exchange::fresh_namespace();
    let start = Arc::new(setup(&server.api, &ns, path, &bases).await?);
    let mut result = BatchResult::default();
    let began = Instant::now();
    let mut set = tokio::task::JoinSet::new();
    let mut next = 0;
    while next < count || !set.is_empty() {
        while next < count && set.len() < parallel {
            set.spawn(one(
                server.api.clone(),
                ns.clone(),
                path,
                release,
                seed,
                next,
                start.clone(),
            ));
            next += 1;
        }
        let Some(done) = set.join_next().await else { break };
        let (label, mutations, agreement, allowed, report) =
            done.map_err(|e| OracleError::Client(format!("a case's task failed: {e}")))??;
        result.add(agreement);
        result.server_allowed += u64::from(allowed);
        if !agreement.full() {
            result.disagreed(label, &mutations, report, open);
        }
    }
    result.elapsed = began.elapsed();
    Ok(result)
}
