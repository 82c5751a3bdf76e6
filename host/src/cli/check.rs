//! `podmut check`: validate Pod creates or updates on a request path, given as Pod files (one or
//! several Pods each) or as an old Pod and a patch.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde_json::{Map, Value, json};

mod many;

use super::inputs::{ReadFile, ValidateArgs, display, object_name, print_warnings, read_file, read_text};
use super::live_args::LiveArgs;
use super::{Failure, OutputFormat, PolicyArgs, emit, read_input};
use crate::error::CallError;
use crate::output::{parse_subresource, to_json_string, to_yaml_string, verdict_json, verdict_text};
use crate::runtime::Runtime;
use crate::types::{Document, DocumentKind, PatchType, RolloutReport, Subresource, Verdict};

/// Arguments of `podmut check`.
#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// The Pods before the change (YAML or JSON, one or several; `-` for stdin; repeatable, or a
    /// directory). Without it, creates are validated.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub(super) old: Vec<PathBuf>,
    /// The Pods after the change (YAML or JSON: one Pod, a multi-document stream, a List; `-` for
    /// stdin; repeatable, or a directory of .yaml/.yml/.json files). Several Pods are paired with
    /// --old's by namespace/name.
    #[arg(long, value_name = "FILE", num_args = 1.., required_unless_present_any = ["patch", "patch_file"])]
    pub(super) new: Vec<PathBuf>,
    /// With a directory in --old or --new, also read its subdirectories (as kubectl -R).
    #[arg(short = 'R', long)]
    pub(super) recursive: bool,
    /// Instead of --new: a patch applied to --old (or --live), as `kubectl patch -p` takes it (JSON
    /// or YAML); `@FILE` reads it from a file.
    #[arg(long, value_name = "PATCH", conflicts_with_all = ["new", "patch_file"])]
    pub(super) patch: Option<String>,
    /// Instead of --new: a file holding the patch (`-` for stdin).
    #[arg(long, value_name = "FILE", conflicts_with = "new")]
    pub(super) patch_file: Option<PathBuf>,
    /// The patch type, as `kubectl patch --type` names it.
    #[arg(long = "type", value_enum, default_value_t, value_name = "TYPE")]
    pub(super) patch_type: PatchKind,
    /// With --patch: also print the patched Pod (`newPod` in -o json|yaml).
    #[arg(long)]
    pub(super) show_new: bool,
    /// The request path: none (the main resource), dynamic, ephemeralcontainers, resize, status.
    #[arg(long, default_value = "none", value_parser = parse_subresource, value_name = "SUBRESOURCE")]
    pub(super) subresource: Subresource,
    #[command(flatten)]
    pub(super) settings: SettingsArgs,
    /// The cluster's Nodes (YAML or JSON: a Node, a NodeList or a multi-document stream;
    /// repeatable): from 1.36 the API server's NodeDeclaredFeatureValidator and PodResizeValidator
    /// judge an update of a bound Pod by its Node (settings key `nodes`).
    #[arg(long = "node", value_name = "FILE")]
    pub(super) nodes: Vec<PathBuf>,
    /// Validate exactly what is given: skip Kubernetes defaulting.
    #[arg(long)]
    pub(super) no_defaults: bool,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t)]
    pub(super) output: OutputFormat,
    #[command(flatten)]
    pub(super) validate: ValidateArgs,
    #[command(flatten)]
    pub(super) policy: PolicyArgs,
    #[command(flatten)]
    pub(super) live: LiveArgs,
}

/// The flags every command that judges a Pod change turns into its settings document.
#[derive(Debug, Args)]
pub(crate) struct SettingsArgs {
    /// A settings profile (YAML or JSON; see policies/default.yaml, policies/strict.yaml).
    #[arg(long, value_name = "FILE")]
    pub(crate) settings: Option<PathBuf>,
    /// Feature gates, kube-apiserver syntax: Name=bool,Name=bool.
    #[arg(long, value_name = "NAME=BOOL,...")]
    pub(crate) feature_gates: Option<String>,
    /// The cluster's Kubernetes release (1.35, 1.36, 1.37, or preview; unset: 1.37): its feature-gate defaults and
    /// version-dependent rules; --feature-gates and --settings still override.
    #[arg(long, value_name = "VERSION", value_parser = super::check::kubernetes_version)]
    pub(crate) kubernetes_version: Option<String>,
}

