//! `podmut check --live [NAMESPACE/]POD`: judge a change to a Pod running in the user's cluster.
//!
//! The host reads the Pod (and the server's release) through the user's kubeconfig, as kubectl
//! does with the same flags; the component judges the change offline, exactly as `check --old`
//! would; `--server-dry-run` also sends the change to the cluster as a dry run and prints both
//! answers side by side.

use std::path::PathBuf;

use kube::core::params::{Patch, ValidationDirective};
use serde_json::{Value, json};

use super::check::{self, CheckArgs, Job, Outcome, PatchKind, Request};
use super::inputs::{ReadFile, Validate, display, print_warnings, read_file, read_text};
use super::live_args::LiveArgs;
use super::{Failure, OutputFormat, emit};
use crate::cluster::{Change, Cluster, ClusterError, DryRun};
use crate::output::{cause_type, subresource_api_name, to_json_string, to_yaml_string, verdict_text};
use crate::runtime::Runtime;
use crate::types::{DocumentKind, Verdict};

/// Exit code when podmut and the server's dry run disagree.
pub(crate) const DISAGREE: u8 = 4;

/// The Pod `--live` names.
#[derive(Clone, Debug)]
struct Target {
    namespace: String,
    name: String,
}

impl Target {
    fn display(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }
}

/// The release the change was judged as, and where it came from.
#[derive(Clone, Debug)]
struct Release {
    /// What the component was given (`1.37`, `preview`).
    judged_as: String,
    /// The server's `gitVersion`, when the release was read from it.
    server: Option<String>,
}

impl Release {
    fn source(&self) -> &'static str {
        if self.server.is_some() {
            "cluster"
        } else {
            "--kubernetes-version"
        }
    }

    fn describe(&self) -> String {
        match &self.server {
            Some(v) => format!("Kubernetes {} (the cluster's {v})", self.judged_as),
            None => format!("Kubernetes {} (--kubernetes-version)", self.judged_as),
        }
    }
}

impl LiveArgs {
    /// `NAMESPACE/POD`, or `POD` in `-n`'s namespace or the context's.
    fn target(&self, default_namespace: &str) -> Result<Target, Failure> {
        let given = self.live.as_deref().unwrap_or_default();
        let (ns, name) = match given.split_once('/') {
            Some((ns, name)) => (Some(ns), name),
            None => (None, given),
        };
        let bad = |why: &str| Failure::input(format!("--live {given:?}: {why}"));
        if name.is_empty() || name.contains('/') {
            return Err(bad("expected POD or NAMESPACE/POD"));
        }
        let namespace = match (ns, self.namespace.as_deref()) {
            (Some(a), Some(b)) if a != b => {
                return Err(bad(&format!("names namespace {a:?}, but --namespace is {b:?}")));
            }
            (Some(""), _) => return Err(bad("the namespace is empty")),
            (Some(a), _) | (None, Some(a)) => a.to_owned(),
            (None, None) => default_namespace.to_owned(),
        };
        Ok(Target {
            namespace,
            name: name.to_owned(),
        })
    }
}

fn cluster_failure(e: &ClusterError) -> Failure {
    Failure::input(format!("--live: {e}"))
}

/// What the cluster gave: the client, the Pod (JSON), its Node and the release to judge as.
struct Fetched {
    cluster: Cluster,
    target: Target,
    pod: String,
    /// The Pod's Node, when it is bound and the Node could be read (the admission plugins of 1.36
    /// and later judge a bound Pod's update by it).
    nodes: Vec<Value>,
    /// Why the Node is missing, when it could not be read.
    notes: Vec<String>,
    release: Release,
}

fn tokio() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::internal(format!("cannot start the network runtime: {e}")))
}

/// The bound Pod's Node, read from the cluster; or why it could not be (a warning: the Node
/// admission plugins are then not emulated).
async fn pod_node(cluster: &Cluster, pod: &str) -> (Vec<Value>, Vec<String>) {
    let node = serde_json::from_str::<Value>(pod)
        .ok()
        .and_then(|p| p.pointer("/spec/nodeName")?.as_str().map(str::to_owned))
        .filter(|n| !n.is_empty());
    let Some(node) = node else {
        return (Vec::new(), Vec::new());
    };
    let read = cluster
        .node(&node)
        .await
        .map_err(|e| e.to_string())
        .and_then(|text| serde_json::from_str::<Value>(&text).map_err(|e| e.to_string()));
    match read {
        Ok(v) => (vec![v], Vec::new()),
        Err(why) => (
            Vec::new(),
            vec![format!(
                "--live: cannot read the Pod's Node {node:?} ({why}): the Node admission plugins are not emulated; give it with --node"
            )],
        ),
    }
}

