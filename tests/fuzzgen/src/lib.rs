//! Structure-aware fuzz inputs for podmut's entry points (check, qos, allocate, probes, statuses,
//! review, coverage), shared by the cargo-fuzz targets in `fuzz/` and the stable fuzz smoke test
//! (`tests/tests/fuzz_smoke.rs`, part of `cargo xtask test`).
//!
//! A fuzz input is a [`Seed`] (JSON, one of the files under `fuzz/corpus/<target>/`, which
//! `cargo run -p podmut-fuzzgen --bin fuzz-corpus` derives from the conformance fixtures in
//! `tests/cases/`), a NUL byte, then bytes that [`arbitrary`] turns into a [`Plan`]: a list of
//! [`Mutation`]s of the seed's documents (add/remove containers, change images, resources, probes,
//! restart policies, or any node of the JSON tree), a subresource and settings edits. Input without
//! a readable seed mutates a small built-in Pod instead, so every byte string is a valid input.
//!
//! [`run_native`] calls podmut-core with the generated documents; any panic is a bug. Errors
//! (`InputError`s, denials) are expected answers and ignored.

use std::collections::BTreeMap;
use std::path::Path;

use arbitrary::{Arbitrary, Unstructured};
use podmut_core::Subresource;
use serde_json::{Map, Value, json};

/// A fuzzed entry point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    /// `validate.check` (old and new Pod, subresource, settings).
    Check,
    /// `node.qos-class`.
    Qos,
    /// `node.allocate` and `node.retry-order`.
    Allocate,
    /// `node.probe-plan`.
    Probes,
    /// `node.container-statuses`.
    Statuses,
    /// `admission.review`.
    Review,
    /// `admission.coverage`.
    Coverage,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 7] = [
        Target::Check,
        Target::Qos,
        Target::Allocate,
        Target::Probes,
        Target::Statuses,
        Target::Review,
        Target::Coverage,
    ];

    /// The target's name (the cargo-fuzz target and corpus directory).
    pub fn name(self) -> &'static str {
        match self {
            Target::Check => "check",
            Target::Qos => "qos",
            Target::Allocate => "allocate",
            Target::Probes => "probes",
            Target::Statuses => "statuses",
            Target::Review => "review",
            Target::Coverage => "coverage",
        }
    }
}

/// A starting point: the documents of one conformance fixture, in the target's order.
///
/// `docs`: check `[new]` or `[old, new]`; qos `[pod]`; allocate and statuses `[request]`; probes
/// `[old, new]`; review `[admissionReview]`; coverage `[configs]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Seed {
    /// The documents.
    pub docs: Vec<Value>,
    /// The subresource (check seeds).
    pub sub: String,
    /// The settings document (`null` for the defaults).
    pub settings: Value,
    /// Target-specific options: qos `{applyDefaults, alwaysCompute}`, coverage `{scope}`.
    pub options: Value,
}

impl Seed {
    /// The seed as JSON.
    pub fn to_json(&self) -> Value {
        json!({"docs": self.docs, "sub": self.sub, "settings": self.settings, "options": self.options})
    }

    /// A seed from [`Seed::to_json`]'s form.
    pub fn from_json(v: &Value) -> Option<Self> {
        Some(Self {
            docs: v.get("docs")?.as_array()?.clone(),
            sub: v.get("sub").and_then(Value::as_str).unwrap_or("none").to_owned(),
            settings: v.get("settings").cloned().unwrap_or(Value::Null),
            options: v.get("options").cloned().unwrap_or(Value::Null),
        })
    }

    /// The fuzz input that replays this seed unchanged: its JSON, then a NUL.
    pub fn to_input(&self) -> Vec<u8> {
        let mut bytes = self.to_json().to_string().into_bytes();
        bytes.push(0);
        bytes
    }
}

/// A Pod to mutate when the input carries no readable seed.
pub fn fallback_pod() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "fuzz", "namespace": "default", "uid": "u1", "resourceVersion": "1"},
        "spec": {"nodeName": "n1", "containers": [{"name": "app", "image": "nginx:1.25",
            "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]},
        "status": {"phase": "Running"}
    })
}