impl SettingsArgs {
    /// The settings document and the name errors in it are reported under.
    pub(crate) fn document(&self, no_defaults: bool) -> Result<(String, String), Failure> {
        settings_document(
            self.settings.as_ref(),
            self.feature_gates.as_deref(),
            self.kubernetes_version.as_deref(),
            no_defaults,
        )
    }
}

/// `--type`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum PatchKind {
    /// Strategic merge patch (the Pod's merge keys and `$patch` directives).
    #[default]
    Strategic,
    /// JSON merge patch (RFC 7386).
    Merge,
    /// JSON patch (RFC 6902).
    Json,
}

impl PatchKind {
    fn wit(self) -> PatchType {
        match self {
            PatchKind::Strategic => PatchType::Strategic,
            PatchKind::Merge => PatchType::Merge,
            PatchKind::Json => PatchType::Json,
        }
    }
}

/// `--kubernetes-version`: `preview` or a release the component supports, written `1.37`,
/// `v1.37` or `1.37.2` (clap names the flag in the error, with the supported releases).
pub(crate) fn kubernetes_version(v: &str) -> Result<String, String> {
    let t = v.trim();
    let supported = crate::version::KUBERNETES_SUPPORTED;
    let minor = t
        .strip_prefix('v')
        .unwrap_or(t)
        .splitn(3, '.')
        .take(2)
        .collect::<Vec<_>>()
        .join(".");
    let patch_ok = t
        .strip_prefix('v')
        .unwrap_or(t)
        .splitn(3, '.')
        .nth(2)
        .is_none_or(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    if t == "preview" || (supported.contains(&minor.as_str()) && patch_ok) {
        Ok(t.to_owned())
    } else {
        Err(format!(
            "Kubernetes {t:?} is not supported; supported: {}, or preview ({} with the DynamicContainers and MutableContainerProbes gates on)",
            supported.join(", "),
            crate::version::KUBERNETES
        ))
    }
}

/// Build the settings document the component receives from a profile file and flags.
pub(crate) fn settings_document(
    file: Option<&PathBuf>,
    feature_gates: Option<&str>,
    kubernetes_version: Option<&str>,
    no_defaults: bool,
) -> Result<(String, String), Failure> {
    let (mut doc, source) = match file {
        Some(path) => {
            let text = read_input(path, "--settings")?;
            let v: Value = super::inputs::yaml_value(&text, &path.display().to_string())?;
            (v, path.display().to_string())
        }
        None => (Value::Object(Map::new()), "--feature-gates".to_owned()),
    };
    if doc.is_null() {
        doc = Value::Object(Map::new());
    }
    let Value::Object(obj) = &mut doc else {
        return Err(Failure::input(format!(
            "{source}: a settings profile is a mapping"
        )));
    };
    if let Some(spec) = feature_gates {
        let gates = obj
            .entry("featureGates")
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(gates) = gates else {
            return Err(Failure::input(format!(
                "{source}: featureGates must be a mapping"
            )));
        };
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| Failure::input(format!("--feature-gates: missing =true/false in {item:?}")))?;
            let on = match value.trim() {
                "true" | "True" | "1" => true,
                "false" | "False" | "0" => false,
                other => {
                    return Err(Failure::input(format!(
                        "--feature-gates: {name}={other} is not true or false"
                    )));
                }
            };
            gates.insert(name.trim().to_owned(), Value::Bool(on));
        }
    }
    if no_defaults {
        obj.insert("applyDefaults".into(), Value::Bool(false));
    }
    if let Some(v) = kubernetes_version {
        // The component checks it (and lists the supported releases when it is not one).
        obj.insert("kubernetesVersion".into(), Value::String(v.to_owned()));
    }
    Ok((doc.to_string(), source))
}

