//! `podmut vap` against the real API server's ValidatingAdmissionPolicy plugin (`cargo xtask
//! oracle test`; CI): every `tests/cases/vap` fixture is loaded into a kube-apiserver (audit log
//! on) of the newest release podmut claims (`PODMUT_ORACLE_VAP_RELEASE=v1.37.2` for another pinned
//! one) and its request sent for real, one case at a time (policies are cluster-wide). Per case
//! (`vap/<case>`):
//!
//! 1. a fresh namespace with the fixture's `namespaceLabels` stands for the fixture's namespace
//!    (`default`): the Pods, the params and the binding's `paramRef.namespace` are moved into it,
//!    and so are the CEL string literals naming it (`request.namespace == "default"`); podmut is
//!    asked about the same renamed documents;
//! 2. the params are created (a CustomResourceDefinition for a `paramKind` the server does not
//!    serve, preserving unknown fields), then the old Pod ([`exchange::create_old`]);
//! 3. the policies and bindings are created, then a *marker*: a Warn-only policy of the case's
//!    `paramKind` on ConfigMaps of a marker namespace, whose message names its params object,
//!    created after the case's params. The API server loads policies asynchronously, from informer
//!    caches, in one pass: once a dry-run ConfigMap create in the marker namespace carries the
//!    marker's warning, the caches held the marker's policy, binding and params, so they held the
//!    case's too — they were written before, on the same watch streams;
//! 4. the fixture's change is sent for real (no `dryRun`: podmut's `request.dryRun` is false) on
//!    the fixture's path, as the fixture's `user` (`Impersonate-User`) or the administrator; podmut
//!    is asked about the stored Pod and the body sent, as that user, as the server was. A change
//!    the server refuses before admission (Pod validation runs first) fails the case: no policy
//!    was consulted;
//! 5. the policies are deleted, the marker last, and the case ends once the marker's warning is
//!    gone (so no policy of this case is in effect for the next).
//!
//! The answers agree when:
//! - **verdict**: both admit or both deny; a policy or binding the server refuses to store is
//!   podmut's input error, naming the object and the first field the server names;
//! - **message**: the server's refusal is `pods "<name>" is forbidden: <podmut's message>` with the
//!   first Deny decision's reason and its code. The server evaluates policies in no fixed order
//!   (it keeps them in maps), so when podmut's Deny decisions come from several policy/binding
//!   pairs, the first Deny decision of any pair may be the one the server names;
//! - **warnings**: the same ValidatingAdmissionPolicy warnings, in any order (the server's other
//!   warnings, about the Pod itself, are the check oracle's business);
//! - **audit**: the request's audit event carries exactly podmut's audit annotations (the case's
//!   `<policy>/<key>` and `validation.policy.admission.k8s.io/validation_failure` keys), byte for
//!   byte; the elements of a list from several policies or bindings in any order.
//!
//! podmut is asked the way `podmut vap --type-check warn` answers (the API server only records a
//! type-checking warning; it evaluates anyway), through the component unless
//! `PODMUT_ORACLE_NATIVE=1`. A fixture the server cannot be asked about has a `vap-` skip reason,
//! listed in `known-differences.yaml`. Without the control-plane binaries the cases are reported
//! as ignored, or fail under `PODMUT_REQUIRE_ORACLE=1` (CI; [`podmut_oracle::prerequisite`]).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use http::Method;
use libtest_mimic::{Arguments, Failed, Trial};
use podmut_fixtures::{Case, LoadedCase};
use podmut_oracle::api::{Api, PodPath, Reply};
use podmut_oracle::control_plane::{self, Config, ControlPlane};
use podmut_oracle::known::Known;
use podmut_oracle::prerequisite::Prerequisites;
use podmut_oracle::{Pins, Release, exchange, policies, runtime};
use serde_json::{Map, Value, json};

fn e(x: impl std::fmt::Display) -> String {
    x.to_string()
}

const NAME_LABEL: &str = "kubernetes.io/metadata.name";
const VALIDATION_FAILURE: &str = "validation.policy.admission.k8s.io/validation_failure";
const WARNING_PREFIX: &str = "Validation failed for ValidatingAdmissionPolicy '";
/// The control plane's administrator, who sends a fixture's request when it names no user.
const ADMIN: &str = "podmut-admin";