/// The seeds of one fixture file for each target it feeds (`area` is its directory under
/// `tests/cases/`). Check fixtures also feed `review` (wrapped in an AdmissionReview).
pub fn seeds_from_case(area: &str, case: &Value) -> Vec<(Target, Seed)> {
    let get = |k: &str| case.get(k).cloned().filter(|v| !v.is_null());
    let settings = get("settings").unwrap_or(Value::Null);
    let sub = case
        .get("subresource")
        .and_then(Value::as_str)
        .unwrap_or("none")
        .to_owned();
    let seed = |docs: Vec<Value>, options: Value| Seed {
        docs,
        sub: sub.clone(),
        settings: settings.clone(),
        options,
    };
    match area {
        "qos" => get("pod")
            .map(|p| {
                let no_defaults = case.get("noDefaults").and_then(Value::as_bool).unwrap_or(false);
                let always = settings
                    .get("alwaysCompute")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                vec![(
                    Target::Qos,
                    seed(
                        vec![p],
                        json!({"applyDefaults": !no_defaults, "alwaysCompute": always}),
                    ),
                )]
            })
            .unwrap_or_default(),
        "allocate" => get("request")
            .map(|r| vec![(Target::Allocate, seed(vec![r], Value::Null))])
            .unwrap_or_default(),
        "statuses" => get("request")
            .map(|r| vec![(Target::Statuses, seed(vec![r], Value::Null))])
            .unwrap_or_default(),
        "coverage" => match get("request") {
            Some(Value::Object(o)) if o.contains_key("configs") => {
                let configs = o.get("configs").cloned().unwrap_or(Value::Null);
                let scope = o.get("scope").cloned().unwrap_or(Value::Null);
                vec![(Target::Coverage, seed(vec![configs], json!({"scope": scope})))]
            }
            Some(r) => vec![(Target::Coverage, seed(vec![r], Value::Null))],
            None => Vec::new(),
        },
        "probes" => match (get("old"), get("new")) {
            (Some(o), Some(n)) => vec![(Target::Probes, seed(vec![o, n], Value::Null))],
            _ => Vec::new(),
        },
        _ => {
            let Some(new) = get("new") else {
                return Vec::new();
            };
            let old = get("old");
            let review = admission_review(old.as_ref(), &new, &sub);
            let docs = old.into_iter().chain(std::iter::once(new)).collect();
            vec![
                (Target::Check, seed(docs, Value::Null)),
                (Target::Review, seed(vec![review], Value::Null)),
            ]
        }
    }
}

/// An AdmissionReview for a Pod change (UPDATE with an old Pod, else CREATE).
pub fn admission_review(old: Option<&Value>, new: &Value, sub: &str) -> Value {
    // A workload's review names its kind and resource (`apps/v1`, `deployments`); anything else is
    // sent as a Pod.
    let workload = new
        .get("kind")
        .and_then(Value::as_str)
        .and_then(|k| podmut_core::WORKLOAD_KINDS.iter().find(|i| i.name == k));
    let (group, kind, resource) = match workload {
        Some(i) => (i.group(), i.name, i.resource),
        None => ("", "Pod", "pods"),
    };
    let mut request = json!({
        "uid": "00000000-0000-0000-0000-00000000f022",
        "kind": {"group": group, "version": "v1", "kind": kind},
        "resource": {"group": group, "version": "v1", "resource": resource},
        "name": new.pointer("/metadata/name").cloned().unwrap_or(json!("fuzz")),
        "namespace": "default",
        "operation": if old.is_some() { "UPDATE" } else { "CREATE" },
        "userInfo": {"username": "fuzz"},
        "object": new,
    });
    if let Some(obj) = request.as_object_mut() {
        if let Some(old) = old {
            obj.insert("oldObject".into(), old.clone());
        }
        if sub != "none" && !sub.is_empty() {
            obj.insert("subResource".into(), json!(sub));
        }
    }
    json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request})
}

/// Every seed derived from the fixtures under `cases_dir` (`tests/cases`), by target, in file
/// order (documents given as `base:` + `patch:` expanded).
pub fn seeds_from_cases(cases_dir: &Path) -> Result<BTreeMap<Target, Vec<(String, Seed)>>, String> {
    let mut out: BTreeMap<Target, Vec<(String, Seed)>> = BTreeMap::new();
    for c in podmut_fixtures::load_cases(cases_dir).map_err(|e| e.to_string())? {
        let case = serde_json::to_value(&c.case).map_err(|e| format!("{}: {e}", c.path.display()))?;
        for (target, seed) in seeds_from_case(&c.area, &case) {
            out.entry(target)
                .or_default()
                .push((c.name.replace('/', "-"), seed));
        }
    }
    Ok(out)
}