/// Add the Nodes of `--node` files to a settings document (`nodes`).
fn with_nodes(settings: String, files: &[PathBuf]) -> Result<String, Failure> {
    if files.is_empty() {
        return Ok(settings);
    }
    with_node_values(&settings, read_nodes(files)?)
}

/// The Nodes of `--node` files.
pub(super) fn read_nodes(files: &[PathBuf]) -> Result<Vec<Value>, Failure> {
    let mut nodes = Vec::new();
    for path in files {
        let text = read_input(path, "--node")?;
        for v in super::inputs::yaml_values(&text, &path.display().to_string())? {
            match v.get("kind").and_then(Value::as_str) {
                Some("Node") => nodes.push(v),
                Some("NodeList" | "List") => nodes.extend(
                    v.get("items")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default(),
                ),
                None if v.is_null() => {}
                other => {
                    return Err(Failure::input(format!(
                        "{}: expected a Node or a NodeList, found kind {}",
                        path.display(),
                        other.unwrap_or("(none)")
                    )));
                }
            }
        }
    }
    Ok(nodes)
}

/// Add Nodes to a settings document (`nodes`).
pub(super) fn with_node_values(settings: &str, nodes: Vec<Value>) -> Result<String, Failure> {
    let mut doc: Value = serde_json::from_str(settings)
        .map_err(|e| Failure::internal(format!("the settings document is not JSON: {e}")))?;
    if let Value::Object(obj) = &mut doc {
        obj.insert("nodes".into(), Value::Array(nodes));
    }
    Ok(doc.to_string())
}

/// One Pod change to judge, or why it cannot be.
#[derive(Debug)]
pub(super) struct Job {
    /// The Pod it is about (`namespace/name`).
    pod: Document,
    old: Option<String>,
    /// The new Pod (JSON), when there is one to judge.
    pub(super) new: Option<String>,
    /// Field-validation warnings of its inputs.
    warnings: Vec<String>,
    /// Why it is not judged (an unreadable object, no partner).
    error: Option<String>,
}

/// The outcome of one job.
#[derive(Debug)]
pub(super) enum Outcome {
    /// The component's verdict, and the inputs' field-validation warnings.
    Judged { verdict: Verdict, warnings: Vec<String> },
    /// Why it was not judged.
    Failed(String),
}

impl Outcome {
    /// A job that was not judged, as the command's error (exit 2).
    pub(super) fn into_failure(self) -> Failure {
        match self {
            Outcome::Failed(e) => Failure::input(e),
            Outcome::Judged { .. } => Failure::internal("a judged change is not a failure"),
        }
    }

    fn exit_code(&self) -> u8 {
        match self {
            Outcome::Judged { verdict, .. } if verdict.allowed => 0,
            Outcome::Judged { .. } => 1,
            Outcome::Failed(_) => 2,
        }
    }
}

pub(crate) fn run(a: &CheckArgs) -> Result<u8, Failure> {
    a.live.connection.only_with(false, "--live")?;
    let (settings, settings_source) = a.settings.document(a.no_defaults)?;
    let settings = with_nodes(settings, &a.nodes)?;
    let runtime = a.policy.runtime()?;
    if many::is_many(a) {
        return many::run(a, &runtime, &settings, &settings_source);
    }
    let mut pair_texts = None;
    let (jobs, single, mut judged) = match (a.new.first(), a.old.first()) {
        (Some(path), _) => {
            let ReadPair {
                old,
                new,
                verdict,
                texts,
            } = read_pair(&runtime, a, path, &settings)?;
            pair_texts = texts;
            let single = new.docs.len() == 1 && old.as_ref().is_none_or(|o| o.docs.len() == 1);
            (pair(old, &new, single), single, verdict)
        }
        (None, Some(path)) => {
            let old = read_file(&runtime, path, "--old", "old-pod", DocumentKind::Pod, a.validate)?;
            let single = old.docs.len() == 1;
            let (patch, patch_name) = patch_text(a)?;
            (patch_jobs(&runtime, a, &old, &patch, &patch_name)?, single, None)
        }
        (None, None) => {
            return Err(Failure::input(
                "check needs --new FILE, or --old FILE (or --live POD) with --patch",
            ));
        }
    };
    let files = [
        (
            "old-pod",
            a.old
                .first()
                .map(|p| display(p, "--old"))
                .unwrap_or_else(|| "--old".into()),
        ),
        (
            "new-pod",
            a.new
                .first()
                .map(|p| display(p, "--new"))
                .unwrap_or_else(|| "--new".into()),
        ),
        ("settings", settings_source),
    ];
    let mut results = Vec::with_capacity(jobs.len());
    let request = Request {
        sub: a.subresource,
        settings: &settings,
        files: &files,
        single,
    };
    for job in jobs {
        let outcome = judge(&runtime, &job, &request, judged.take())?;
        results.push((job, outcome));
    }
    let show_new = a.show_new && (a.patch.is_some() || a.patch_file.is_some());
    if single && let Some((job, outcome)) = results.pop() {
        let rollout = match (&outcome, &pair_texts) {
            (Outcome::Judged { verdict, .. }, Some((old, new))) if verdict.allowed => {
                super::rollout::report(&runtime, old, new, &settings, &files)?
            }
            _ => None,
        };
        return single_output(a.output, &job, outcome, show_new, rollout.as_ref());
    }
    items_output(a.output, &results, show_new, None);
    Ok(results.iter().map(|(_, o)| o.exit_code()).max().unwrap_or(0))
}

