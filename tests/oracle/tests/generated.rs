//! `podmut vap generate`: the generated ValidatingAdmissionPolicies decide as podmut's settings do.
//!
//! - `generated/strict-offline`: `pods/dynamic` does not exist upstream, so the strict profile's
//!   policy is held to podmut's own rules: for every `pods/dynamic` fixture and 3,000 generated
//!   changes (a container with a random security context added beside random containers, sidecars
//!   and a random Pod security context), the rules with the strict profile refuse exactly when the
//!   rules without it refuse or the generated policy, evaluated by podmut's evaluator through the
//!   component, denies;
//! - `generated/guards-offline`: for 3,000 generated resizes, debug containers and metadata
//!   updates, the rules with the guards (`resizeLimits`, `debugContainers`,
//!   `freezeRunningPodMetadata`) refuse exactly when the rules without them refuse or the generated
//!   policy, evaluated through the component, denies;
//! - `generated/accepted/<release>`: every generated policy and binding is created in a control
//!   plane of each release podmut claims (the server compiles each expression on create);
//! - `generated/in-the-server`: with the `allowPrivileged: false`, `memoryLimitDecrease: forbid`
//!   and guard policies installed in a control plane of the newest release (started with
//!   `--allow-privileged=true`, whose resize allows memory-limit decreases), each case on an
//!   upstream path gets the server's verdict that podmut gives with those settings.
//!
//! Without the control-plane binaries or the podmut binary, the cases are reported as ignored, or
//! fail under `PODMUT_REQUIRE_ORACLE=1` ([`podmut_oracle::prerequisite`]).

use std::process::Command;

use http::Method;
use libtest_mimic::{Arguments, Failed, Trial};
use podmut::types::{Subresource, VapReport, VapRequest, Verdict};
use podmut_oracle::api::{Api, PodPath};
use podmut_oracle::control_plane::{self, Config, ControlPlane};
use podmut_oracle::prerequisite::Prerequisites;
use podmut_oracle::webhook::podmut_binary;
use podmut_oracle::{Pins, Release, exchange, policies, runtime};
use serde_json::{Value, json};

fn e(x: impl std::fmt::Display) -> String {
    x.to_string()
}

fn main() -> std::process::ExitCode {
    let args = Arguments::from_args();
    let claimed = Pins::load()
        .map(|pins| podmut_oracle::fixtures::claimed(&pins))
        .unwrap_or_default();
    let binary = podmut_binary().map(|_| ()).map_err(e).err();
    let planes = (if claimed.is_empty() {
        Err("no pinned release podmut claims".to_owned())
    } else {
        claimed
            .iter()
            .try_for_each(|r| control_plane::binaries(*r).map(|_| ()).map_err(e))
    })
    .err()
    .or_else(|| binary.clone());
    let offline = Prerequisites::new(binary);
    let server = Prerequisites::new(planes);
    let mut trials: Vec<Trial> = vec![
        offline.trial("generated/strict-offline", "", || {
            strict_offline().map_err(Failed::from)
        }),
        offline.trial("generated/guards-offline", "", || {
            guards_offline().map_err(Failed::from)
        }),
    ];
    for r in &claimed {
        let release = *r;
        trials.push(
            server.trial(format!("generated/accepted/{release}"), "", move || {
                accepted(release).map_err(Failed::from)
            }),
        );
    }
    if let Some(newest) = claimed.iter().max().copied() {
        trials.push(server.trial("generated/in-the-server", "", move || {
            in_the_server(newest).map_err(Failed::from)
        }));
    }
    libtest_mimic::run(&args, trials).exit_code()
}