/// Strings worth trying in names, images, policies and quantities.
const TEXTS: &[&str] = &[
    "",
    "app",
    "sidecar",
    "debug",
    "nginx:1.25",
    "nginx:1.26",
    "registry.example/app@sha256:0000000000000000000000000000000000000000000000000000000000000000",
    "Always",
    "Never",
    "OnFailure",
    "NotRequired",
    "RestartContainer",
    "IfNotPresent",
    "BestEffort",
    "Guaranteed",
    "cpu",
    "memory",
    "-1",
    "UPPER_case",
    "a.b",
    "x/y",
    "\u{0}",
    "é",
    "dynamic",
    "ephemeralcontainers",
    "resize",
    "status",
    "pods",
];

/// Quantities worth trying.
const QUANTITIES: &[&str] = &[
    "0",
    "1",
    "100m",
    "250m",
    "0.5",
    "1e3",
    "64Mi",
    "1Gi",
    "1.5Gi",
    "1Ki",
    "-1",
    "1e100",
    "9223372036854775807",
    "0.000000001",
    "1m",
    "1n",
    "1Ei",
    "abc",
    "",
];

/// Settings keys the edits touch (dotted: `featureGates.X`).
const SETTINGS_KEYS: &[&str] = &[
    "featureGates.DynamicContainers",
    "featureGates.MutableContainerProbes",
    "featureGates.InPlacePodVerticalScaling",
    "featureGates.SidecarContainers",
    "featureGates.PodLevelResources",
    "featureGates.InPlacePodVerticalScalingExclusiveCPUs",
    "featureGates.InPlacePodLevelResourcesVerticalScaling",
    "applyDefaults",
    "allowPrivileged",
    "memoryLimitDecrease",
    "unknownSubresource",
    "removedStatusLimit",
    "maxInputBytes",
];

/// A short string: one from a list of interesting values, or any.
#[derive(Arbitrary, Clone, Debug)]
pub enum Text {
    /// One of a built-in list.
    Pick(u8),
    /// Anything.
    Any(String),
}

impl Text {
    fn value(&self) -> String {
        match self {
            Text::Pick(i) => pick(TEXTS, *i).to_owned(),
            Text::Any(s) => s.clone(),
        }
    }
}

fn pick<'a>(list: &[&'a str], i: u8) -> &'a str {
    list.get(usize::from(i) % list.len().max(1))
        .copied()
        .unwrap_or_default()
}

/// A JSON value to put somewhere.
#[derive(Arbitrary, Clone, Debug)]
pub enum Scalar {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A small integer.
    Small(i8),
    /// A float (non-finite becomes `null`).
    Float(f64),
    /// A string.
    Text(Text),
    /// A quantity string.
    Quantity(Quantity),
    /// `{}`.
    EmptyObject,
    /// `[]`.
    EmptyArray,
}

impl Scalar {
    fn value(&self) -> Value {
        match self {
            Scalar::Null => Value::Null,
            Scalar::Bool(b) => json!(b),
            Scalar::Int(i) => json!(i),
            Scalar::Small(i) => json!(i),
            Scalar::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Scalar::Text(t) => json!(t.value()),
            Scalar::Quantity(q) => q.value(),
            Scalar::EmptyObject => json!({}),
            Scalar::EmptyArray => json!([]),
        }
    }
}

/// A resource quantity.
#[derive(Arbitrary, Clone, Debug)]
pub enum Quantity {
    /// One of a built-in list.
    Pick(u8),
    /// Millicores.
    Milli(u32),
    /// A JSON number.
    Number(i64),
    /// Anything.
    Any(String),
}

impl Quantity {
    fn value(&self) -> Value {
        match self {
            Quantity::Pick(i) => json!(pick(QUANTITIES, *i)),
            Quantity::Milli(m) => json!(format!("{m}m")),
            Quantity::Number(n) => json!(n),
            Quantity::Any(s) => json!(s),
        }
    }
}

/// Which container list.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum List {
    /// `spec.containers`.
    Containers,
    /// `spec.initContainers`.
    InitContainers,
    /// `spec.ephemeralContainers`.
    EphemeralContainers,
}

impl List {
    fn key(self) -> &'static str {
        match self {
            List::Containers => "containers",
            List::InitContainers => "initContainers",
            List::EphemeralContainers => "ephemeralContainers",
        }
    }
}

/// A resource name.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum ResourceName {
    /// `cpu`.
    Cpu,
    /// `memory`.
    Memory,
    /// `ephemeral-storage`.
    EphemeralStorage,
    /// `hugepages-2Mi`.
    Hugepages,
    /// `example.com/gpu`.
    Extended,
}

impl ResourceName {
    fn key(self) -> &'static str {
        match self {
            ResourceName::Cpu => "cpu",
            ResourceName::Memory => "memory",
            ResourceName::EphemeralStorage => "ephemeral-storage",
            ResourceName::Hugepages => "hugepages-2Mi",
            ResourceName::Extended => "example.com/gpu",
        }
    }
}