/// --old (when given) and --new read as Pods. Through `documents.read-and-check` where the
/// component has it: one call that also judges the pair when each file holds one Pod (the
/// verdict, or the input error of judging it, is returned); else `inputs.read-documents` of
/// each. Either way the same documents, errors and verdict.
fn read_pair(runtime: &Runtime, a: &CheckArgs, new_path: &Path, settings: &str) -> Result<ReadPair, Failure> {
    let old_text = a.old.first().map(|p| read_input(p, "--old")).transpose()?;
    let old_file = a.old.first().map(|p| display(p, "--old"));
    let new_file = display(new_path, "--new");
    let read_old =
        |text: &str, file: &str| read_text(runtime, text, file, "old-pod", DocumentKind::Pod, a.validate);
    let new_text = match read_input(new_path, "--new") {
        Ok(text) => text,
        Err(unreadable) => {
            // --old is read before --new: a problem in it is reported first.
            if let (Some(text), Some(file)) = (&old_text, &old_file) {
                read_old(text, file)?;
            }
            return Err(unreadable);
        }
    };
    let level = a.validate.level();
    let Some(checked) =
        runtime.read_and_check(old_text.as_deref(), &new_text, level, a.subresource, settings)
    else {
        // A component without `documents` (given with --policy): one call per file, then `check`.
        let old = match (&old_text, old_file) {
            (Some(text), Some(file)) => Some(read_old(text, &file)?),
            _ => None,
        };
        let new = read_text(
            runtime,
            &new_text,
            &new_file,
            "new-pod",
            DocumentKind::Pod,
            a.validate,
        )?;
        return Ok(ReadPair {
            texts: old_text.map(|o| (o, new_text)),
            old,
            new,
            verdict: None,
        });
    };
    let inputs = [
        ("old-pod", old_file.as_deref().unwrap_or_default()),
        ("new-pod", new_file.as_str()),
    ];
    let checked = checked.map_err(|e| Failure::from_call(e, &inputs))?;
    Ok(ReadPair {
        old: old_file.map(|file| ReadFile {
            file,
            docs: checked.old,
        }),
        new: ReadFile {
            file: new_file,
            docs: checked.new,
        },
        verdict: checked.verdict.map(|v| v.map_err(CallError::Input)),
        texts: old_text.map(|o| (o, new_text)),
    })
}

/// --old and --new as read, and the verdict on the pair when the component gave it.
struct ReadPair {
    old: Option<ReadFile>,
    new: ReadFile,
    /// `check` of the one Pod of each file (`documents.read-and-check` judged them).
    verdict: Option<Result<Verdict, CallError>>,
    /// The texts of --old and --new, when --old was given (for the rollout report).
    texts: Option<(String, String)>,
}