/// Connect, read the Pod (and, without `--node`, its Node), and find the release
/// (`--kubernetes-version`, else the server's).
async fn fetch(live: &LiveArgs, flag_release: Option<&str>, read_node: bool) -> Result<Fetched, Failure> {
    let cluster = Cluster::connect(&live.connection.connection())
        .await
        .map_err(|e| cluster_failure(&e))?;
    let target = live.target(&cluster.default_namespace)?;
    let pod = cluster
        .pod(&target.namespace, &target.name)
        .await
        .map_err(|e| cluster_failure(&e))?;
    let (nodes, notes) = if read_node {
        pod_node(&cluster, &pod).await
    } else {
        (Vec::new(), Vec::new())
    };
    let release = match flag_release {
        Some(v) => Release {
            judged_as: v.to_owned(),
            server: None,
        },
        None => {
            let v = cluster.version().await.map_err(|e| cluster_failure(&e))?;
            check::kubernetes_version(&v.minor).map_err(|why| {
                Failure::input(format!(
                    "--live: the cluster at {} runs {}: {why}; name the release to judge as with --kubernetes-version",
                    cluster.url, v.git_version
                ))
            })?;
            Release {
                judged_as: v.minor,
                server: Some(v.git_version),
            }
        }
    };
    Ok(Fetched {
        cluster,
        target,
        pod,
        nodes,
        notes,
        release,
    })
}

/// The change the user gave: the new Pod or a patch, as text and as the server will get it.
enum Given {
    New { path: PathBuf },
    Patch { text: String, name: String },
}

fn given(a: &CheckArgs) -> Result<Given, Failure> {
    if let Some(path) = a.new.first() {
        return Ok(Given::New { path: path.clone() });
    }
    let (text, name) = check::patch_text(a)?;
    Ok(Given::Patch { text, name })
}

/// `podmut check --live`.
pub(crate) fn run(a: &CheckArgs) -> Result<u8, Failure> {
    let given = given(a)?;
    let rt = tokio()?;
    let fetched = rt.block_on(fetch(
        &a.live,
        a.settings.kubernetes_version.as_deref(),
        a.nodes.is_empty(),
    ))?;
    let (settings, settings_source) = check::settings_document(
        a.settings.settings.as_ref(),
        a.settings.feature_gates.as_deref(),
        Some(&fetched.release.judged_as),
        a.no_defaults,
    )?;
    let nodes = if a.nodes.is_empty() {
        fetched.nodes.clone()
    } else {
        check::read_nodes(&a.nodes)?
    };
    let settings = if nodes.is_empty() {
        settings
    } else {
        check::with_node_values(&settings, nodes)?
    };
    let runtime = a.policy.runtime()?;
    let old_name = format!("pod {} (live)", fetched.target.display());
    let old = read_text(
        &runtime,
        &fetched.pod,
        &old_name,
        "old-pod",
        DocumentKind::Pod,
        a.validate,
    )?;
    let (job, new_name) = job(&runtime, a, &given, &old)?;
    let files = [
        ("old-pod", old_name),
        ("new-pod", new_name),
        ("settings", settings_source),
    ];
    let request = Request {
        sub: a.subresource,
        settings: &settings,
        files: &files,
        single: true,
    };
    let outcome = check::judge(&runtime, &job, &request, None)?;
    let Outcome::Judged {
        verdict,
        mut warnings,
    } = outcome
    else {
        return Err(outcome.into_failure());
    };
    warnings.extend(fetched.notes.iter().cloned());
    let server = if a.live.server_dry_run {
        Some(rt.block_on(dry_run(a, &fetched, &given, &job))?)
    } else {
        None
    };
    let report = Report {
        target: &fetched.target,
        url: &fetched.cluster.url,
        release: &fetched.release,
        verdict: &verdict,
        warnings: &warnings,
        server: server.as_ref(),
        new: a.show_new.then_some(job.new.as_deref()).flatten(),
    };
    report.print(a.output);
    Ok(report.exit_code())
}