/// Which probe.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum ProbeKind {
    /// `livenessProbe`.
    Liveness,
    /// `readinessProbe`.
    Readiness,
    /// `startupProbe`.
    Startup,
}

/// A probe's handler.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum Handler {
    /// `exec`.
    Exec,
    /// `httpGet` on a port.
    HttpGet(i32),
    /// `tcpSocket` on a port.
    TcpSocket(i32),
    /// `grpc` on a port.
    Grpc(i32),
    /// No handler.
    None,
    /// Two handlers.
    Two,
}

/// A probe.
#[derive(Arbitrary, Clone, Debug)]
pub struct Probe {
    /// The handler.
    pub handler: Handler,
    /// `periodSeconds`.
    pub period: Option<i32>,
    /// `initialDelaySeconds`.
    pub initial_delay: Option<i32>,
    /// `timeoutSeconds`.
    pub timeout: Option<i32>,
    /// `successThreshold`.
    pub success: Option<i32>,
    /// `failureThreshold`.
    pub failure: Option<i32>,
    /// `terminationGracePeriodSeconds`.
    pub grace: Option<i64>,
}

impl Probe {
    fn value(&self) -> Value {
        let mut p = Map::new();
        let exec = || json!({"command": ["true"]});
        match self.handler {
            Handler::Exec => {
                p.insert("exec".into(), exec());
            }
            Handler::HttpGet(port) => {
                p.insert("httpGet".into(), json!({"path": "/", "port": port}));
            }
            Handler::TcpSocket(port) => {
                p.insert("tcpSocket".into(), json!({"port": port}));
            }
            Handler::Grpc(port) => {
                p.insert("grpc".into(), json!({"port": port}));
            }
            Handler::None => {}
            Handler::Two => {
                p.insert("exec".into(), exec());
                p.insert("tcpSocket".into(), json!({"port": 80}));
            }
        }
        let fields = [
            ("periodSeconds", self.period.map(i64::from)),
            ("initialDelaySeconds", self.initial_delay.map(i64::from)),
            ("timeoutSeconds", self.timeout.map(i64::from)),
            ("successThreshold", self.success.map(i64::from)),
            ("failureThreshold", self.failure.map(i64::from)),
            ("terminationGracePeriodSeconds", self.grace),
        ];
        for (k, v) in fields {
            if let Some(v) = v {
                p.insert(k.into(), json!(v));
            }
        }
        Value::Object(p)
    }
}

/// A change to one container.
#[derive(Arbitrary, Clone, Debug)]
pub enum ContainerOp {
    /// Append a copy of the container (or a minimal one) under a new name.
    Add(Text),
    /// Remove it.
    Remove,
    /// Set its image.
    Image(Text),
    /// Set a request or limit.
    Resource {
        /// A limit (else a request).
        limit: bool,
        /// Which resource.
        name: ResourceName,
        /// The quantity.
        quantity: Quantity,
    },
    /// Remove `resources`.
    DropResources,
    /// Set or remove a probe.
    Probe(ProbeKind, Option<Probe>),
    /// Set or remove the container `restartPolicy`.
    RestartPolicy(Option<Text>),
    /// Rename it.
    Rename(Text),
    /// Set a `resizePolicy` entry.
    ResizePolicy(ResourceName, Text),
    /// Set any field of the container.
    Field(Text, Scalar),
}

/// What to do at a node of a document's JSON tree.
#[derive(Arbitrary, Clone, Debug)]
pub enum TreeOp {
    /// Replace it.
    Replace(Scalar),
    /// Remove it from its parent.
    Delete,
    /// Duplicate it in its parent array (or an array's first element).
    Duplicate,
    /// Empty it (`{}` / `[]`).
    Clear,
}

/// One mutation of the seed.
#[derive(Arbitrary, Clone, Debug)]
pub enum Mutation {
    /// Walk document `doc`'s tree by these choices and change the node reached.
    Tree {
        /// Which document.
        doc: u8,
        /// Child choices.
        walk: Vec<u8>,
        /// The change.
        op: TreeOp,
    },
    /// Change a container of a Pod found in document `doc`.
    Container {
        /// Which document.
        doc: u8,
        /// Which Pod in it.
        pod: u8,
        /// Which list.
        list: List,
        /// Which container.
        index: u8,
        /// The change.
        op: ContainerOp,
    },
    /// Swap the first two documents (old and new).
    SwapDocs,
}