/// What every job of one `podmut check` is judged under.
pub(super) struct Request<'a> {
    /// The request path.
    pub(super) sub: Subresource,
    /// The settings document.
    pub(super) settings: &'a str,
    /// The component's input names and the files they name in messages.
    pub(super) files: &'a [(&'a str, String)],
    /// One Pod pair: an input error is the command's.
    pub(super) single: bool,
}

/// Judge one job (`judged`: its verdict from `read_pair`, when it gave one). With a single Pod
/// pair an input error is the command's error (exit 2, the message naming the file), as it always
/// was; among several it stays with its item.
pub(super) fn judge(
    runtime: &Runtime,
    job: &Job,
    request: &Request<'_>,
    judged: Option<Result<Verdict, CallError>>,
) -> Result<Outcome, Failure> {
    let Request {
        sub,
        settings,
        files,
        single,
    } = *request;
    if let Some(e) = &job.error {
        if !single {
            return Ok(Outcome::Failed(e.clone()));
        }
        // The component reads the settings before the Pods: a bad profile is reported first.
        if let Err(bad @ CallError::Input(crate::types::InputError::BadSettings(_))) =
            runtime.check(None, "{}", Subresource::None, settings)
        {
            let pairs: Vec<(&str, &str)> = files.iter().map(|(k, v)| (*k, v.as_str())).collect();
            return Err(Failure::from_call(bad, &pairs));
        }
        return Err(Failure::input(e.clone()));
    }
    let Some(new) = &job.new else {
        return Ok(Outcome::Failed("nothing to judge".into()));
    };
    let verdict = judged.unwrap_or_else(|| runtime.check(job.old.as_deref(), new, sub, settings));
    match verdict {
        Ok(verdict) => Ok(Outcome::Judged {
            verdict,
            warnings: job.warnings.clone(),
        }),
        Err(e @ CallError::Host(_)) => Err(Failure::from_call(e, &[])),
        Err(e) => {
            let pairs: Vec<(&str, &str)> = files.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let failure = Failure::from_call(e, &pairs);
            if single {
                Err(failure)
            } else {
                Ok(Outcome::Failed(failure.message().to_owned()))
            }
        }
    }
}

/// The key Pods are paired by: namespace (empty is `default`, where kubectl puts it) and name.
fn key(d: &Document) -> Option<(String, String)> {
    if d.name.is_empty() {
        return None;
    }
    let ns = if d.namespace.is_empty() {
        "default".to_owned()
    } else {
        d.namespace.clone()
    };
    Some((ns, d.name.clone()))
}

/// Pair the new Pods with the old ones by namespace/name (one of each is always a pair). Old Pods
/// without a new one, and new Pods without an old one (when there are old Pods), are reported.
fn pair(old: Option<ReadFile>, new: &ReadFile, single: bool) -> Vec<Job> {
    let mut jobs = Vec::new();
    let Some(old) = old else {
        for d in &new.docs {
            jobs.push(one(d, None, new, None));
        }
        return jobs;
    };
    if single {
        jobs.push(one(&new.docs[0], Some((&old.docs[0], &old)), new, None));
        return jobs;
    }
    let mut used = vec![false; old.docs.len()];
    for d in &new.docs {
        let found = key(d).and_then(|k| {
            old.docs
                .iter()
                .enumerate()
                .find(|(i, o)| !used[*i] && key(o).as_ref() == Some(&k))
        });
        match found {
            Some((i, o)) => {
                used[i] = true;
                jobs.push(one(d, Some((o, &old)), new, None));
            }
            None => {
                let why = if d.name.is_empty() {
                    format!(
                        "{}: Pod {} has no metadata.name to pair it by",
                        new.file,
                        object_name(d)
                    )
                } else {
                    format!(
                        "{}: Pod {} has no old Pod in {} to pair with",
                        new.file,
                        object_name(d),
                        old.file
                    )
                };
                jobs.push(one(d, None, new, Some(why)));
            }
        }
    }
    for (i, o) in old.docs.iter().enumerate() {
        if !used[i] {
            let why = format!(
                "{}: Pod {} has no new Pod in {} to pair with",
                old.file,
                object_name(o),
                new.file
            );
            jobs.push(one(o, None, &old, Some(why)));
        }
    }
    jobs
}