/// The job: the live Pod and the new one (`--new`, or the patch applied to the live Pod by the
/// component), and the name the new Pod is reported under.
fn job(runtime: &Runtime, a: &CheckArgs, given: &Given, old: &ReadFile) -> Result<(Job, String), Failure> {
    match given {
        Given::New { path } => {
            let new = read_file(runtime, path, "--new", "new-pod", DocumentKind::Pod, a.validate)?;
            if new.docs.len() != 1 {
                return Err(Failure::input(format!(
                    "{}: --live judges one Pod; the file holds {}",
                    new.file,
                    new.docs.len()
                )));
            }
            let (Some(new_pod), Some(old_pod)) = (new.docs.first(), old.docs.first()) else {
                return Err(Failure::internal("the live Pod gave nothing to judge"));
            };
            let job = check::one(new_pod, Some((old_pod, old)), &new, None);
            Ok((job, display(path, "--new")))
        }
        Given::Patch { text, name } => {
            let mut jobs = check::patch_jobs(runtime, a, old, text, name)?;
            let job = jobs
                .pop()
                .ok_or_else(|| Failure::internal("the live Pod gave nothing to judge"))?;
            Ok((job, name.clone()))
        }
    }
}

/// `--validate` as the server's `fieldValidation`, as kubectl maps it.
fn field_validation(v: Validate) -> ValidationDirective {
    match v {
        Validate::Strict | Validate::True => ValidationDirective::Strict,
        Validate::Warn => ValidationDirective::Warn,
        Validate::Ignore | Validate::False => ValidationDirective::Ignore,
    }
}

/// The same change, sent to the cluster as a dry run: the patch as given (PATCH), or the new Pod
/// (PUT, as `kubectl replace` sends it).
async fn dry_run(a: &CheckArgs, fetched: &Fetched, given: &Given, job: &Job) -> Result<DryRun, Failure> {
    let at = (
        fetched.target.namespace.as_str(),
        fetched.target.name.as_str(),
        subresource_api_name(a.subresource),
    );
    let validation = field_validation(a.validate.validate);
    let answer = match given {
        Given::New { .. } => {
            let body = job
                .new
                .as_deref()
                .ok_or_else(|| Failure::internal("the new Pod was not read"))?;
            fetched
                .cluster
                .dry_run(at, Change::Replace(body), &validation)
                .await
        }
        Given::Patch { text, name } => {
            let patch = server_patch(a.patch_type, text, name)?;
            fetched
                .cluster
                .dry_run(at, Change::Patch(&patch), &validation)
                .await
        }
    };
    answer.map_err(|e| cluster_failure(&e))
}

/// The patch as kubectl sends it: JSON (a YAML patch converted), with the `--type` content type.
fn server_patch(kind: PatchKind, text: &str, name: &str) -> Result<Patch<Value>, Failure> {
    let value: Value = super::inputs::yaml_value(text, name)?;
    Ok(match kind {
        PatchKind::Strategic => Patch::Strategic(value),
        PatchKind::Merge => Patch::Merge(value),
        PatchKind::Json => Patch::Json(
            serde_json::from_value(value)
                .map_err(|e| Failure::input(format!("{name}: not a JSON patch: {e}")))?,
        ),
    })
}

/// Everything `check --live` prints.
struct Report<'a> {
    target: &'a Target,
    url: &'a str,
    release: &'a Release,
    verdict: &'a Verdict,
    warnings: &'a [String],
    server: Option<&'a DryRun>,
    new: Option<&'a str>,
}

/// How podmut's answer and the server's compare, aspect by aspect (as the oracle compares them).
#[derive(Clone, Copy, Debug)]
struct Agreement {
    /// Both allow, or both deny.
    verdict: bool,
    /// The same multiset of causes, (type, field).
    causes: bool,
    /// The same top-level message.
    message: bool,
}

impl Agreement {
    /// The answers agree: the same verdict, on the same causes.
    fn agree(self) -> bool {
        self.verdict && self.causes
    }
}