/// `podmut vap generate --settings <yaml>`'s objects.
fn generate(settings: &str) -> Result<Vec<Value>, String> {
    let dir = tempfile::tempdir().map_err(e)?;
    let file = dir.path().join("settings.yaml");
    std::fs::write(&file, settings).map_err(e)?;
    let out = Command::new(podmut_binary().map_err(e)?)
        .args(["vap", "generate", "--settings"])
        .arg(&file)
        .args(["-o", "json"])
        .output()
        .map_err(e)?;
    if !out.status.success() {
        return Err(format!(
            "podmut vap generate: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let list: Value = serde_json::from_slice(&out.stdout).map_err(e)?;
    Ok(list["items"].as_array().cloned().unwrap_or_default())
}

// ------------------------------------------------------------------------------------------
// The strict profile, offline

/// A small deterministic generator (xorshift), so a failure names a case that can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        let n = items.len() as u64;
        items[usize::try_from(self.next() % n).unwrap_or_default()].clone()
    }

    fn clone_pick(&mut self, items: &[&str]) -> String {
        self.pick(items).to_owned()
    }

    fn maybe(&mut self, v: Value) -> Option<Value> {
        self.next().is_multiple_of(2).then_some(v)
    }
}

/// A random container security context (fields drawn from small pools, so values repeat across
/// containers as they do in real Pods).
fn container_sc(r: &mut Rng) -> Value {
    let mut sc = serde_json::Map::new();
    let put = |sc: &mut serde_json::Map<String, Value>, k: &str, v: Option<Value>| {
        if let Some(v) = v {
            sc.insert(k.into(), v);
        }
    };
    let add = r.pick(&[
        json!([]),
        json!(["NET_ADMIN"]),
        json!(["SYS_ADMIN"]),
        json!(["ALL"]),
        json!(["cap_net_admin"]),
        json!(["NET_ADMIN", "SYS_TIME"]),
    ]);
    let drop = r.pick(&[
        json!([]),
        json!(["ALL"]),
        json!(["NET_RAW"]),
        json!(["NET_RAW", "MKNOD"]),
        json!(["cap_mknod"]),
        json!(["all"]),
    ]);
    let caps = match r.next() % 4 {
        0 => None,
        1 => Some(json!({"add": add})),
        2 => Some(json!({"drop": drop})),
        _ => Some(json!({"add": add, "drop": drop})),
    };
    put(&mut sc, "capabilities", caps);
    let user = r.pick(&[json!(0), json!(1000), json!(2000)]);
    put(&mut sc, "runAsUser", r.maybe(user));
    let group = r.pick(&[json!(0), json!(1000), json!(3000)]);
    put(&mut sc, "runAsGroup", r.maybe(group));
    let selinux = r.pick(&[
        json!({}),
        json!({"level": "s0:c1,c2"}),
        json!({"user": "u", "type": "t"}),
    ]);
    put(&mut sc, "seLinuxOptions", r.maybe(selinux));
    let seccomp = r.pick(&[
        json!({"type": "RuntimeDefault"}),
        json!({"type": "Localhost", "localhostProfile": "a.json"}),
        json!({"type": "Unconfined"}),
    ]);
    put(&mut sc, "seccompProfile", r.maybe(seccomp));
    let apparmor = r.pick(&[
        json!({"type": "RuntimeDefault"}),
        json!({"type": "Localhost", "localhostProfile": "p"}),
    ]);
    put(&mut sc, "appArmorProfile", r.maybe(apparmor));
    for k in [
        "runAsNonRoot",
        "readOnlyRootFilesystem",
        "allowPrivilegeEscalation",
    ] {
        let b = r.pick(&[json!(true), json!(false)]);
        put(&mut sc, k, r.maybe(b));
    }
    let proc_mount = r.pick(&[json!("Default"), json!("Unmasked")]);
    if r.next().is_multiple_of(6) {
        put(&mut sc, "procMount", Some(proc_mount));
    }
    Value::Object(sc)
}

fn pod_sc(r: &mut Rng) -> Value {
    let mut sc = serde_json::Map::new();
    for (k, pool) in [
        ("runAsUser", vec![json!(0), json!(1000), json!(2000)]),
        ("runAsGroup", vec![json!(1000), json!(3000)]),
        ("runAsNonRoot", vec![json!(true), json!(false)]),
        (
            "seccompProfile",
            vec![json!({"type": "RuntimeDefault"}), json!({"type": "Unconfined"})],
        ),
        ("seLinuxOptions", vec![json!({"level": "s0:c1,c2"})]),
        ("appArmorProfile", vec![json!({"type": "RuntimeDefault"})]),
    ] {
        let v = r.pick(&pool);
        if let Some(v) = r.maybe(v) {
            sc.insert(k.into(), v);
        }
    }
    Value::Object(sc)
}

/// A running Pod with random containers, and the same Pod with a random container added.
fn random_change(r: &mut Rng) -> (Value, Value) {
    let n = 1 + r.next() % 2;
    let containers: Vec<Value> = (0..n)
        .map(|i| json!({"name": format!("c{i}"), "image": "app:1", "securityContext": container_sc(r)}))
        .collect();
    let mut spec = json!({"securityContext": pod_sc(r), "containers": containers});
    let mut statuses: Vec<Value> = (0..n)
        .map(|i| json!({"name": format!("c{i}"), "image": "app:1", "imageID": "", "ready": true, "restartCount": 0, "started": true, "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}}))
        .collect();
    let mut init_statuses = Vec::new();
    if r.next().is_multiple_of(2) {
        spec["initContainers"] = json!([{"name": "sidecar", "image": "side:1", "restartPolicy": "Always", "securityContext": container_sc(r)}]);
        init_statuses.push(json!({"name": "sidecar", "image": "side:1", "imageID": "", "ready": true, "restartCount": 0, "started": true, "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}}));
    }
    let old = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "sandbox", "namespace": "agents", "resourceVersion": "7"},
        "spec": spec,
        "status": {"phase": "Running", "qosClass": "BestEffort",
            "conditions": [{"type": "Initialized", "status": "True"}, {"type": "Ready", "status": "True"}],
            "containerStatuses": statuses.clone(), "initContainerStatuses": init_statuses}});
    let mut new = old.clone();
    statuses.truncate(0);
    // A third of the added containers copy an existing container's security context (what a
    // careful client does, and mostly allowed); the rest get a random one.
    let sc = if r.next().is_multiple_of(3) {
        old["spec"]["containers"][0]["securityContext"].clone()
    } else {
        container_sc(r)
    };
    if let Some(list) = new["spec"]["containers"].as_array_mut() {
        list.push(json!({"name": "added", "image": "tool:1", "securityContext": sc}));
    }
    (old, new)
}

/// Every `pods/dynamic` fixture's (old, new), and the settings it names besides the profile.
fn dynamic_fixtures() -> Result<Vec<(String, Value, Value, Value)>, String> {
    let cases = podmut_fixtures::load_cases(&podmut_fixtures::cases_dir()).map_err(e)?;
    Ok(cases
        .into_iter()
        .filter(|c| c.case.subresource == "dynamic")
        .filter_map(|c| {
            let settings = c.case.settings.clone().unwrap_or_else(|| json!({}));
            Some((c.name, c.case.old?, c.case.new?, settings))
        })
        .collect())
}

/// One change on one path, to be judged three ways through the component.
struct Change<'a> {
    old: &'a Value,
    new: &'a Value,
    sub: Subresource,
    /// The path as the policies' request names it (`""`: the main resource).
    path: &'a str,
}

/// A change judged by the rules with the settings under test, by the rules without them, and by
/// the policies generated for those settings.
struct Judged {
    with: Verdict,
    without: Verdict,
    policies: VapReport,
}

impl Change<'_> {
    /// `None` when the rules cannot judge the change (an input podmut refuses to read).
    fn judge(&self, policies: &str, with: &Value, without: &Value) -> Result<Option<Judged>, String> {
        let rt = podmut_conformance::runtime();
        let (old, new) = (self.old.to_string(), self.new.to_string());
        let check = |s: &Value| rt.check(Some(&old), &new, self.sub, &s.to_string());
        let (Ok(with), Ok(without)) = (check(with), check(without)) else {
            return Ok(None);
        };
        let policies = rt
            .vap(&VapRequest {
                policies: vec![policies.to_owned()],
                old_object: Some(old.clone()),
                object: Some(new.clone()),
                subresource: self.path.into(),
                review: None,
                params: None,
                namespace_labels: None,
                user: None,
            })
            .map_err(|x| format!("the policies cannot be evaluated on {new}: {x:?}"))?;
        Ok(Some(Judged {
            with,
            without,
            policies,
        }))
    }
}

impl Judged {
    /// The settings' rules must refuse exactly when the rules without them refuse or the
    /// policies deny; otherwise, the difference in words.
    fn difference(&self, name: &str, what: &str, change: &Change<'_>) -> Option<String> {
        (self.with.allowed != (self.without.allowed && self.policies.allowed)).then(|| {
            format!(
                "{name}: the rules with {what} {} it; without them {} it and the policies {} it ({:?})\nold: {}\nnew: {}\nrules: {}",
                word(self.with.allowed),
                word(self.without.allowed),
                word(self.policies.allowed),
                self.policies.decisions.iter().map(|d| &d.message).collect::<Vec<_>>(),
                change.old,
                change.new,
                self.with.message,
            )
        })
    }
}

fn strict_offline() -> Result<(), String> {
    let policies = generate("securityContextEscalation: forbid\n")?;
    if policies.len() != 2 {
        return Err(format!(
            "expected the strict policy and its binding, got {policies:?}"
        ));
    }
    let policy_text = Value::Array(policies).to_string();
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut changes = dynamic_fixtures()?;
    for i in 0..3000 {
        let (old, new) = random_change(&mut r);
        changes.push((format!("generated #{i}"), old, new, json!({})));
    }
    let (mut compared, mut refused, mut problems) = (0, 0, Vec::new());
    for (name, old, new, settings) in &changes {
        let mut base = settings.clone();
        base["kubernetesVersion"] = json!("preview");
        if let Some(o) = base.as_object_mut() {
            o.remove("securityContextEscalation");
        }
        let mut strict = base.clone();
        strict["securityContextEscalation"] = json!("forbid");
        let change = Change {
            old,
            new,
            sub: Subresource::Dynamic,
            path: "dynamic",
        };
        let Some(j) = change.judge(&policy_text, &strict, &base)? else {
            continue;
        };
        compared += 1;
        refused += usize::from(!j.with.allowed);
        problems.extend(j.difference(name, "the strict profile", &change));
    }
    if compared < 3000 || refused < 300 || compared - refused < 300 {
        return Err(format!(
            "too few cases decide anything: {compared} compared, {refused} refused"
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} of {compared} changes differ:\n{}",
            problems.len(),
            problems.into_iter().take(5).collect::<Vec<_>>().join("\n\n")
        ))
    }
}

fn word(allowed: bool) -> &'static str {
    if allowed { "allows" } else { "refuses" }
}

