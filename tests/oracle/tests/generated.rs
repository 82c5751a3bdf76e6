//! `podmut vap generate`: the generated ValidatingAdmissionPolicies decide as podmut's settings do.
//!
//! - `generated/strict-offline`: `pods/dynamic` does not exist upstream, so the strict profile's
//!   policy is held to podmut's own rules: for every `pods/dynamic` fixture and 3,000 generated
//!   changes (a container with a random security context added beside random containers, sidecars
//!   and a random Pod security context), the rules with the strict profile refuse exactly when the
//!   rules without it refuse or the generated policy, evaluated by podmut's evaluator through the
//!   component, denies;
//! - `generated/accepted/<release>`: every generated policy and binding is created in a control
//!   plane of each release podmut claims (the server compiles each expression on create);
//! - `generated/in-the-server`: with the `allowPrivileged: false` and `memoryLimitDecrease: forbid`
//!   policies installed in a control plane of the newest release (started with
//!   `--allow-privileged=true`, whose resize allows memory-limit decreases), each case on an
//!   upstream path gets the server's verdict that podmut gives with those settings.
//!
//! Without the control-plane binaries or the podmut binary, the cases are reported as ignored, or
//! fail under `PODMUT_REQUIRE_ORACLE=1` ([`podmut_oracle::prerequisite`]).

use std::process::Command;
use std::time::{Duration, Instant};

use http::Method;
use libtest_mimic::{Arguments, Failed, Trial};
use podmut::types::{Subresource, VapRequest};
use podmut_oracle::api::{Api, PodPath};
use podmut_oracle::control_plane::{self, Config, ControlPlane};
use podmut_oracle::prerequisite::Prerequisites;
use podmut_oracle::webhook::podmut_binary;
use podmut_oracle::{Pins, Release, exchange, runtime};
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
    let mut trials: Vec<Trial> = vec![offline.trial("generated/strict-offline", "", || {
        strict_offline().map_err(Failed::from)
    })];
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

fn strict_offline() -> Result<(), String> {
    let policies = generate("securityContextEscalation: forbid\n")?;
    if policies.len() != 2 {
        return Err(format!(
            "expected the strict policy and its binding, got {policies:?}"
        ));
    }
    let policy_text = Value::Array(policies).to_string();
    let rt = podmut_conformance::runtime();
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
        let (old_t, new_t) = (old.to_string(), new.to_string());
        let judge = |s: &Value| rt.check(Some(&old_t), &new_t, Subresource::Dynamic, &s.to_string());
        let (Ok(with), Ok(without)) = (judge(&strict), judge(&base)) else {
            continue;
        };
        let report = rt
            .vap(&VapRequest {
                policies: vec![policy_text.clone()],
                old_object: Some(old_t.clone()),
                object: Some(new_t.clone()),
                subresource: "dynamic".into(),
                review: None,
                params: None,
                namespace_labels: None,
                user: None,
            })
            .map_err(|x| format!("{name}: the policy cannot be evaluated: {x:?}"))?;
        compared += 1;
        refused += usize::from(!with.allowed);
        let combined = without.allowed && report.allowed;
        if with.allowed != combined {
            problems.push(format!(
                "{name}: the strict rules {} it; the rules without the profile {} it and the policy {} it ({:?})\nold: {old}\nnew: {new}\nrules: {}",
                word(with.allowed),
                word(without.allowed),
                word(report.allowed),
                report.decisions.iter().map(|d| &d.message).collect::<Vec<_>>(),
                with.message,
            ));
        }
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
// In the server

/// Every setting that generates a policy.
const ALL_SETTINGS: &str =
    "securityContextEscalation: forbid\nallowPrivileged: false\nmemoryLimitDecrease: forbid\n";

fn uri(o: &Value) -> Result<String, String> {
    let base = "/apis/admissionregistration.k8s.io/v1";
    match o["kind"].as_str() {
        Some("ValidatingAdmissionPolicy") => Ok(format!("{base}/validatingadmissionpolicies")),
        Some("ValidatingAdmissionPolicyBinding") => Ok(format!("{base}/validatingadmissionpolicybindings")),
        other => Err(format!("unexpected kind {other:?}")),
    }
}

async fn create_all(api: &Api, objects: &[Value]) -> Result<(), String> {
    for o in objects {
        let reply = api
            .send(Method::POST, &uri(o)?, Some(o), "application/json")
            .await
            .map_err(e)?;
        if !reply.ok() {
            return Err(format!(
                "create {}: HTTP {}: {}",
                o["metadata"]["name"], reply.code, reply.body
            ));
        }
    }
    Ok(())
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
    let objects = generate(ALL_SETTINGS)?;
    // The API server compiles every expression when a policy is created: a create it accepts is
    // a policy it can run.
    runtime().block_on(create_all(&api, &objects))
}

/// One change on an upstream path, and the settings podmut judges it with.
struct Probe {
    name: &'static str,
    path: &'static str,
    old: Option<Value>,
    new: Value,
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
        },
        Probe {
            name: "a privileged init container",
            path: "",
            old: None,
            new: init,
        },
        Probe {
            name: "a plain create",
            path: "",
            old: None,
            new: plain.clone(),
        },
        Probe {
            name: "a privileged debug container",
            path: "ephemeralcontainers",
            old: Some(plain.clone()),
            new: debug,
        },
        Probe {
            name: "a plain debug container",
            path: "ephemeralcontainers",
            old: Some(plain),
            new: debug_plain,
        },
        Probe {
            name: "a memory limit decrease",
            path: "resize",
            old: Some(sized("128Mi", "NotRequired")),
            new: sized("64Mi", "NotRequired"),
        },
        Probe {
            name: "a memory limit decrease with a restart",
            path: "resize",
            old: Some(sized("128Mi", "RestartContainer")),
            new: sized("64Mi", "RestartContainer"),
        },
        Probe {
            name: "a memory limit increase",
            path: "resize",
            old: Some(sized("128Mi", "NotRequired")),
            new: sized("256Mi", "NotRequired"),
        },
    ]
}

fn in_the_server(release: Release) -> Result<(), String> {
    let (_plane, api) = start(release)?;
    let objects = generate("allowPrivileged: false\nmemoryLimitDecrease: forbid\n")?;
    let settings = json!({"allowPrivileged": false, "memoryLimitDecrease": "forbid", "kubernetesVersion": release.minor_name()});
    let rt = podmut_conformance::runtime();
    runtime().block_on(async {
        create_all(&api, &objects).await?;
        // Policies load asynchronously: wait until a privileged create is refused.
        let ns = exchange::fresh_namespace();
        api.create_namespace(&ns).await.map_err(e)?;
        let deadline = Instant::now() + Duration::from_secs(30);
        let privileged = exchange::in_namespace(&probes()[0].new, &ns);
        loop {
            let reply = api
                .send(
                    Method::POST,
                    &format!("/api/v1/namespaces/{ns}/pods?dryRun=All"),
                    Some(&privileged),
                    "application/json",
                )
                .await
                .map_err(e)?;
            if !reply.ok() {
                break;
            }
            if Instant::now() > deadline {
                return Err("waited 30s for the generated policies to take effect".into());
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let mut problems = Vec::new();
        for p in probes() {
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