fn main() -> std::process::ExitCode {
    let args = Arguments::from_args();
    let trials = match trials() {
        Ok(t) => t,
        Err(err) => {
            eprintln!("vap oracle: {err}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let conclusion = libtest_mimic::run(&args, trials);
    // Stop the control plane before printing (a static is never dropped).
    drop(rig().lock().unwrap_or_else(PoisonError::into_inner).take());
    print_tally();
    conclusion.exit_code()
}

/// The release the cases run on: `PODMUT_ORACLE_VAP_RELEASE` (a pinned one, `v1.37.2`), else the
/// newest release podmut claims (`podmut vap` follows podmut's default `kubernetesVersion`).
fn release(pins: &Pins) -> Result<Release, String> {
    if let Some(v) = std::env::var_os("PODMUT_ORACLE_VAP_RELEASE") {
        let r = Release::parse(&v.to_string_lossy()).map_err(e)?;
        return if pins.kubernetes.contains(&r) {
            Ok(r)
        } else {
            Err(format!("PODMUT_ORACLE_VAP_RELEASE: {r} is not pinned"))
        };
    }
    podmut_oracle::fixtures::claimed(pins)
        .into_iter()
        .max()
        .ok_or_else(|| "podmut claims none of the pinned releases".to_owned())
}

/// Why a fixture cannot be asked of the server, when it cannot.
fn skip(case: &Case) -> Option<&'static str> {
    let request = case.request.as_ref();
    if request.and_then(|r| r.get("review")).is_some() {
        return Some("vap-review");
    }
    if case.subresource == "dynamic" {
        return Some("pods-dynamic");
    }
    let policies = request
        .and_then(|r| r.get("policies"))
        .map(Value::to_string)
        .unwrap_or_default();
    if policies.contains("authorizer") {
        return Some("vap-authorizer");
    }
    None
}

fn trials() -> Result<Vec<Trial>, String> {
    let pins = Pins::load().map_err(e)?;
    let known = Known::load().map_err(e)?;
    let cases = podmut_fixtures::load_cases(&podmut_fixtures::cases_dir()).map_err(e)?;
    let release = release(&pins)?;
    let needs = Prerequisites::new(control_plane::binaries(release).err().map(e));
    let mut used = BTreeSet::new();
    let mut trials = Vec::new();
    for c in cases.into_iter().filter(|c| c.area == "vap") {
        let name = c.name.clone();
        if let Some(reason) = skip(&c.case) {
            used.insert(reason);
            trials.push(match known.for_skip(reason) {
                Some(entry) => Trial::test(name, || Ok(()))
                    .with_kind(format!("known: {}", entry.id))
                    .with_ignored_flag(true),
                None => {
                    let why = format!("not replayable ({reason}) and not in known-differences.yaml");
                    Trial::test(name, move || Err(Failed::from(why)))
                }
            });
            continue;
        }
        let listed = known.for_case(&c.name).map(|entry| entry.id.clone());
        trials.push(needs.trial(name, &release.to_string(), move || {
            run_case(release, &c, listed.as_deref())
        }));
    }
    let stale: Vec<String> = known
        .entries
        .iter()
        .filter_map(|entry| entry.skip.as_deref())
        .filter(|s| s.starts_with("vap-") && !used.contains(s))
        .map(str::to_owned)
        .collect();
    trials.push(Trial::test(
        "known-differences/every-vap-skip-is-used",
        move || {
            if stale.is_empty() {
                Ok(())
            } else {
                Err(Failed::from(format!(
                    "known-differences.yaml lists vap skips no fixture has: {}; delete them",
                    stale.join(", ")
                )))
            }
        },
    ));
    Ok(trials)
}

/// Agreement counts over the cases run.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    cases: u32,
    verdict: u32,
    message: u32,
    warnings: u32,
    audit: u32,
}

fn tally() -> &'static Mutex<Tally> {
    static T: OnceLock<Mutex<Tally>> = OnceLock::new();
    T.get_or_init(Mutex::default)
}

fn print_tally() {
    let t = *tally().lock().unwrap_or_else(PoisonError::into_inner);
    if t.cases == 0 {
        return;
    }
    let pct = |n: u32| f64::from(n) * 100.0 / f64::from(t.cases);
    println!("\nagreement with the API server (verdict / message / warnings / audit annotations):");
    println!(
        "  {:<40} {:>6} cases  {:>6.2}%  {:>6.2}%  {:>6.2}%  {:>6.2}%",
        "vap",
        t.cases,
        pct(t.verdict),
        pct(t.message),
        pct(t.warnings),
        pct(t.audit)
    );
}

/// The control plane every case uses, with what the cases set up once.
struct Rig {
    // Field order is drop order: the client goes before the control plane.
    api: Api,
    plane: ControlPlane,
    /// The namespace of the marker probes.
    marker_ns: String,
    /// Param kinds served (`group/version/Kind` → plural), CRDs created here included.
    kinds: BTreeMap<String, String>,
    /// Users allowed everything (`user:` fixtures act as them).
    users: BTreeSet<String>,
    /// Cases run (the marker's serial number).
    serial: u64,
    /// Set when a case could not remove its policies: every later case would see them.
    poisoned: Option<String>,
}