// ------------------------------------------------------------------------------------------
// The guards, offline

/// [`GUARDS`] as a settings document.
fn guard_settings() -> Result<Value, String> {
    serde_yaml_ng::from_str(GUARDS).map_err(e)
}

/// A Pod running `containers` (and `init`, sidecars), every container started.
fn running(meta: &Value, containers: &[Value], init: &[Value], phase: &str) -> Value {
    // A kubelet that resizes in place reports each running container's resources.
    let status = |c: &Value| {
        let mut st = json!({"name": c["name"], "image": c["image"], "imageID": "", "ready": true, "restartCount": 0, "started": true, "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}});
        if let Some(r) = c.get("resources") {
            st["resources"] = r.clone();
        }
        st
    };
    let mut spec = json!({"containers": containers});
    if !init.is_empty() {
        spec["initContainers"] = json!(init);
    }
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
        "status": {"phase": phase, "qosClass": "Guaranteed",
            "containerStatuses": containers.iter().map(status).collect::<Vec<_>>(),
            "initContainerStatuses": init.iter().map(status).collect::<Vec<_>>()}})
}

const CPUS: [&str; 8] = ["100m", "200m", "300m", "600m", "900m", "1", "1500m", "3"];
const MEMORIES: [&str; 7] = ["64Mi", "128Mi", "300Mi", "1Gi", "2Gi", "2049Mi", "4Gi"];