/// A job for `new` (from file `new_file`) and its partner; the first unreadable object's problem
/// (or `why`) becomes the job's error.
pub(super) fn one(
    new: &Document,
    old: Option<(&Document, &ReadFile)>,
    new_file: &ReadFile,
    why: Option<String>,
) -> Job {
    let mut warnings = Vec::new();
    let mut error = why;
    if let Some((o, file)) = old {
        warnings.extend(file.warnings_of(o));
        if error.is_none() {
            error = o.error.as_ref().map(|e| format!("{}: {e}", whose(file, o)));
        }
    }
    warnings.extend(new_file.warnings_of(new));
    if error.is_none() {
        error = new
            .error
            .as_ref()
            .map(|e| format!("{}: {e}", whose(new_file, new)));
    }
    let unpaired = old.is_none() && error.is_some();
    Job {
        pod: new.clone(),
        old: old.map(|(o, _)| o.json.clone()),
        new: (!unpaired).then(|| new.json.clone()),
        warnings,
        error,
    }
}

/// The file, and the object when it holds several.
fn whose(file: &ReadFile, d: &Document) -> String {
    if file.docs.len() > 1 {
        format!("{} (Pod {})", file.file, object_name(d))
    } else {
        file.file.clone()
    }
}

/// The patch and the name messages give it: `--patch TEXT`, `--patch @FILE` (neither JSON nor
/// YAML text starts with `@`) or `--patch-file FILE`.
pub(super) fn patch_text(a: &CheckArgs) -> Result<(String, String), Failure> {
    match (&a.patch, &a.patch_file) {
        (Some(p), _) => match p.strip_prefix('@') {
            Some(file) => {
                let path = Path::new(file);
                Ok((read_input(path, "--patch")?, display(path, "--patch")))
            }
            None => Ok((p.clone(), "--patch".to_owned())),
        },
        (None, Some(f)) => Ok((read_input(f, "--patch-file")?, display(f, "--patch-file"))),
        (None, None) => Err(Failure::input(
            "check needs --new FILE, or --old FILE (or --live POD) with --patch",
        )),
    }
}

/// Jobs for `--old F --patch P`: the patch applied to each old Pod, then read back like a new Pod
/// (so fields the patch introduces are validated too).
pub(super) fn patch_jobs(
    runtime: &Runtime,
    a: &CheckArgs,
    old: &ReadFile,
    patch: &str,
    patch_name: &str,
) -> Result<Vec<Job>, Failure> {
    let mut jobs = Vec::new();
    for o in &old.docs {
        if let Some(e) = &o.error {
            jobs.push(Job {
                pod: o.clone(),
                old: None,
                new: None,
                warnings: Vec::new(),
                error: Some(format!("{}: {e}", whose(old, o))),
            });
            continue;
        }
        let patched = runtime
            .apply_patch(&o.json, patch, a.patch_type.wit())
            .map_err(|e| Failure::from_call(e, &[("patch", patch_name), ("old-pod", &old.file)]));
        let patched = match patched {
            Ok(p) => p,
            Err(f) if old.docs.len() == 1 => return Err(f),
            Err(f) => {
                jobs.push(Job {
                    pod: o.clone(),
                    old: None,
                    new: None,
                    warnings: Vec::new(),
                    error: Some(f.message().to_owned()),
                });
                continue;
            }
        };
        let new = read_text(
            runtime,
            &patched,
            patch_name,
            "patch",
            DocumentKind::Pod,
            a.validate,
        )?;
        let mut job = one(&new.docs[0], Some((o, old)), &new, None);
        job.pod = o.clone();
        jobs.push(job);
    }
    Ok(jobs)
}

pub(super) fn verdict_value(
    verdict: &Verdict,
    warnings: &[String],
    new: Option<&str>,
    show_new: bool,
) -> Value {
    let mut v = verdict_json(verdict);
    if let Some(w) = v.get_mut("warnings").and_then(Value::as_array_mut) {
        w.extend(warnings.iter().map(|s| json!(s)));
    }
    if show_new && let (Some(o), Some(new)) = (v.as_object_mut(), new) {
        o.insert("newPod".into(), serde_json::from_str(new).unwrap_or(Value::Null));
    }
    v
}