/// The subresource a check or review uses.
#[derive(Arbitrary, Clone, Debug)]
pub enum SubChoice {
    /// The main resource.
    None,
    /// `dynamic`.
    Dynamic,
    /// `ephemeralcontainers`.
    EphemeralContainers,
    /// `resize`.
    Resize,
    /// `status`.
    Status,
    /// Any other string (reviews only).
    Other(Text),
}

/// One settings edit.
#[derive(Arbitrary, Clone, Debug)]
pub struct SettingsEdit {
    /// Which key ([`SETTINGS_KEYS`]).
    pub key: u8,
    /// Its value.
    pub value: Scalar,
}

/// Everything the mutation bytes decode to.
#[derive(Arbitrary, Clone, Debug)]
pub struct Plan {
    /// The mutations, in order (at most [`MAX_MUTATIONS`] are applied).
    pub mutations: Vec<Mutation>,
    /// A subresource other than the seed's.
    pub sub: Option<SubChoice>,
    /// Settings edits.
    pub settings: Vec<SettingsEdit>,
    /// Send the documents as YAML instead of JSON.
    pub yaml: bool,
    /// Flip the qos options.
    pub flip: u8,
}

/// Mutations applied per input at most.
pub const MAX_MUTATIONS: usize = 24;

/// Concrete arguments for one call of a target.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The target.
    pub target: Target,
    /// The document texts, in the target's order (see [`Seed`]).
    pub docs: Vec<String>,
    /// The subresource of a check.
    pub sub: Subresource,
    /// The settings text.
    pub settings: String,
    /// qos: apply defaults.
    pub apply_defaults: bool,
    /// qos: compute even when `status.qosClass` is set.
    pub always_compute: bool,
    /// coverage: the scope.
    pub scope: podmut_core::CoverageScope,
}

/// Split a fuzz input into its seed (if readable) and the mutation bytes.
pub fn split_input(data: &[u8]) -> (Option<Seed>, &[u8]) {
    match data.iter().position(|b| *b == 0) {
        Some(at) => {
            let (head, rest) = data.split_at(at);
            let seed = serde_json::from_slice::<Value>(head)
                .ok()
                .and_then(|v| Seed::from_json(&v));
            (seed, rest.get(1..).unwrap_or_default())
        }
        None => (None, data),
    }
}

/// Decode a whole fuzz input (seed, NUL, plan bytes) into call arguments for `target`.
pub fn generate_from_bytes(target: Target, data: &[u8]) -> Generated {
    let (seed, rest) = split_input(data);
    let seed = seed.unwrap_or_else(|| fallback_seed(target));
    let mut u = Unstructured::new(rest);
    let plan = Plan::arbitrary(&mut u).unwrap_or(Plan {
        mutations: Vec::new(),
        sub: None,
        settings: Vec::new(),
        yaml: false,
        flip: 0,
    });
    generate(target, &seed, &plan)
}

/// A seed for `target` built around [`fallback_pod`].
pub fn fallback_seed(target: Target) -> Seed {
    let pod = fallback_pod();
    let docs = match target {
        Target::Check | Target::Probes => vec![pod.clone(), pod],
        Target::Qos => vec![pod],
        Target::Allocate => {
            vec![json!({"pod": pod, "node": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})]
        }
        Target::Statuses => vec![json!({"pod": pod})],
        Target::Review => vec![admission_review(Some(&pod), &pod, "none")],
        Target::Coverage => vec![json!([])],
    };
    Seed {
        docs,
        sub: "none".into(),
        settings: Value::Null,
        options: Value::Null,
    }
}