/// A Guaranteed container of `cpu` and `memory` (requests equal to limits, so a resize keeps the
/// QoS class).
fn sized(name: &str, cpu: &str, memory: &str, sidecar: bool) -> Value {
    let mut c = json!({"name": name, "image": "app:1",
        "resources": {"requests": {"cpu": cpu, "memory": memory}, "limits": {"cpu": cpu, "memory": memory}}});
    if sidecar {
        c["restartPolicy"] = json!("Always");
    }
    c
}

/// Makes random (old, new) changes.
type Generator = fn(&mut Rng) -> (Value, Value);

/// A running Pod and the same Pod with every container's cpu and memory drawn again.
fn random_resize(r: &mut Rng) -> (Value, Value) {
    let meta = json!({"name": "web", "namespace": "shop", "resourceVersion": "7"});
    let n = 1 + r.next() % 2;
    let draw =
        |r: &mut Rng, name: String, sidecar: bool| sized(&name, r.pick(&CPUS), r.pick(&MEMORIES), sidecar);
    let containers: Vec<Value> = (0..n).map(|i| draw(r, format!("c{i}"), false)).collect();
    let init: Vec<Value> = if r.next().is_multiple_of(3) {
        vec![draw(r, "sidecar".into(), true)]
    } else {
        Vec::new()
    };
    let old = running(&meta, &containers, &init, "Running");
    let mut new = old.clone();
    for list in ["containers", "initContainers"] {
        for c in new["spec"][list].as_array_mut().into_iter().flatten() {
            if r.next().is_multiple_of(4) {
                continue;
            }
            let (cpu, memory) = (r.pick(&CPUS), r.pick(&MEMORIES));
            c["resources"] =
                json!({"requests": {"cpu": cpu, "memory": memory}, "limits": {"cpu": cpu, "memory": memory}});
        }
    }
    (old, new)
}