impl std::fmt::Debug for Rig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rig")
            .field("plane", &self.plane.url)
            .finish_non_exhaustive()
    }
}

fn rig() -> &'static Mutex<Option<Rig>> {
    static RIG: OnceLock<Mutex<Option<Rig>>> = OnceLock::new();
    RIG.get_or_init(Mutex::default)
}

impl Rig {
    fn start(release: Release) -> Result<Self, String> {
        let mut config = Config::stock(release);
        config.audit = true;
        let plane = runtime().block_on(ControlPlane::start(&config)).map_err(e)?;
        let api = runtime().block_on(plane.client()).map_err(e)?;
        let marker_ns = exchange::fresh_namespace();
        runtime().block_on(api.create_namespace(&marker_ns)).map_err(e)?;
        let kinds = [("v1/ConfigMap", "configmaps"), ("v1/Secret", "secrets")]
            .into_iter()
            .map(|(k, p)| (k.to_owned(), p.to_owned()))
            .collect();
        Ok(Self {
            api,
            plane,
            marker_ns,
            kinds,
            users: BTreeSet::new(),
            serial: 0,
            poisoned: None,
        })
    }
}

fn run_case(release: Release, c: &LoadedCase, listed: Option<&str>) -> Result<(), Failed> {
    let mut guard = rig().lock().unwrap_or_else(PoisonError::into_inner);
    if guard.is_none() {
        *guard = Some(Rig::start(release).map_err(Failed::from)?);
    }
    let Some(rig) = guard.as_mut() else {
        return Err(Failed::from("no control plane"));
    };
    if let Some(why) = &rig.poisoned {
        return Err(Failed::from(format!(
            "an earlier case left its policies in effect: {why}"
        )));
    }
    rig.serial += 1;
    let prepared = Prepared::new(&c.case, &exchange::fresh_namespace())?;
    let asked = runtime()
        .block_on(ask_server(rig, &prepared))
        .map_err(Failed::from)?;
    if let Some(why) = asked.answer.refused_before_admission() {
        return Err(Failed::from(format!(
            "{}: the server refuses the change before admission, so no policy is consulted (make the fixture's change valid on its path): {why}",
            c.name
        )));
    }
    let podmut = podmut_answer(&prepared, &asked);
    let agreement = compare(&podmut, &asked.answer, &prepared);
    record(agreement);
    let report = || {
        format!(
            "{}\n  podmut: {}\n  server: {}\n  sent: {}",
            agreement.describe(),
            serde_json::to_string_pretty(&podmut).unwrap_or_default(),
            asked.answer.describe(),
            asked.sent
        )
    };
    match (agreement.full(), listed) {
        (true, None) => Ok(()),
        (true, Some(id)) => Err(Failed::from(format!(
            "listed in known-differences.yaml ({id}) but agrees with the server now: delete it from the entry"
        ))),
        (false, Some(_)) => Ok(()),
        (false, None) => Err(Failed::from(format!("{}:\n{}", c.name, report()))),
    }
}

fn record(a: Agreement) {
    let mut t = tally().lock().unwrap_or_else(PoisonError::into_inner);
    t.cases += 1;
    t.verdict += u32::from(a.verdict);
    t.message += u32::from(a.message);
    t.warnings += u32::from(a.warnings);
    t.audit += u32::from(a.audit);
}

/// A fixture moved into its own namespace: what both the server and podmut are given.
#[derive(Debug)]
struct Prepared {
    ns: String,
    labels: Map<String, Value>,
    path: PodPath,
    old: Option<Value>,
    new: Value,
    /// Policies and bindings, in the fixture's order.
    policies: Vec<Value>,
    params: Vec<Value>,
    user: Option<String>,
}

fn text<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or_default()
}