/// Apply `plan` to `seed` and render the call arguments for `target`.
pub fn generate(target: Target, seed: &Seed, plan: &Plan) -> Generated {
    let mut docs = seed.docs.clone();
    for m in plan.mutations.iter().take(MAX_MUTATIONS) {
        apply(&mut docs, m);
    }
    let mut sub_name = seed.sub.clone();
    if let Some(choice) = &plan.sub {
        sub_name = match choice {
            SubChoice::None => "none".into(),
            SubChoice::Dynamic => "dynamic".into(),
            SubChoice::EphemeralContainers => "ephemeralcontainers".into(),
            SubChoice::Resize => "resize".into(),
            SubChoice::Status => "status".into(),
            SubChoice::Other(t) => t.value(),
        };
        if target == Target::Review
            && let Some(req) = docs
                .first_mut()
                .and_then(|d| d.get_mut("request"))
                .and_then(Value::as_object_mut)
        {
            req.insert("subResource".into(), json!(sub_name));
        }
    }
    let sub = sub_name.parse::<Subresource>().unwrap_or(Subresource::None);
    let mut settings = seed.settings.clone();
    for edit in &plan.settings {
        set_dotted(&mut settings, pick(SETTINGS_KEYS, edit.key), edit.value.value());
    }
    let render = |v: &Value| {
        if plan.yaml {
            serde_yaml_ng::to_string(v).unwrap_or_default()
        } else {
            v.to_string()
        }
    };
    let option = |k: &str, default: bool| seed.options.get(k).and_then(Value::as_bool).unwrap_or(default);
    let scope_value = seed.options.get("scope").cloned().unwrap_or(Value::Null);
    Generated {
        target,
        docs: docs.iter().map(render).collect(),
        sub,
        settings: if settings.is_null() {
            String::new()
        } else {
            render(&settings)
        },
        apply_defaults: option("applyDefaults", true) ^ (plan.flip & 1 == 1),
        always_compute: option("alwaysCompute", false) ^ (plan.flip & 2 == 2),
        scope: podmut_core::CoverageScope {
            namespace_labels: labels(&scope_value, "namespaceLabels"),
            pod_labels: labels(&scope_value, "podLabels"),
            pod_name: scope_value
                .get("podName")
                .and_then(Value::as_str)
                .map(str::to_owned),
        },
    }
}

fn labels(scope: &Value, key: &str) -> Option<BTreeMap<String, String>> {
    let obj = scope.get(key)?.as_object()?;
    Some(
        obj.iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
            .collect(),
    )
}

fn set_dotted(root: &mut Value, key: &str, value: Value) {
    if !root.is_object() {
        *root = json!({});
    }
    let mut node = root;
    let mut parts = key.split('.').peekable();
    while let Some(part) = parts.next() {
        let Some(obj) = node.as_object_mut() else {
            return;
        };
        if parts.peek().is_none() {
            obj.insert(part.into(), value);
            return;
        }
        let next = obj.entry(part).or_insert_with(|| json!({}));
        if !next.is_object() {
            *next = json!({});
        }
        node = next;
    }
}

fn pick_index(len: usize, choice: u8) -> Option<usize> {
    (len > 0).then(|| usize::from(choice) % len)
}

fn apply(docs: &mut [Value], m: &Mutation) {
    match m {
        Mutation::SwapDocs => {
            if docs.len() >= 2 {
                docs.swap(0, 1);
            }
        }
        Mutation::Tree { doc, walk, op } => {
            if let Some(i) = pick_index(docs.len(), *doc)
                && let Some(d) = docs.get_mut(i)
            {
                tree_op(d, walk, op);
            }
        }
        Mutation::Container {
            doc,
            pod,
            list,
            index,
            op,
        } => {
            let Some(d) = pick_index(docs.len(), *doc).and_then(|i| docs.get_mut(i)) else {
                return;
            };
            let mut pods = Vec::new();
            find_pods(d, "", &mut pods);
            let Some(ptr) = pick_index(pods.len(), *pod).and_then(|i| pods.get(i)) else {
                return;
            };
            if let Some(p) = d.pointer_mut(ptr) {
                container_op(p, *list, *index, op);
            }
        }
    }
}