/// A random debug container's security context: privileged or not, capabilities added or not.
fn debug_sc(r: &mut Rng) -> Option<Value> {
    let privileged = r.pick(&[json!(true), json!(false), Value::Null]);
    let add = r.pick(&[
        json!(["SYS_ADMIN"]),
        json!([]),
        Value::Null,
        json!(["NET_ADMIN", "SYS_PTRACE"]),
    ]);
    let mut sc = serde_json::Map::new();
    if !privileged.is_null() {
        sc.insert("privileged".into(), privileged);
    }
    if !add.is_null() {
        sc.insert("capabilities".into(), json!({"add": add}));
    }
    r.maybe(Value::Object(sc))
}

/// A running Pod, perhaps labelled for break-glass and with a debug container already, and the
/// same Pod with a debug container added.
fn random_debug(r: &mut Rng) -> (Value, Value) {
    let mut meta = json!({"name": "web", "namespace": "shop", "resourceVersion": "7"});
    let glass = json!(r.clone_pick(&["true", "false", "yes"]));
    if let Some(v) = r.maybe(glass) {
        meta["labels"] = json!({"podmut.io/break-glass": v});
    }
    let mut old = running(&meta, &[json!({"name": "app", "image": "app:1"})], &[], "Running");
    let debug = |name: &str, sc: Option<Value>| {
        let mut d = json!({"name": name, "image": "busybox:1.36", "targetContainerName": "app"});
        if let Some(sc) = sc {
            d["securityContext"] = sc;
        }
        d
    };
    if r.next().is_multiple_of(3) {
        let sc = debug_sc(r);
        old["spec"]["ephemeralContainers"] = json!([debug("earlier", sc)]);
    }
    let mut new = old.clone();
    let added = debug("debugger", debug_sc(r));
    match new["spec"]["ephemeralContainers"].as_array_mut() {
        Some(list) => list.push(added),
        None => new["spec"]["ephemeralContainers"] = json!([added]),
    }
    (old, new)
}

/// Random labels or annotations from small pools (absent a third of the time).
fn small_map(r: &mut Rng, keys: &[&str]) -> Option<Value> {
    let mut m = serde_json::Map::new();
    for k in keys {
        let value = json!(r.clone_pick(&["a", "b"]));
        if let Some(v) = r.maybe(value) {
            m.insert((*k).to_owned(), v);
        }
    }
    (!r.next().is_multiple_of(3)).then_some(Value::Object(m))
}