impl Report<'_> {
    /// How podmut and the server's dry run compare (none without `--server-dry-run`).
    fn agreement(&self) -> Option<Agreement> {
        let server = self.server?;
        let mut ours: Vec<(String, String)> = self
            .verdict
            .errors
            .iter()
            .map(|e| (cause_type(e.type_).to_owned(), e.field.clone()))
            .collect();
        let mut theirs = server.causes.clone();
        ours.sort();
        theirs.sort();
        let both_allow = server.allowed && self.verdict.allowed;
        Some(Agreement {
            verdict: server.allowed == self.verdict.allowed,
            causes: both_allow || ours == theirs,
            message: both_allow || server.message == self.verdict.message,
        })
    }

    fn exit_code(&self) -> u8 {
        match self.agreement() {
            Some(a) if !a.agree() => DISAGREE,
            _ => u8::from(!self.verdict.allowed),
        }
    }

    fn print(&self, format: OutputFormat) {
        match format {
            OutputFormat::Text => {
                emit(&self.text());
                print_warnings(&self.verdict.warnings);
                print_warnings(self.warnings);
            }
            OutputFormat::Json => emit(&to_json_string(&self.json())),
            OutputFormat::Yaml => emit(&to_yaml_string(&self.json())),
        }
    }

    fn text(&self) -> String {
        let mut out = format!(
            "pod {} on {}, judged as {}\n",
            self.target.display(),
            self.url,
            self.release.describe()
        );
        let Some(server) = self.server else {
            out.push_str(&verdict_text(self.verdict));
            if let Some(new) = self.new {
                out.push_str(&format!("# the patched Pod:\n{}", check::pod_yaml(new)));
            }
            return out;
        };
        out.push_str(&side("podmut:", &verdict_text(self.verdict)));
        out.push_str(&side("server dry run:", &server_text(server)));
        for w in &server.warnings {
            out.push_str(&format!("  server warning: {w}\n"));
        }
        out.push_str(
            self.agreement()
                .map_or("", |a| agreement_text(a, self.verdict.allowed)),
        );
        out
    }

    fn json(&self) -> Value {
        let mut v = check::verdict_value(self.verdict, self.warnings, self.new, self.new.is_some());
        let live = json!({
            "pod": self.target.display(),
            "namespace": self.target.namespace,
            "name": self.target.name,
            "server": self.url,
            "kubernetesVersion": self.release.judged_as,
            "kubernetesVersionSource": self.release.source(),
            "serverVersion": self.release.server,
        });
        if let Some(o) = v.as_object_mut() {
            o.insert("live".into(), live);
            if let Some(s) = self.server {
                o.insert(
                    "serverDryRun".into(),
                    json!({
                        "allowed": s.allowed,
                        "code": s.code,
                        "reason": s.reason,
                        "message": s.message,
                        "warnings": s.warnings,
                    }),
                );
                if let Some(a) = self.agreement() {
                    o.insert("agree".into(), json!(a.agree()));
                    o.insert(
                        "agreement".into(),
                        json!({"verdict": a.verdict, "causes": a.causes, "message": a.message}),
                    );
                }
            }
        }
        v
    }
}

/// The last line of the side-by-side text.
fn agreement_text(a: Agreement, podmut_allows: bool) -> &'static str {
    match (a.verdict, a.causes, a.message) {
        (false, ..) if podmut_allows => "DISAGREE: podmut allows the change, the server denies it\n",
        (false, ..) => "DISAGREE: podmut denies the change, the server allows it\n",
        (true, false, _) => "DISAGREE: both deny, on different causes (type, field)\n",
        (true, true, true) => "agree: the same verdict, causes and message\n",
        (true, true, false) => "agree: the same verdict and causes (type, field); the messages differ\n",
    }
}

/// `label` and a (possibly multi-line) answer: the first line beside the label, the rest under it.
fn side(label: &str, answer: &str) -> String {
    let mut out = String::new();
    for (i, line) in answer.lines().enumerate() {
        let head = if i == 0 { label } else { "" };
        out.push_str(&format!("{head:<16}{line}\n"));
    }
    out
}

/// The server's answer in `check`'s words: `allowed`, or `denied: <message>` with its status.
fn server_text(s: &DryRun) -> String {
    if s.allowed {
        "allowed\n".to_owned()
    } else {
        format!("denied: {}  (HTTP {} {})\n", s.message, s.code, s.reason)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(live: &str, namespace: Option<&str>) -> LiveArgs {
        LiveArgs {
            live: Some(live.to_owned()),
            server_dry_run: false,
            namespace: namespace.map(str::to_owned),
            connection: super::super::connection_args::ConnectionArgs::default(),
        }
    }

    #[test]
    fn the_namespace_comes_from_the_name_the_flag_or_the_context() {
        let t = |live, ns| args(live, ns).target("ctx").map(|t| t.display());
        assert_eq!(t("shop/web", None).ok().as_deref(), Some("shop/web"));
        assert_eq!(t("web", Some("shop")).ok().as_deref(), Some("shop/web"));
        assert_eq!(t("web", None).ok().as_deref(), Some("ctx/web"));
        assert_eq!(t("shop/web", Some("shop")).ok().as_deref(), Some("shop/web"));
        let clash = t("shop/web", Some("other")).err().map(|f| f.message().to_owned());
        assert_eq!(
            clash.as_deref(),
            Some(r#"--live "shop/web": names namespace "shop", but --namespace is "other""#)
        );
        assert!(t("a/b/c", None).is_err());
        assert!(t("shop/", None).is_err());
    }

    #[test]
    fn a_multi_line_answer_stays_beside_its_label() {
        assert_eq!(
            side("podmut:", "denied: x\n  a: b  [o]\n"),
            "podmut:         denied: x\n                  a: b  [o]\n"
        );
    }
}