/// JSON pointers of the Pod-like objects (with `spec.containers`) in `v`, at most 8.
fn find_pods(v: &Value, at: &str, out: &mut Vec<String>) {
    if out.len() >= 8 {
        return;
    }
    match v {
        Value::Object(o) => {
            if o.get("spec").and_then(|s| s.get("containers")).is_some() {
                out.push(at.to_owned());
            }
            for (k, child) in o {
                let key = k.replace('~', "~0").replace('/', "~1");
                find_pods(child, &format!("{at}/{key}"), out);
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                find_pods(child, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

fn tree_op(root: &mut Value, walk: &[u8], op: &TreeOp) {
    // Walk (read-only) to the parent of the target node, as a JSON pointer; the last step picks
    // the child the op applies to.
    let steps: Vec<u8> = walk.iter().copied().take(16).collect();
    let Some((last, parents)) = steps.split_last() else {
        if let TreeOp::Replace(s) = op {
            *root = s.value();
        }
        return;
    };
    let mut pointer = String::new();
    let mut at: &Value = root;
    for step in parents {
        let next = match at {
            Value::Object(o) => pick_index(o.len(), *step)
                .and_then(|i| o.iter().nth(i))
                .map(|(k, v)| (k.replace('~', "~0").replace('/', "~1"), v)),
            Value::Array(a) => pick_index(a.len(), *step).and_then(|i| a.get(i).map(|v| (i.to_string(), v))),
            _ => None,
        };
        match next {
            Some((key, n)) if n.is_object() || n.is_array() => {
                pointer.push('/');
                pointer.push_str(&key);
                at = n;
            }
            _ => break,
        }
    }
    let Some(node) = root.pointer_mut(&pointer) else {
        return;
    };
    match node {
        Value::Object(o) => {
            let Some(key) = pick_index(o.len(), *last).and_then(|i| o.keys().nth(i).cloned()) else {
                if let TreeOp::Replace(s) = op {
                    o.insert("x".into(), s.value());
                }
                return;
            };
            match op {
                TreeOp::Replace(s) => {
                    o.insert(key, s.value());
                }
                TreeOp::Delete => {
                    o.remove(&key);
                }
                TreeOp::Duplicate => {
                    if let Some(Value::Array(a)) = o.get_mut(&key)
                        && let Some(first) = a.first().cloned()
                    {
                        a.push(first);
                    }
                }
                TreeOp::Clear => {
                    if let Some(v) = o.get_mut(&key) {
                        clear(v);
                    }
                }
            }
        }
        Value::Array(a) => {
            let Some(i) = pick_index(a.len(), *last) else {
                if let TreeOp::Replace(s) = op {
                    a.push(s.value());
                }
                return;
            };
            match op {
                TreeOp::Replace(s) => {
                    if let Some(slot) = a.get_mut(i) {
                        *slot = s.value();
                    }
                }
                TreeOp::Delete => {
                    a.remove(i);
                }
                TreeOp::Duplicate => {
                    if let Some(v) = a.get(i).cloned() {
                        a.insert(i, v);
                    }
                }
                TreeOp::Clear => {
                    if let Some(v) = a.get_mut(i) {
                        clear(v);
                    }
                }
            }
        }
        other => {
            if let TreeOp::Replace(s) = op {
                *other = s.value();
            }
        }
    }
}

fn clear(v: &mut Value) {
    match v {
        Value::Object(o) => o.clear(),
        Value::Array(a) => a.clear(),
        other => *other = Value::Null,
    }
}

fn container_op(pod: &mut Value, list: List, index: u8, op: &ContainerOp) {
    let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    let entry = spec.entry(list.key()).or_insert_with(|| json!([]));
    let Some(containers) = entry.as_array_mut() else {
        return;
    };
    if let ContainerOp::Add(name) = op {
        let mut c = containers
            .first()
            .cloned()
            .unwrap_or_else(|| json!({"image": "busybox:1.36"}));
        if let Some(o) = c.as_object_mut() {
            o.insert("name".into(), json!(name.value()));
        }
        containers.push(c);
        return;
    }
    let Some(i) = pick_index(containers.len(), index) else {
        return;
    };
    if let ContainerOp::Remove = op {
        containers.remove(i);
        return;
    }
    let Some(c) = containers.get_mut(i).and_then(Value::as_object_mut) else {
        return;
    };
    match op {
        ContainerOp::Add(_) | ContainerOp::Remove => {}
        ContainerOp::Image(t) => {
            c.insert("image".into(), json!(t.value()));
        }
        ContainerOp::Resource {
            limit,
            name,
            quantity,
        } => {
            let res = c.entry("resources").or_insert_with(|| json!({}));
            set_dotted(
                res,
                &format!("{}.{}", if *limit { "limits" } else { "requests" }, name.key()),
                quantity.value(),
            );
        }
        ContainerOp::DropResources => {
            c.remove("resources");
        }
        ContainerOp::Probe(kind, probe) => {
            let key = match kind {
                ProbeKind::Liveness => "livenessProbe",
                ProbeKind::Readiness => "readinessProbe",
                ProbeKind::Startup => "startupProbe",
            };
            match probe {
                Some(p) => {
                    c.insert(key.into(), p.value());
                }
                None => {
                    c.remove(key);
                }
            }
        }
        ContainerOp::RestartPolicy(p) => match p {
            Some(t) => {
                c.insert("restartPolicy".into(), json!(t.value()));
            }
            None => {
                c.remove("restartPolicy");
            }
        },
        ContainerOp::Rename(t) => {
            c.insert("name".into(), json!(t.value()));
        }
        ContainerOp::ResizePolicy(name, t) => {
            c.insert(
                "resizePolicy".into(),
                json!([{"resourceName": name.key(), "restartPolicy": t.value()}]),
            );
        }
        ContainerOp::Field(k, v) => {
            c.insert(k.value(), v.value());
        }
    }
}

/// Call podmut-core's entry point for `g`. Errors and denials are answers; only a panic is a bug.
pub fn run_native(g: &Generated) {
    let doc = |i: usize| g.docs.get(i).map(String::as_str).unwrap_or_default();
    match g.target {
        Target::Check => {
            let (old, new) = match g.docs.len() {
                0 | 1 => (None, doc(0)),
                _ => (Some(doc(0)), doc(1)),
            };
            let _ = podmut_core::check_documents(old, new, g.sub, &g.settings);
        }
        Target::Qos => {
            let _ = podmut_core::qos_document(doc(0), g.apply_defaults, g.always_compute);
        }
        Target::Allocate => {
            if let Ok(d) = podmut_core::allocate_document(doc(0)) {
                let _ = d.allocated_pod_json();
            }
            let _ = podmut_core::retry_order_document(doc(0));
        }
        Target::Probes => {
            let _ = podmut_core::probe_plan_documents(doc(0), doc(1), &g.settings);
        }
        Target::Statuses => {
            let _ = podmut_core::container_statuses_document(doc(0));
        }
        Target::Review => {
            let _ = podmut_core::review(doc(0), &g.settings);
        }
        Target::Coverage => {
            let _ = podmut_core::coverage(doc(0), &g.scope);
        }
    }
}

/// The raw-bytes parser target: the first byte picks an entry point, the rest (as text, lossily
/// decoded) is every document it reads.
pub fn run_raw(data: &[u8]) {
    let Some((which, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let t = text.as_ref();
    match which % 10 {
        0 => {
            let _ = podmut_core::check_documents(None, t, Subresource::None, "");
        }
        1 => {
            let _ = podmut_core::check_documents(Some(t), t, Subresource::None, "");
        }
        2 => {
            let _ = podmut_core::qos_document(t, true, true);
        }
        3 => {
            let _ = podmut_core::allocate_document(t);
        }
        4 => {
            let _ = podmut_core::retry_order_document(t);
        }
        5 => {
            let _ = podmut_core::probe_plan_documents(t, t, "");
        }
        6 => {
            let _ = podmut_core::container_statuses_document(t);
        }
        7 => {
            let _ = podmut_core::review(t, "");
        }
        8 => {
            let _ = podmut_core::coverage(t, &podmut_core::CoverageScope::default());
        }
        _ => {
            let _ = podmut_core::Settings::parse(t);
        }
    }
}

/// A small deterministic PRNG (xorshift64*) for the stable smoke test: no dependency, same bytes
/// on every machine.
#[derive(Clone, Debug)]
pub struct XorShift(u64);

impl XorShift {
    /// A generator from a seed (0 is replaced).
    pub fn new(seed: u64) -> Self {
        Self(if seed == 0 { 0x9E37_79B9_7F4A_7C15 } else { seed })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// `len` random bytes.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len + 8);
        while out.len() < len {
            out.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        out.truncate(len);
        out
    }
}

/// The committed seed corpus (`fuzz/corpus/`).
pub fn corpus_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus")
}

/// The seed files of one corpus directory (`fuzz/corpus/<name>/`), sorted by file name.
///
/// Fails with a message naming the directory when it cannot be read or holds no seeds.
pub fn corpus(name: &str) -> Result<Vec<Vec<u8>>, String> {
    let dir = corpus_dir().join(name);
    let mut files = std::fs::read_dir(&dir)
        .and_then(|entries| {
            entries
                .map(|e| e.map(|e| e.path()))
                .collect::<Result<Vec<_>, _>>()
        })
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    files.sort();
    let seeds = files
        .iter()
        .map(|f| std::fs::read(f).map_err(|e| format!("{}: {e}", f.display())))
        .collect::<Result<Vec<_>, _>>()?;
    if seeds.is_empty() {
        return Err(format!("{}: no seeds", dir.display()));
    }
    Ok(seeds)
}

/// `count` smoke inputs for `target`: corpus seeds in turn, each followed by PRNG bytes for the
/// mutation plan (every tenth input replays its seed unchanged).
pub fn smoke_inputs(target: Target, rng: &mut XorShift, count: usize) -> Result<Vec<Vec<u8>>, String> {
    let seeds = corpus(target.name())?;
    Ok((0..count)
        .map(|i| {
            let mut input = seeds.get(i % seeds.len()).cloned().unwrap_or_default();
            if i % 10 != 0 {
                let len = 8 + usize::try_from(rng.next_u64() % 400).unwrap_or(0);
                input.extend(rng.bytes(len));
            }
            input
        })
        .collect())
}

/// A generated input, readable in a failure message.
pub fn describe(g: &Generated) -> String {
    format!(
        "{:?} sub={:?} settings={}\n{}",
        g.target,
        g.sub,
        g.settings,
        g.docs.join("\n---\n")
    )
}