/// A Pod in a random phase and the same Pod with its labels, annotations or image changed.
fn random_metadata(r: &mut Rng) -> (Value, Value) {
    let mut meta = json!({"name": "web", "namespace": "shop", "resourceVersion": "7"});
    let phase = r.clone_pick(&["Running", "Running", "Pending", "Succeeded"]);
    let draw_meta = |meta: &mut Value, r: &mut Rng| {
        match small_map(r, &["app", "tier"]) {
            Some(l) => meta["labels"] = l,
            None => drop(meta.as_object_mut().map(|m| m.remove("labels"))),
        }
        match small_map(r, &["team", "note"]) {
            Some(a) => meta["annotations"] = a,
            None => drop(meta.as_object_mut().map(|m| m.remove("annotations"))),
        }
    };
    draw_meta(&mut meta, r);
    let old = running(&meta, &[json!({"name": "app", "image": "app:1"})], &[], &phase);
    let mut new = old.clone();
    if r.next().is_multiple_of(2) {
        draw_meta(&mut new["metadata"], r);
    }
    if r.next().is_multiple_of(2) {
        new["spec"]["containers"][0]["image"] = json!("app:2");
    }
    (old, new)
}

fn guards_offline() -> Result<(), String> {
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    let guards = guard_settings()?;
    let kinds: [(&str, Subresource, Generator); 3] = [
        ("resize", Subresource::Resize, random_resize),
        (
            "ephemeralcontainers",
            Subresource::EphemeralContainers,
            random_debug,
        ),
        ("", Subresource::None, random_metadata),
    ];
    let mut problems = Vec::new();
    let mut summary = Vec::new();
    for (path, sub, change) in kinds {
        let resource = if path.is_empty() {
            "pods".to_owned()
        } else {
            format!("pods/{path}")
        };
        let policies = Value::Array(generate(GUARDS)?).to_string();
        let (mut compared, mut refused, mut by_guard) = (0, 0, 0);
        let mut first_refusal = None;
        for i in 0..1000 {
            let (old, new) = change(&mut r);
            let change = Change {
                old: &old,
                new: &new,
                sub,
                path,
            };
            let Some(j) = change.judge(&policies, &guards, &json!({}))? else {
                continue;
            };
            compared += 1;
            refused += usize::from(!j.with.allowed);
            by_guard += usize::from(j.without.allowed && !j.with.allowed);
            if !j.without.allowed && first_refusal.is_none() {
                first_refusal = Some(j.without.message.clone());
            }
            problems.extend(j.difference(&format!("{resource} #{i}"), "the guards", &change));
        }
        if compared < 900 || by_guard < 100 || compared - refused < 100 {
            return Err(format!(
                "{resource}: too few cases decide anything: {compared} compared, {refused} refused, {by_guard} by a guard; the first refused without the guards: {first_refusal:?}"
            ));
        }
        summary.push(format!(
            "{resource}: {compared} compared, {by_guard} refused by a guard"
        ));
    }
    if problems.is_empty() {
        eprintln!("{}", summary.join("; "));
        Ok(())
    } else {
        Err(format!(
            "{} changes differ:\n{}",
            problems.len(),
            problems.into_iter().take(5).collect::<Vec<_>>().join("\n\n")
        ))
    }
}