fn single_output(
    format: OutputFormat,
    job: &Job,
    outcome: Outcome,
    show_new: bool,
    rollout: Option<&RolloutReport>,
) -> Result<u8, Failure> {
    let code = outcome.exit_code();
    match outcome {
        Outcome::Failed(e) => Err(Failure::input(e)),
        Outcome::Judged { verdict, warnings } => {
            match format {
                OutputFormat::Text => {
                    emit(&verdict_text(&verdict));
                    if let Some(r) = rollout {
                        emit(&super::rollout::text(r));
                    }
                    if show_new && let Some(new) = &job.new {
                        emit(&format!("# the patched Pod:\n{}", pod_yaml(new)));
                    }
                    print_warnings(&verdict.warnings);
                    print_warnings(&warnings);
                }
                OutputFormat::Json | OutputFormat::Yaml => {
                    let mut v = verdict_value(&verdict, &warnings, job.new.as_deref(), show_new);
                    if let (Some(r), Some(o)) = (rollout, v.as_object_mut()) {
                        o.insert("rollout".into(), super::rollout::json(r));
                    }
                    if format == OutputFormat::Json {
                        emit(&to_json_string(&v));
                    } else {
                        emit(&to_yaml_string(&v));
                    }
                }
            }
            Ok(code)
        }
    }
}

pub(super) fn pod_yaml(json: &str) -> String {
    serde_json::from_str::<Value>(json).map_or_else(|_| json.to_owned(), |v| to_yaml_string(&v))
}

/// The several-Pods output: `{"items": [{"pod", "namespace", "name", ...verdict}], "summary"}` or,
/// for an item that could not be judged, `{"pod", "namespace", "name", "error"}`; `files`, when
/// the items come from several files, names each item's (`file`).
fn items_output(format: OutputFormat, results: &[(Job, Outcome)], show_new: bool, files: Option<&[String]>) {
    let mut tally = super::batch::Tally::default();
    for (_, outcome) in results {
        match outcome {
            Outcome::Judged { verdict, .. } => tally.judged(verdict.allowed),
            Outcome::Failed(_) => tally.failed(),
        }
    }
    if format == OutputFormat::Text {
        let mut out = String::new();
        for (i, (job, outcome)) in results.iter().enumerate() {
            let who = match files.and_then(|f| f.get(i)) {
                Some(file) => format!("{file}: pod {}", object_name(&job.pod)),
                None => format!("pod {}", object_name(&job.pod)),
            };
            match outcome {
                Outcome::Judged { verdict, warnings } => {
                    for line in verdict_text(verdict).lines() {
                        out.push_str(&format!("{who}: {line}\n"));
                    }
                    print_warnings(
                        &verdict
                            .warnings
                            .iter()
                            .map(|w| format!("{who}: {w}"))
                            .collect::<Vec<_>>(),
                    );
                    print_warnings(warnings);
                }
                Outcome::Failed(e) => out.push_str(&format!("{who}: error: {e}\n")),
            }
        }
        out.push_str(&tally.line());
        out.push('\n');
        emit(&out);
        return;
    }
    let items: Vec<Value> = results
        .iter()
        .enumerate()
        .map(|(i, (job, outcome))| {
            let mut item = match outcome {
                Outcome::Judged { verdict, warnings } => {
                    verdict_value(verdict, warnings, job.new.as_deref(), show_new)
                }
                Outcome::Failed(e) => json!({ "error": e }),
            };
            if let Some(o) = item.as_object_mut() {
                o.insert("pod".into(), json!(object_name(&job.pod)));
                o.insert("namespace".into(), json!(job.pod.namespace));
                o.insert("name".into(), json!(job.pod.name));
                if let Some(file) = files.and_then(|f| f.get(i)) {
                    o.insert("file".into(), json!(file));
                }
            }
            item
        })
        .collect();
    let v = json!({ "items": items, "summary": tally.json() });
    match format {
        OutputFormat::Yaml => emit(&to_yaml_string(&v)),
        _ => emit(&to_json_string(&v)),
    }
}