/// Every string in `v` with the CEL literals `"from"` and `'from'` renamed to `to`.
fn rename_literals(v: &mut Value, from: &str, to: &str) {
    match v {
        Value::String(s) => {
            for q in ['"', '\''] {
                *s = s.replace(&format!("{q}{from}{q}"), &format!("{q}{to}{q}"));
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| rename_literals(x, from, to)),
        Value::Object(o) => o.values_mut().for_each(|x| rename_literals(x, from, to)),
        _ => {}
    }
}

impl Prepared {
    fn new(case: &Case, ns: &str) -> Result<Self, String> {
        let request = case.request.clone().unwrap_or_default();
        let list = |key: &str| {
            request
                .get(key)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        let new = case.new.clone().ok_or("the fixture has no new Pod")?;
        let from = [&new, case.old.as_ref().unwrap_or(&new)]
            .iter()
            .map(|p| text(p, "/metadata/namespace"))
            .find(|n| !n.is_empty())
            .unwrap_or("default")
            .to_owned();
        let mut policies = list("policies");
        for p in &mut policies {
            rename_literals(p, &from, ns);
            if let Some(r) = p.pointer_mut("/spec/paramRef/namespace")
                && r.as_str() == Some(from.as_str())
            {
                *r = json!(ns);
            }
        }
        let mut params = list("params");
        for p in &mut params {
            let pns = text(p, "/metadata/namespace");
            if pns == from {
                *p = exchange::in_namespace(p, ns);
            } else if !pns.is_empty() {
                return Err(format!(
                    "params in namespace {pns:?}: only the Pod's namespace is replayed"
                ));
            }
        }
        let path = match (case.subresource.as_str(), case.old.is_some()) {
            ("none", false) => PodPath::Create,
            ("none", true) => PodPath::Update,
            ("resize", true) => PodPath::Resize,
            ("ephemeralcontainers", true) => PodPath::EphemeralContainers,
            ("status", true) => PodPath::Status,
            (other, _) => return Err(format!("subresource {other:?} is not replayed")),
        };
        Ok(Self {
            ns: ns.to_owned(),
            labels: request
                .get("namespaceLabels")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
            path,
            old: case.old.as_ref().map(|o| exchange::in_namespace(o, ns)),
            new: exchange::in_namespace(&new, ns),
            policies,
            params,
            user: request.get("user").and_then(Value::as_str).map(str::to_owned),
        })
    }

    fn of_kind(&self, kind: &str) -> impl Iterator<Item = &Value> {
        self.policies.iter().filter(move |p| text(p, "/kind") == kind)
    }

    /// The policies' names.
    fn policy_names(&self) -> BTreeSet<String> {
        self.of_kind("ValidatingAdmissionPolicy")
            .map(|p| text(p, "/metadata/name").to_owned())
            .collect()
    }

    /// The distinct `paramKind`s (`apiVersion`, `kind`).
    fn param_kinds(&self) -> BTreeSet<(String, String)> {
        self.of_kind("ValidatingAdmissionPolicy")
            .filter_map(|p| p.pointer("/spec/paramKind"))
            .map(|k| (text(k, "/apiVersion").to_owned(), text(k, "/kind").to_owned()))
            .collect()
    }
}

/// The server's answer to a case.
#[derive(Debug)]
enum ServerAnswer {
    /// The server refused to store a policy or binding: (its kind and name, the refusal).
    Refused(String, Reply),
    /// The request was answered.
    Answered {
        reply: Reply,
        /// The case's audit annotations on the request's audit event.
        audit: BTreeMap<String, String>,
    },
}

impl ServerAnswer {
    /// The refusal, when the request was refused by something other than a policy (Pod
    /// validation runs first: a change it refuses never reaches admission).
    fn refused_before_admission(&self) -> Option<String> {
        match self {
            ServerAnswer::Answered { reply, .. }
                if !reply.ok()
                    && !text(&reply.body, "/message").contains(": ValidatingAdmissionPolicy '") =>
            {
                Some(text(&reply.body, "/message").to_owned())
            }
            _ => None,
        }
    }

    fn describe(&self) -> String {
        match self {
            ServerAnswer::Refused(what, r) => format!("refused to store {what}: HTTP {} {}", r.code, r.body),
            ServerAnswer::Answered { reply, audit } => format!(
                "HTTP {} {}\n    warnings: {:?}\n    audit annotations: {:?}",
                reply.code,
                if reply.ok() {
                    String::new()
                } else {
                    reply.body.to_string()
                },
                reply.warnings,
                audit
            ),
        }
    }
}

/// What the server answered, with the stored old Pod and the body sent (what podmut is asked).
#[derive(Debug)]
struct Asked {
    answer: ServerAnswer,
    stored: Option<Value>,
    sent: Value,
}

async fn ask_server(rig: &mut Rig, p: &Prepared) -> Result<Asked, String> {
    rig.api
        .create_labelled_namespace(&p.ns, &p.labels)
        .await
        .map_err(e)?;
    for kind in p.param_kinds() {
        ensure_kind(rig, &kind).await?;
    }
    for param in &p.params {
        create(&rig.api, &object_uri(rig, param)?, param).await?;
    }
    if let Some(user) = &p.user {
        ensure_user(rig, user).await?;
    }
    let (stored, sent) = match &p.old {
        None => (None, p.new.clone()),
        Some(old) => {
            let stored = exchange::create_old(&rig.api, &p.ns, old)
                .await
                .map_err(e)?
                .map_err(|r| format!("the server refuses the old Pod: HTTP {} {}", r.code, r.body))?;
            let sent = exchange::apply_change(&stored, old, &p.new)?;
            (Some(stored), sent)
        }
    };
    let marker = Marker::new(rig, p);
    let installed = install(rig, p, &marker).await;
    let answer = match installed {
        Ok(None) => send(rig, p, &sent).await,
        Ok(Some((what, reply))) => Ok(ServerAnswer::Refused(what, reply)),
        Err(err) => Err(err),
    };
    if let Err(why) = uninstall(rig, p, &marker).await {
        rig.poisoned = Some(why.clone());
        return Err(why);
    }
    Ok(Asked {
        answer: answer?,
        stored,
        sent,
    })
}

async fn create(api: &Api, uri: &str, body: &Value) -> Result<Value, String> {
    api.send(Method::POST, uri, Some(body), "application/json")
        .await
        .map_err(e)?
        .into_ok(&format!("POST {uri}"))
        .map_err(e)
}

/// The collection URI of an object (its kind served, or made served by [`ensure_kind`]).
fn object_uri(rig: &Rig, obj: &Value) -> Result<String, String> {
    let api_version = text(obj, "/apiVersion");
    let key = format!("{api_version}/{}", text(obj, "/kind"));
    let plural = rig
        .kinds
        .get(&key)
        .ok_or_else(|| format!("no resource serves {key}"))?;
    let root = if api_version.contains('/') {
        format!("/apis/{api_version}")
    } else {
        format!("/api/{api_version}")
    };
    Ok(match text(obj, "/metadata/namespace") {
        "" => format!("{root}/{plural}"),
        ns => format!("{root}/namespaces/{ns}/{plural}"),
    })
}

/// A `paramKind` the server does not serve becomes a namespaced CustomResourceDefinition that
/// keeps every field.
async fn ensure_kind(rig: &mut Rig, (api_version, kind): &(String, String)) -> Result<(), String> {
    let key = format!("{api_version}/{kind}");
    if rig.kinds.contains_key(&key) {
        return Ok(());
    }
    let (group, version) = api_version
        .split_once('/')
        .ok_or_else(|| format!("paramKind {key}: a core kind the oracle does not know"))?;
    let plural = kind.to_lowercase();
    let name = format!("{plural}.{group}");
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": name},
        "spec": {"group": group, "scope": "Namespaced",
            "names": {"plural": plural, "kind": kind},
            "versions": [{"name": version, "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}});
    let uri = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    create(&rig.api, uri, &crd).await?;
    wait_for(
        Duration::from_secs(60),
        &format!("CRD {name} established"),
        || async {
            let r = rig
                .api
                .send(Method::GET, &format!("{uri}/{name}"), None, "application/json")
                .await
                .map_err(e)?;
            let established = r
                .body
                .pointer("/status/conditions")
                .and_then(Value::as_array)
                .is_some_and(|cs| {
                    cs.iter()
                        .any(|c| text(c, "/type") == "Established" && text(c, "/status") == "True")
                });
            Ok(established)
        },
    )
    .await?;
    rig.kinds.insert(key, plural);
    Ok(())
}

/// A user allowed everything (cluster-admin), to act as.
async fn ensure_user(rig: &mut Rig, user: &str) -> Result<(), String> {
    if rig.users.contains(user) {
        return Ok(());
    }
    let binding = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
        "metadata": {"name": format!("oracle-user-{user}")},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}]});
    create(
        &rig.api,
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        &binding,
    )
    .await?;
    rig.users.insert(user.to_owned());
    Ok(())
}

/// Poll `probe` until it says yes, for at most `timeout`.
async fn wait_for<F, Fut>(timeout: Duration, what: &str, mut probe: F) -> Result<(), String>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<bool, String>>,
{
    let deadline = Instant::now() + timeout;
    loop {
        if probe().await? {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("waited {}s for {what}", timeout.as_secs()));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The marker policies of one case: one per `paramKind` (one without params when none), each
/// warning about ConfigMap creates in the marker namespace with its params object's name.
#[derive(Debug)]
struct Marker {
    /// (name, paramKind) of each marker policy.
    policies: Vec<(String, Option<(String, String)>)>,
}

impl Marker {
    fn new(rig: &Rig, p: &Prepared) -> Self {
        let base = format!("oracle-marker-{}", rig.serial);
        let kinds = p.param_kinds();
        let policies = if kinds.is_empty() {
            vec![(base, None)]
        } else {
            kinds
                .into_iter()
                .enumerate()
                .map(|(i, k)| (format!("{base}-{i}"), Some(k)))
                .collect()
        };
        Self { policies }
    }

    /// The marker's objects, in creation order: params, then policies, then bindings.
    fn objects(&self, marker_ns: &str) -> (Vec<Value>, Vec<Value>, Vec<Value>) {
        let mut params = Vec::new();
        let mut policies = Vec::new();
        let mut bindings = Vec::new();
        for (name, kind) in &self.policies {
            let mut spec = json!({"failurePolicy": "Fail",
                "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                    "operations": ["CREATE"], "resources": ["configmaps"]}]},
                "validations": [{"expression": "false", "messageExpression": format!("'marker {name}'")}]});
            let mut binding = json!({"policyName": name, "validationActions": ["Warn"],
                "matchResources": {"namespaceSelector": {"matchLabels": {NAME_LABEL: marker_ns}}}});
            if let Some((api_version, kind)) = kind {
                spec["paramKind"] = json!({"apiVersion": api_version, "kind": kind});
                spec["validations"][0]["messageExpression"] = json!("'marker ' + params.metadata.name");
                binding["paramRef"] =
                    json!({"name": name, "namespace": marker_ns, "parameterNotFoundAction": "Deny"});
                params.push(json!({"apiVersion": api_version, "kind": kind,
                    "metadata": {"name": name, "namespace": marker_ns}}));
            }
            policies.push(json!({"apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name}, "spec": spec}));
            bindings.push(json!({"apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name}, "spec": binding}));
        }
        (params, policies, bindings)
    }

    /// The warnings a probe gets while every marker is in effect.
    fn warnings(&self) -> Vec<String> {
        self.policies
            .iter()
            .map(|(name, _)| format!("{WARNING_PREFIX}{name}' with binding '{name}': marker {name}"))
            .collect()
    }

    /// The marker probe's warnings: a dry-run ConfigMap create in the marker namespace.
    async fn probe(api: &Api, marker_ns: &str) -> Result<Vec<String>, String> {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "probe"}});
        let reply = api
            .send(
                Method::POST,
                &format!("/api/v1/namespaces/{marker_ns}/configmaps?dryRun=All"),
                Some(&cm),
                "application/json",
            )
            .await
            .map_err(e)?;
        Ok(reply.warnings)
    }
}

/// Create the case's policies, then its bindings, then the marker, and wait until the marker is in
/// effect. `Some` when the server refuses one of the case's objects.
async fn install(rig: &Rig, p: &Prepared, marker: &Marker) -> Result<Option<(String, Reply)>, String> {
    for kind in ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"] {
        for obj in p.of_kind(kind) {
            let reply = rig
                .api
                .send(Method::POST, &policies::uri(kind)?, Some(obj), "application/json")
                .await
                .map_err(e)?;
            if !reply.ok() {
                let what = format!("{kind} {:?}", text(obj, "/metadata/name"));
                return Ok(Some((what, reply)));
            }
        }
    }
    let (params, policies, bindings) = marker.objects(&rig.marker_ns);
    for param in &params {
        create(&rig.api, &object_uri(rig, param)?, param).await?;
    }
    for obj in policies.iter().chain(&bindings) {
        create(&rig.api, &policies::uri(text(obj, "/kind"))?, obj).await?;
    }
    let expected = marker.warnings();
    wait_for(
        Duration::from_secs(60),
        "the policies to be in effect",
        || async {
            let got = Marker::probe(&rig.api, &rig.marker_ns).await?;
            Ok(expected.iter().all(|w| got.contains(w)))
        },
    )
    .await?;
    Ok(None)
}

/// Delete the case's bindings and policies, then the marker's, and wait until the marker is out
/// of effect.
async fn uninstall(rig: &Rig, p: &Prepared, marker: &Marker) -> Result<(), String> {
    let (_, marker_policies, marker_bindings) = marker.objects(&rig.marker_ns);
    let case_bindings = p.of_kind("ValidatingAdmissionPolicyBinding");
    let case_policies = p.of_kind("ValidatingAdmissionPolicy");
    for obj in case_bindings
        .chain(case_policies)
        .chain(&marker_bindings)
        .chain(&marker_policies)
    {
        let uri = format!(
            "{}/{}",
            policies::uri(text(obj, "/kind"))?,
            text(obj, "/metadata/name")
        );
        let reply = rig
            .api
            .send(Method::DELETE, &uri, None, "application/json")
            .await
            .map_err(e)?;
        if !reply.ok() && reply.code != 404 {
            return Err(format!("DELETE {uri}: HTTP {} {}", reply.code, reply.body));
        }
    }
    let prefixes: Vec<String> = marker
        .policies
        .iter()
        .map(|(name, _)| format!("{WARNING_PREFIX}{name}'"))
        .collect();
    wait_for(
        Duration::from_secs(60),
        "the policies to be out of effect",
        || async {
            let got = Marker::probe(&rig.api, &rig.marker_ns).await?;
            Ok(!got.iter().any(|w| prefixes.iter().any(|pre| w.starts_with(pre))))
        },
    )
    .await
}

/// Send the change for real on the case's path (as the case's user), and read its audit event.
async fn send(rig: &Rig, p: &Prepared, sent: &Value) -> Result<ServerAnswer, String> {
    let api = p
        .user
        .as_deref()
        .map_or_else(|| rig.api.clone(), |u| rig.api.impersonating(u));
    let name = text(sent, "/metadata/name");
    let reply = match p.path {
        PodPath::Create => api.create_pod(&p.ns, sent).await,
        path => api.put_pod(&p.ns, name, path, sent).await,
    }
    .map_err(e)?;
    let audit = audit_annotations(&rig.plane, &reply, &p.policy_names()).await?;
    Ok(ServerAnswer::Answered { reply, audit })
}

/// The case's annotations on the request's audit event (`<policy>/...` and the validation
/// failures).
async fn audit_annotations(
    plane: &ControlPlane,
    reply: &Reply,
    policies: &BTreeSet<String>,
) -> Result<BTreeMap<String, String>, String> {
    let id = reply
        .audit_id
        .clone()
        .ok_or("the answer has no Audit-Id header")?;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let event = plane
            .audit_events()
            .into_iter()
            .find(|ev| text(ev, "/auditID") == id && text(ev, "/stage") == "ResponseComplete");
        if let Some(ev) = event {
            let annotations = ev.get("annotations").and_then(Value::as_object);
            return Ok(annotations
                .into_iter()
                .flatten()
                .filter(|(k, _)| {
                    k.as_str() == VALIDATION_FAILURE
                        || k.split_once('/').is_some_and(|(p, _)| policies.contains(p))
                })
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                .collect());
        }
        if Instant::now() > deadline {
            return Err(format!("no audit event {id} within 10s"));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// podmut's answer (`podmut vap --type-check warn -o json`) to what the server was sent.
fn podmut_answer(p: &Prepared, asked: &Asked) -> Value {
    let mut request = json!({"policies": p.policies, "namespaceLabels": p.labels});
    if !p.params.is_empty() {
        request["params"] = json!(p.params);
    }
    // The server saw the administrator when the fixture names no user.
    request["user"] = json!(p.user.as_deref().unwrap_or(ADMIN));
    let case = Case {
        description: String::new(),
        subresource: p.path.podmut_subresource().to_owned(),
        settings: None,
        old: asked.stored.clone(),
        new: Some(asked.sent.clone()),
        pod: None,
        request: Some(request),
        no_defaults: false,
        expect: Value::Null,
    };
    let req = podmut_conformance::vap::request(&case);
    if podmut_oracle::fixtures::native() {
        podmut_conformance::vap::native_answer(&req)
    } else {
        podmut_conformance::vap::wasm_answer(&req)
    }
}

/// How podmut's answer compares with the server's.
#[derive(Debug, Default, Clone, Copy)]
struct Agreement {
    verdict: bool,
    message: bool,
    warnings: bool,
    audit: bool,
}

impl Agreement {
    fn full(self) -> bool {
        self.verdict && self.message && self.warnings && self.audit
    }

    fn describe(self) -> String {
        let bad: Vec<&str> = [
            (self.verdict, "verdict"),
            (self.message, "message"),
            (self.warnings, "warnings"),
            (self.audit, "audit annotations"),
        ]
        .iter()
        .filter(|(ok, _)| !ok)
        .map(|(_, n)| *n)
        .collect();
        format!("disagree on {}", bad.join(", "))
    }
}

fn compare(podmut: &Value, server: &ServerAnswer, p: &Prepared) -> Agreement {
    match (podmut.get("inputError"), server) {
        (Some(input), ServerAnswer::Refused(what, reply)) => {
            let same = refusal_named(input, what, reply);
            Agreement {
                verdict: true,
                message: same,
                warnings: true,
                audit: true,
            }
        }
        (None, ServerAnswer::Answered { reply, audit }) => compare_answers(podmut, reply, audit, p),
        _ => Agreement::default(),
    }
}

/// podmut's input error names the object the server refused and the first field it names.
fn refusal_named(input: &Value, what: &str, reply: &Reply) -> bool {
    let message = text(input, "/message");
    let name = what.split_once(' ').map_or(what, |(_, n)| n);
    let field = reply
        .body
        .pointer("/details/causes/0/field")
        .and_then(Value::as_str)
        .unwrap_or_default();
    message.contains(name) && message.contains(field)
}

/// The first Deny decision of each (policy, binding) pair, in podmut's order: the refusals the
/// server may name.
fn first_denials(podmut: &Value) -> Vec<(String, String)> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for d in podmut
        .get("decisions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|d| text(d, "/action") == "Deny")
    {
        let (policy, binding) = (text(d, "/policy"), text(d, "/binding"));
        if !seen.insert((policy.to_owned(), binding.to_owned())) {
            continue;
        }
        let message = if binding.is_empty() {
            format!(
                "ValidatingAdmissionPolicy '{policy}' denied request: {}",
                text(d, "/message")
            )
        } else {
            format!(
                "ValidatingAdmissionPolicy '{policy}' with binding '{binding}' denied request: {}",
                text(d, "/message")
            )
        };
        let reason = match text(d, "/reason") {
            "" => "Invalid",
            r => r,
        };
        out.push((message, reason.to_owned()));
    }
    out
}

/// The HTTP code of a denial's reason (upstream `reasonToCode`).
fn reason_code(reason: &str) -> u16 {
    match reason {
        "Forbidden" => 403,
        "Unauthorized" => 401,
        "RequestEntityTooLarge" => 413,
        _ => 422,
    }
}

fn compare_answers(
    podmut: &Value,
    reply: &Reply,
    audit: &BTreeMap<String, String>,
    p: &Prepared,
) -> Agreement {
    let allowed = podmut.get("allowed").and_then(Value::as_bool).unwrap_or(false);
    let verdict = allowed == reply.ok();
    let message = verdict
        && (allowed || {
            let name = text(&p.new, "/metadata/name");
            let got = text(&reply.body, "/message");
            let reason = text(&reply.body, "/reason");
            let own = text(podmut, "/message");
            let candidates = first_denials(podmut);
            candidates.first().is_some_and(|(m, _)| m == own)
                && candidates.iter().any(|(m, r)| {
                    got == format!("pods \"{name}\" is forbidden: {m}")
                        && reason == r
                        && reply.code == reason_code(r)
                })
        });
    let strings = |v: Option<&Value>| -> Vec<String> {
        let mut s: Vec<String> = v
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        s.sort();
        s
    };
    let mut server_warnings: Vec<String> = reply
        .warnings
        .iter()
        .filter(|w| w.starts_with(WARNING_PREFIX))
        .cloned()
        .collect();
    server_warnings.sort();
    let podmut_audit: BTreeMap<String, String> = podmut
        .get("auditAnnotations")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
        .collect();
    Agreement {
        verdict,
        message,
        warnings: strings(podmut.get("warnings")) == server_warnings,
        audit: same_annotations(&podmut_audit, audit),
    }
}

/// The same keys, each with the same value: byte for byte, or the same elements (of a JSON list,
/// or of a `, `-joined list) in another order.
fn same_annotations(podmut: &BTreeMap<String, String>, server: &BTreeMap<String, String>) -> bool {
    podmut.len() == server.len()
        && podmut.iter().all(|(k, v)| {
            server.get(k).is_some_and(|s| {
                s == v
                    || match (array_elements(v), array_elements(s)) {
                        (Some(a), Some(b)) => sorted(a) == sorted(b),
                        _ => sorted(v.split(", ").collect()) == sorted(s.split(", ").collect()),
                    }
            })
        })
}

fn sorted(mut x: Vec<&str>) -> Vec<&str> {
    x.sort_unstable();
    x
}

/// The top-level elements of a JSON array, as written.
fn array_elements(s: &str) -> Option<Vec<&str>> {
    let inner = s.trim().strip_prefix('[')?.strip_suffix(']')?;
    let mut out = Vec::new();
    let (mut depth, mut in_string, mut escaped, mut start) = (0u32, false, false, 0usize);
    for (i, c) in inner.char_indices() {
        match (in_string, escaped, c) {
            (true, true, _) => escaped = false,
            (true, false, '\\') => escaped = true,
            (true, false, '"') | (false, _, '"') => in_string = !in_string,
            (false, _, '[' | '{') => depth += 1,
            (false, _, ']' | '}') => depth = depth.saturating_sub(1),
            (false, _, ',') if depth == 0 => {
                out.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = inner[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    Some(out)
}