/// The guards' changes on upstream paths, for the server with the generated policies.
fn guard_probes() -> Vec<Probe> {
    let meta = json!({"name": "p"});
    let one = |cpu: &str, memory: &str| running(&meta, &[sized("a", cpu, memory, false)], &[], "Running");
    let debug = |labels: Value, sc: Value| {
        let mut old = pod(&json!([{"name": "a", "image": "busybox"}]));
        if !labels.is_null() {
            old["metadata"]["labels"] = labels;
        }
        let mut new = old.clone();
        new["spec"]["ephemeralContainers"] =
            json!([{"name": "d", "image": "busybox", "securityContext": sc}]);
        (old, new)
    };
    let (caps_old, caps_new) = debug(Value::Null, json!({"capabilities": {"add": ["SYS_ADMIN"]}}));
    let (glass_old, glass_new) = debug(
        json!({"podmut.io/break-glass": "true"}),
        json!({"capabilities": {"add": ["SYS_ADMIN"]}}),
    );
    let labelled = |phase: &str, labels: Value| {
        let meta = json!({"name": "p", "labels": labels});
        running(&meta, &[json!({"name": "a", "image": "busybox"})], &[], phase)
    };
    vec![
        Probe {
            name: "a resize more than tripling the cpu",
            path: "resize",
            old: Some(one("100m", "128Mi")),
            new: one("400m", "128Mi"),
            allowed: false,
        },
        Probe {
            name: "a resize tripling the cpu exactly",
            path: "resize",
            old: Some(one("300m", "128Mi")),
            new: one("900m", "128Mi"),
            allowed: true,
        },
        Probe {
            name: "a resize above the memory ceiling",
            path: "resize",
            old: Some(one("100m", "1Gi")),
            new: one("100m", "2049Mi"),
            allowed: false,
        },
        Probe {
            name: "a debug container adding a capability",
            path: "ephemeralcontainers",
            old: Some(caps_old),
            new: caps_new,
            allowed: false,
        },
        Probe {
            name: "a debug container adding a capability to a break-glass Pod",
            path: "ephemeralcontainers",
            old: Some(glass_old),
            new: glass_new,
            allowed: true,
        },
        Probe {
            name: "a running Pod relabelled",
            path: "",
            old: Some(labelled("Running", json!({"app": "web"}))),
            new: labelled("Running", json!({"app": "web", "canary": "true"})),
            allowed: false,
        },
        Probe {
            name: "a pending Pod relabelled",
            path: "",
            old: Some(labelled("Pending", json!({"app": "web"}))),
            new: labelled("Pending", json!({"app": "web", "canary": "true"})),
            allowed: true,
        },
    ]
}

// ------------------------------------------------------------------------------------------
// In the server

/// The guards the offline and in-the-server cases turn on (a step of 3 sums three times).
const GUARDS: &str = "resizeLimits: {maxCpu: '2', maxMemory: 2Gi, maxStep: 3}\n\
    debugContainers: {forbidEscalation: true}\nfreezeRunningPodMetadata: true\n";

/// Every setting that generates a policy.
fn all_settings() -> String {
    format!(
        "securityContextEscalation: forbid\nallowPrivileged: false\nmemoryLimitDecrease: forbid\n{GUARDS}"
    )
}

fn start(release: Release) -> Result<(ControlPlane, Api), String> {
    let plane = runtime()
        .block_on(ControlPlane::start(&Config::stock(release)))
        .map_err(e)?;
    let api = runtime().block_on(plane.client()).map_err(e)?;
    Ok((plane, api))
}

fn accepted(release: Release) -> Result<(), String> {
    let (_plane, api) = start(release)?;
    let objects = generate(&all_settings())?;
    // The API server compiles every expression when a policy is created: a create it accepts is
    // a policy it can run.
    runtime().block_on(policies::create(&api, &objects))
}

/// One change on an upstream path, and the settings podmut judges it with.
struct Probe {
    name: &'static str,
    path: &'static str,
    old: Option<Value>,
    new: Value,
    /// The verdict both must give, so that agreeing is about the rule the probe is for.
    allowed: bool,
}

fn pod(containers: &Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": containers}})
}

fn probes() -> Vec<Probe> {
    let plain = pod(&json!([{"name": "a", "image": "busybox"}]));
    let privileged =
        pod(&json!([{"name": "a", "image": "busybox", "securityContext": {"privileged": true}}]));
    let mut debug = plain.clone();
    debug["spec"]["ephemeralContainers"] =
        json!([{"name": "d", "image": "busybox", "securityContext": {"privileged": true}}]);
    let mut debug_plain = plain.clone();
    debug_plain["spec"]["ephemeralContainers"] = json!([{"name": "d", "image": "busybox"}]);
    let mut init = plain.clone();
    init["spec"]["initContainers"] =
        json!([{"name": "i", "image": "busybox", "securityContext": {"privileged": true}}]);
    let sized = |mem: &str, policy: &str| {
        pod(&json!([{"name": "a", "image": "busybox",
            "resources": {"requests": {"cpu": "100m", "memory": mem}, "limits": {"cpu": "100m", "memory": mem}},
            "resizePolicy": [{"resourceName": "memory", "restartPolicy": policy}]}]))
    };
    vec![
        Probe {
            name: "a privileged create",
            path: "",
            old: None,
            new: privileged,
            allowed: false,
        },
        Probe {
            name: "a privileged init container",
            path: "",
            old: None,
            new: init,
            allowed: false,
        },
        Probe {
            name: "a plain create",
            path: "",
            old: None,
            new: plain.clone(),
            allowed: true,
        },
        Probe {
            name: "a privileged debug container",
            path: "ephemeralcontainers",
            old: Some(plain.clone()),
            new: debug,
            allowed: false,
        },
        Probe {
            name: "a plain debug container",
            path: "ephemeralcontainers",
            old: Some(plain),
            new: debug_plain,
            allowed: true,
        },
        Probe {
            name: "a memory limit decrease",
            path: "resize",
            old: Some(sized("128Mi", "NotRequired")),
            new: sized("64Mi", "NotRequired"),
            allowed: false,
        },
        Probe {
            name: "a memory limit decrease with a restart",
            path: "resize",
            old: Some(sized("128Mi", "RestartContainer")),
            new: sized("64Mi", "RestartContainer"),
            allowed: true,
        },
        Probe {
            name: "a memory limit increase",
            path: "resize",
            old: Some(sized("128Mi", "NotRequired")),
            new: sized("256Mi", "NotRequired"),
            allowed: true,
        },
    ]
}

fn in_the_server(release: Release) -> Result<(), String> {
    let (_plane, api) = start(release)?;
    let objects = generate(&format!(
        "allowPrivileged: false\nmemoryLimitDecrease: forbid\n{GUARDS}"
    ))?;
    let mut settings = guard_settings()?;
    settings["allowPrivileged"] = json!(false);
    settings["memoryLimitDecrease"] = json!("forbid");
    settings["kubernetesVersion"] = json!(release.minor_name());
    let rt = podmut_conformance::runtime();
    runtime().block_on(async {
        policies::create(&api, &objects).await?;
        // Policies load asynchronously: wait until a privileged create is refused.
        let ns = exchange::fresh_namespace();
        api.create_namespace(&ns).await.map_err(e)?;
        let privileged = exchange::in_namespace(&probes()[0].new, &ns);
        policies::wait_until_refused(
            &api,
            Method::POST,
            &format!("/api/v1/namespaces/{ns}/pods?dryRun=All"),
            &privileged,
            "the generated policies",
        )
        .await?;
        let mut problems = Vec::new();
        for p in probes().into_iter().chain(guard_probes()) {
            let ns = exchange::fresh_namespace();
            api.create_namespace(&ns).await.map_err(e)?;
            let path = match (p.path, &p.old) {
                ("", None) => PodPath::Create,
                ("", Some(_)) => PodPath::Update,
                ("resize", _) => PodPath::Resize,
                _ => PodPath::EphemeralContainers,
            };
            let ex = exchange::exchange(&api, &ns, path, p.old.as_ref(), &p.new, "dryRun=All")
                .await
                .map_err(e)?
                .map_err(|reply| format!("{}: the old Pod cannot be created: {}", p.name, reply.body))?;
            let sub = podmut::output::parse_subresource(path.podmut_subresource()).map_err(e)?;
            let old = ex.stored.as_ref().map(Value::to_string);
            let verdict = rt
                .check(old.as_deref(), &ex.sent.to_string(), sub, &settings.to_string())
                .map_err(|x| format!("{}: {x:?}", p.name))?;
            if verdict.allowed != p.allowed {
                problems.push(format!(
                    "{}: podmut {} it, where the probe is for a change that is {}: {}",
                    p.name,
                    word(verdict.allowed),
                    if p.allowed { "allowed" } else { "refused" },
                    verdict.message
                ));
            }
            if verdict.allowed != ex.reply.ok() {
                problems.push(format!(
                    "{}: podmut {} it, the server with the generated policies {} it: {}",
                    p.name,
                    word(verdict.allowed),
                    word(ex.reply.ok()),
                    ex.reply.body
                ));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("\n"))
        }
    })
}
