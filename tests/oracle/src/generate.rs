//! Generated Pod changes: a seeded, deterministic generator of realistic changes on each request
//! path, for the oracle to send to the server and to podmut alike.
//!
//! A case starts from one of the base Pods (`tests/oracle/bases.yaml`: probes, volumes with file
//! modes, env, Guaranteed/Burstable/BestEffort, a sidecar, pod-level resources, Windows, an
//! existing ephemeral container) — as a client writes it for a create, as the server stored it
//! for the other paths — and applies one to three mutations from the path's catalog
//! ([`catalog`]). About half the cases use only mutations meant to be legal; the others include
//! at least one meant to be refused (bad names, quantities, lengths, negative numbers,
//! duplicates, forbidden changes). What is legal is the server's to say: the intent only keeps
//! the mix balanced.
//!
//! The same (path, seed, index) always gives the same case from the same start.

use podmut_fuzzgen::XorShift;
use serde_json::{Value, json};

use crate::api::PodPath;

/// The base Pods, as a client writes them.
pub fn bases() -> Result<Vec<Value>, String> {
    serde_yaml_ng::from_str(include_str!("../bases.yaml")).map_err(|e| format!("bases.yaml: {e}"))
}

/// A base as sent in a create: no status, no ephemeral containers (the create refuses both).
pub fn create_form(base: &Value) -> Value {
    let mut pod = base.clone();
    if let Some(o) = pod.as_object_mut() {
        o.remove("status");
    }
    if let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) {
        spec.remove("ephemeralContainers");
        spec.remove("nodeName");
    }
    pod
}

/// A random source with the helpers the mutations use.
#[derive(Debug, Clone)]
pub struct Rng(XorShift);

impl Rng {
    /// The generator of one case.
    pub fn for_case(path: PodPath, seed: u64, index: u64) -> Self {
        let p = PodPath::ALL.iter().position(|x| *x == path).unwrap_or(0) as u64;
        Self(XorShift::new(
            seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (p + 1).wrapping_mul(0xC2B2_AE3D_27D4_EB4F),
        ))
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        (self.0.next_u64() % n as u64) as usize
    }

    /// True with probability `num/den`.
    pub fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }

    /// One of `words`.
    pub fn word(&mut self, words: &[&'static str]) -> &'static str {
        words[self.below(words.len())]
    }

    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// One mutation of a Pod.
#[derive(Clone, Copy)]
pub struct Mutation {
    /// A stable name (`ctr/image-empty`).
    pub id: &'static str,
    /// The paths it is generated for.
    pub paths: &'static [PodPath],
    /// Whether it is meant to be legal (the server decides).
    pub legal: bool,
    /// Apply it; `false` when it does not apply to this Pod (nothing changed).
    pub apply: fn(&mut Value, &mut Rng) -> bool,
}

impl std::fmt::Debug for Mutation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id)
    }
}

/// One generated case.
#[derive(Clone, Debug, PartialEq)]
pub struct Generated {
    /// The base's name.
    pub base: String,
    /// The mutations applied, in order.
    pub mutations: Vec<&'static str>,
    /// The document to send.
    pub doc: Value,
}

/// Generate case `index` of `seed` on `path` from `start` (the base as a client writes it for a
/// create, as the server stored it otherwise).
pub fn generate(path: PodPath, seed: u64, index: u64, start: &Value) -> Generated {
    let mut rng = Rng::for_case(path, seed, index);
    let all: Vec<&Mutation> = catalog().iter().filter(|m| m.paths.contains(&path)).collect();
    let legal_only = rng.chance(1, 2);
    let count = 1 + rng.below(3);
    let mut doc = start.clone();
    let mut applied = Vec::new();
    let mut attempts = 0;
    while applied.len() < count && attempts < 40 {
        attempts += 1;
        // The last pick of an illegal case is an illegal mutation (at least one per case).
        let want_illegal = !legal_only && applied.len() + 1 == count && !applied_illegal(&applied);
        let pool: Vec<&&Mutation> = all
            .iter()
            .filter(|m| {
                if legal_only {
                    m.legal
                } else if want_illegal {
                    !m.legal
                } else {
                    true
                }
            })
            .collect();
        if pool.is_empty() {
            break;
        }
        let m = **rng.pick(&pool);
        if applied.contains(&m.id) {
            continue;
        }
        if (m.apply)(&mut doc, &mut rng) {
            applied.push(m.id);
        }
    }
    Generated {
        base: doc
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        mutations: applied,
        doc,
    }
}

fn applied_illegal(ids: &[&'static str]) -> bool {
    ids.iter()
        .any(|id| catalog().iter().any(|m| m.id == *id && !m.legal))
}

// ---- helpers -------------------------------------------------------------------------------

/// A JSON Pointer's reference tokens, `~1` and `~0` decoded.
fn tokens(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// `doc[pointer] = value`, creating missing parent objects.
fn set(doc: &mut Value, pointer: &str, value: Value) -> bool {
    let mut cur = doc;
    let parts = tokens(pointer);
    for (i, p) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        match cur {
            Value::Object(m) => {
                if last {
                    m.insert(p.clone(), value);
                    return true;
                }
                cur = m.entry(p.clone()).or_insert_with(|| json!({}));
            }
            Value::Array(a) => {
                let Ok(i) = p.parse::<usize>() else { return false };
                let Some(next) = a.get_mut(i) else { return false };
                if last {
                    *next = value;
                    return true;
                }
                cur = next;
            }
            _ => return false,
        }
    }
    false
}

fn remove(doc: &mut Value, pointer: &str) -> bool {
    let Some((parent, key)) = pointer.rsplit_once('/') else {
        return false;
    };
    match doc.pointer_mut(parent) {
        Some(Value::Object(m)) => m.remove(&key.replace("~1", "/").replace("~0", "~")).is_some(),
        Some(Value::Array(a)) => match key.parse::<usize>() {
            Ok(i) if i < a.len() => {
                a.remove(i);
                true
            }
            _ => false,
        },
        _ => false,
    }
}

fn push(doc: &mut Value, pointer: &str, value: Value) -> bool {
    match doc.pointer_mut(pointer) {
        Some(Value::Array(a)) => {
            a.push(value);
            true
        }
        Some(v @ Value::Null) => {
            *v = json!([value]);
            true
        }
        None => set(doc, pointer, json!([value])),
        _ => false,
    }
}

fn len(doc: &Value, pointer: &str) -> usize {
    doc.pointer(pointer).and_then(Value::as_array).map_or(0, Vec::len)
}

/// A random regular container's pointer (`/spec/containers/1`).
fn ctr(doc: &Value, rng: &mut Rng) -> String {
    format!("/spec/containers/{}", rng.below(len(doc, "/spec/containers")))
}

/// A random init container's pointer, if there is one.
fn init(doc: &Value, rng: &mut Rng) -> Option<String> {
    let n = len(doc, "/spec/initContainers");
    (n > 0).then(|| format!("/spec/initContainers/{}", rng.below(n)))
}

/// A restartable (sidecar) init container's pointer, if there is one.
fn sidecar(doc: &Value) -> Option<String> {
    let inits = doc.pointer("/spec/initContainers")?.as_array()?;
    inits
        .iter()
        .position(|c| c.get("restartPolicy").and_then(Value::as_str) == Some("Always"))
        .map(|i| format!("/spec/initContainers/{i}"))
}

/// A random volume's pointer, if there is one.
fn volume(doc: &Value, rng: &mut Rng) -> Option<String> {
    let n = len(doc, "/spec/volumes");
    (n > 0).then(|| format!("/spec/volumes/{}", rng.below(n)))
}

fn name_at(doc: &Value, pointer: &str) -> String {
    doc.pointer(&format!("{pointer}/name"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn probe_kind(rng: &mut Rng) -> &'static str {
    rng.word(&["livenessProbe", "readinessProbe", "startupProbe"])
}

fn some_quantity(rng: &mut Rng, memory: bool) -> Value {
    if memory {
        json!(rng.pick(&["64Mi", "128Mi", "256Mi", "1Gi", "1.5Gi", "300M", "2Gi"]))
    } else {
        json!(rng.pick(&["50m", "100m", "250m", "500m", "1", "1500m", "2"]))
    }
}

fn bad_quantity(rng: &mut Rng) -> Value {
    json!(rng.pick(&["-1", "-100m", "1.5.5Gi", "12XB", "abc", "1e400"]))
}

fn bad_name(rng: &mut Rng) -> Value {
    json!(rng.pick(&[
        "Bad_Name",
        "-leading",
        "trailing-",
        "UPPER",
        "has space",
        "a.b",
        ""
    ]))
}

const C: PodPath = PodPath::Create;
const U: PodPath = PodPath::Update;
const E: PodPath = PodPath::EphemeralContainers;
const R: PodPath = PodPath::Resize;
const S: PodPath = PodPath::Status;

/// An ephemeral container as `kubectl debug` adds one.
fn debug_container(rng: &mut Rng, doc: &Value) -> Value {
    let n = len(doc, "/spec/ephemeralContainers");
    let target = name_at(doc, "/spec/containers/0");
    let mut c = json!({"name": format!("debugger-{}", n + 2 + rng.below(50)), "image": "busybox:1.36",
        "stdin": true, "tty": true, "terminationMessagePolicy": "File"});
    if rng.chance(1, 2) {
        c["targetContainerName"] = json!(target);
    }
    if rng.chance(1, 3) {
        c["command"] = json!(["sh", "-c", "sleep 3600"]);
    }
    c
}

/// Add an ephemeral container and then change it with `f`.
fn add_ephemeral(doc: &mut Value, rng: &mut Rng, f: fn(&mut Value, &mut Rng)) -> bool {
    let mut c = debug_container(rng, doc);
    f(&mut c, rng);
    push(doc, "/spec/ephemeralContainers", c)
}

/// Set one resource of a container (`requests`/`limits`, `cpu`/`memory`).
fn set_resource(doc: &mut Value, c: &str, kind: &str, resource: &str, value: Value) -> bool {
    set(doc, &format!("{c}/resources/{kind}/{resource}"), value)
}

/// The catalog: every mutation, each for the paths whose rules govern the field.
#[expect(clippy::too_many_lines, reason = "one table of small entries")]
pub fn catalog() -> &'static [Mutation] {
    const M: &[Mutation] = &[
        // ---- metadata ----
        Mutation {
            id: "meta/label-add",
            paths: &[C, U],
            legal: true,
            apply: |d, r| {
                set(
                    d,
                    "/metadata/labels/version",
                    json!(r.pick(&["v1", "v2", "canary"])),
                )
            },
        },
        Mutation {
            id: "meta/label-bad-key",
            paths: &[C, U],
            legal: false,
            apply: |d, r| {
                set(
                    d,
                    &format!(
                        "/metadata/labels/{}",
                        r.pick(&["bad key", "-x", "a~1b~1c", "example.com~1"])
                    ),
                    json!("x"),
                )
            },
        },
        Mutation {
            id: "meta/label-long-value",
            paths: &[C, U],
            legal: false,
            apply: |d, _| set(d, "/metadata/labels/long", json!("v".repeat(64))),
        },
        Mutation {
            id: "meta/label-remove",
            paths: &[U],
            legal: true,
            apply: |d, _| remove(d, "/metadata/labels/app"),
        },
        Mutation {
            id: "meta/annotation-add",
            paths: &[C, U],
            legal: true,
            apply: |d, _| set(d, "/metadata/annotations/example.com~1owner", json!("team-a")),
        },
        Mutation {
            id: "meta/annotation-bad-key",
            paths: &[C, U],
            legal: false,
            apply: |d, _| set(d, "/metadata/annotations/_bad", json!("x")),
        },
        Mutation {
            id: "meta/deletion-cost",
            paths: &[C, U],
            legal: true,
            apply: |d, r| {
                set(
                    d,
                    "/metadata/annotations/controller.kubernetes.io~1pod-deletion-cost",
                    json!(r.pick(&["5", "-3", "2147483647"])),
                )
            },
        },
        Mutation {
            id: "meta/deletion-cost-bad",
            paths: &[C, U],
            legal: false,
            apply: |d, r| {
                set(
                    d,
                    "/metadata/annotations/controller.kubernetes.io~1pod-deletion-cost",
                    json!(r.pick(&["abc", "1.5", "2147483648"])),
                )
            },
        },
        Mutation {
            id: "meta/name-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| set(d, "/metadata/name", bad_name(r)),
        },
        Mutation {
            id: "meta/name-long",
            paths: &[C],
            legal: false,
            apply: |d, _| set(d, "/metadata/name", json!("p".repeat(254))),
        },
        Mutation {
            id: "meta/generate-name",
            paths: &[C],
            legal: true,
            apply: |d, _| remove(d, "/metadata/name") && set(d, "/metadata/generateName", json!("gen-")),
        },
        Mutation {
            id: "meta/finalizer-add",
            paths: &[C, U],
            legal: true,
            apply: |d, _| push(d, "/metadata/finalizers", json!("example.com/cleanup")),
        },
        Mutation {
            id: "meta/finalizer-bad",
            paths: &[C, U],
            legal: false,
            apply: |d, r| {
                push(
                    d,
                    "/metadata/finalizers",
                    json!(r.pick(&["no-domain", "Example.com/x", "a/b/c"])),
                )
            },
        },
        Mutation {
            id: "meta/owner-reference",
            paths: &[C, U],
            legal: true,
            apply: |d, _| {
                push(
                    d,
                    "/metadata/ownerReferences",
                    json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d4f", "uid": "8d0e1f7a-0000-4000-8000-000000000001", "controller": true}),
                )
            },
        },
        Mutation {
            id: "meta/owner-reference-bad",
            paths: &[C, U],
            legal: false,
            apply: |d, r| {
                push(
                    d,
                    "/metadata/ownerReferences",
                    if r.chance(1, 2) {
                        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d4f", "uid": ""})
                    } else {
                        json!({"apiVersion": "", "kind": "", "name": "", "uid": "u"})
                    },
                )
            },
        },
        Mutation {
            id: "meta/uid-change",
            paths: &[U],
            legal: false,
            apply: |d, _| set(d, "/metadata/uid", json!("00000000-0000-4000-8000-000000000000")),
        },
        Mutation {
            id: "meta/generation-set",
            paths: &[U, S],
            legal: true,
            apply: |d, r| set(d, "/metadata/generation", json!(r.pick(&[0, 7, 1]))),
        },
        Mutation {
            id: "meta/namespace-change",
            paths: &[U],
            legal: false,
            apply: |d, _| set(d, "/metadata/namespace", json!("elsewhere")),
        },
        Mutation {
            id: "meta/creation-timestamp-change",
            paths: &[U],
            legal: true,
            apply: |d, _| set(d, "/metadata/creationTimestamp", json!("2020-01-01T00:00:00Z")),
        },
        // ---- containers ----
        Mutation {
            id: "ctr/image-change",
            paths: &[U],
            legal: true,
            apply: |d, r| {
                let c = ctr(d, r);
                set(d, &format!("{c}/image"), json!(r.pick(&["nginx:1.28", "registry.example.com/app@sha256:0000000000000000000000000000000000000000000000000000000000000000", "app:2.0.1"])))
            },
        },
        Mutation {
            id: "ctr/image-empty",
            paths: &[C, U],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                set(d, &format!("{c}/image"), json!(r.pick(&["", " "])))
            },
        },
        Mutation {
            id: "ctr/image-whitespace",
            paths: &[C, U],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                set(
                    d,
                    &format!("{c}/image"),
                    json!(r.pick(&[" nginx", "nginx ", "nginx\t"])),
                )
            },
        },
        Mutation {
            id: "ctr/name-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                set(d, &format!("{c}/name"), bad_name(r))
            },
        },
        Mutation {
            id: "ctr/name-duplicate",
            paths: &[C],
            legal: false,
            apply: |d, _| {
                let n = name_at(d, "/spec/containers/0");
                push(d, "/spec/containers", json!({"name": n, "image": "busybox"}))
            },
        },
        Mutation {
            id: "ctr/add",
            paths: &[C, U],
            legal: true,
            apply: |d, r| {
                push(
                    d,
                    "/spec/containers",
                    json!({"name": format!("extra-{}", r.below(9)), "image": "busybox:1.36", "command": ["sleep", "infinity"]}),
                )
            },
        },
        Mutation {
            id: "ctr/remove",
            paths: &[C, U],
            legal: false,
            apply: |d, _| {
                let n = len(d, "/spec/containers");
                n > 0 && remove(d, &format!("/spec/containers/{}", n - 1))
            },
        },
        Mutation {
            id: "ctr/command-change",
            paths: &[U],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                set(d, &format!("{c}/command"), json!(["/bin/other"]))
            },
        },
        Mutation {
            id: "ctr/port-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                push(
                    d,
                    &format!("{c}/ports"),
                    json!({"containerPort": r.pick(&[0, -1, 65536, 70000])}),
                )
            },
        },
        Mutation {
            id: "ctr/port-add",
            paths: &[C, U],
            legal: true,
            apply: |d, r| {
                let c = ctr(d, r);
                push(
                    d,
                    &format!("{c}/ports"),
                    json!({"name": "metrics", "containerPort": 9090}),
                )
            },
        },
        Mutation {
            id: "ctr/port-name-duplicate",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                push(
                    d,
                    &format!("{c}/ports"),
                    json!({"name": "dup", "containerPort": 81}),
                ) && push(
                    d,
                    &format!("{c}/ports"),
                    json!({"name": "dup", "containerPort": 82}),
                )
            },
        },
        Mutation {
            id: "ctr/port-name-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                push(
                    d,
                    &format!("{c}/ports"),
                    json!({"name": r.pick(&["Http", "toolongportname1", "1234", "a_b"]), "containerPort": 83}),
                )
            },
        },
        Mutation {
            id: "ctr/port-protocol-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                push(
                    d,
                    &format!("{c}/ports"),
                    json!({"containerPort": 84, "protocol": r.pick(&["HTTP", "tcp", ""])}),
                )
            },
        },
        Mutation {
            id: "ctr/host-port",
            paths: &[C],
            legal: true,
            apply: |d, r| {
                let c = ctr(d, r);
                push(
                    d,
                    &format!("{c}/ports"),
                    json!({"containerPort": 8443, "hostPort": 443}),
                )
            },
        },
        Mutation {
            id: "ctr/env-add",
            paths: &[C],
            legal: true,
            apply: |d, r| {
                let c = ctr(d, r);
                push(
                    d,
                    &format!("{c}/env"),
                    json!({"name": r.pick(&["LOG_LEVEL", "my.var", "a-b", "_X"]), "value": "debug"}),
                )
            },
        },
        Mutation {
            id: "ctr/env-name-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                push(
                    d,
                    &format!("{c}/env"),
                    json!({"name": r.pick(&["A=B", "", "tab\there"]), "value": "x"}),
                )
            },
        },
        Mutation {
            id: "ctr/env-value-and-from",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                push(
                    d,
                    &format!("{c}/env"),
                    json!({"name": "BOTH", "value": "x", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}),
                )
            },
        },
        Mutation {
            id: "ctr/env-fieldref-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                push(
                    d,
                    &format!("{c}/env"),
                    json!({"name": "F", "valueFrom": {"fieldRef": {"fieldPath": r.pick(&["spec.bogus", "metadata.labels", "status.hostIP.x"])}}}),
                )
            },
        },
        Mutation {
            id: "ctr/env-from",
            paths: &[C],
            legal: true,
            apply: |d, r| {
                let c = ctr(d, r);
                push(
                    d,
                    &format!("{c}/envFrom"),
                    json!({"prefix": "CFG_", "configMapRef": {"name": "app-config", "optional": true}}),
                )
            },
        },
        Mutation {
            id: "ctr/resources-set",
            paths: &[C],
            legal: true,
            apply: |d, r| {
                let c = ctr(d, r);
                let q = some_quantity(r, false);
                set_resource(d, &c, "requests", "cpu", q)
            },
        },
        Mutation {
            id: "ctr/resources-bad",
            paths: &[C, R],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                let k = *r.pick(&["requests", "limits"]);
                let res = *r.pick(&["cpu", "memory"]);
                let q = bad_quantity(r);
                set_resource(d, &c, k, res, q)
            },
        },
        Mutation {
            id: "ctr/requests-over-limits",
            paths: &[C, R],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                set_resource(d, &c, "requests", "memory", json!("4Gi"))
                    && set_resource(d, &c, "limits", "memory", json!("1Gi"))
            },
        },
        Mutation {
            id: "ctr/resources-unknown-name",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                set_resource(
                    d,
                    &c,
                    "limits",
                    r.word(&["foo", "example.com~1gpu.x", "requests.cpu"]),
                    json!("1"),
                )
            },
        },
        Mutation {
            id: "ctr/hugepages-alone",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                set(
                    d,
                    &format!("{c}/resources"),
                    json!({"limits": {"hugepages-2Mi": "4Mi"}}),
                )
            },
        },
        Mutation {
            id: "ctr/extended-resource",
            paths: &[C],
            legal: true,
            apply: |d, r| {
                let c = ctr(d, r);
                set_resource(d, &c, "limits", "example.com~1gpu", json!("1"))
            },
        },
        Mutation {
            id: "ctr/resources-change",
            paths: &[U],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                let q = some_quantity(r, true);
                set_resource(d, &c, "requests", "memory", q)
            },
        },
        Mutation {
            id: "ctr/probe-add",
            paths: &[C, U],
            legal: true,
            apply: |d, r| {
                let c = ctr(d, r);
                let k = probe_kind(r);
                set(
                    d,
                    &format!("{c}/{k}"),
                    json!({"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10}),
                )
            },
        },
        Mutation {
            id: "ctr/probe-tune",
            paths: &[U],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                let k = probe_kind(r);
                d.pointer(&format!("{c}/{k}")).is_some()
                    && set(d, &format!("{c}/{k}/periodSeconds"), json!(r.pick(&[1, 20, 60])))
            },
        },
        Mutation {
            id: "ctr/probe-remove",
            paths: &[U],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                let k = probe_kind(r);
                remove(d, &format!("{c}/{k}"))
            },
        },
        Mutation {
            id: "ctr/probe-negative",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                let k = probe_kind(r);
                let f = *r.pick(&[
                    "periodSeconds",
                    "timeoutSeconds",
                    "initialDelaySeconds",
                    "failureThreshold",
                    "successThreshold",
                    "terminationGracePeriodSeconds",
                ]);
                set(
                    d,
                    &format!("{c}/{k}"),
                    json!({"exec": {"command": ["true"]}, f: r.pick(&[-1, 0, -30])}),
                )
            },
        },
        Mutation {
            id: "ctr/probe-success-threshold",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                let k = *r.pick(&["livenessProbe", "startupProbe"]);
                set(
                    d,
                    &format!("{c}/{k}"),
                    json!({"tcpSocket": {"port": 80}, "successThreshold": 2}),
                )
            },
        },
        Mutation {
            id: "ctr/probe-two-handlers",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                let k = probe_kind(r);
                set(
                    d,
                    &format!("{c}/{k}"),
                    json!({"tcpSocket": {"port": 80}, "exec": {"command": ["true"]}}),
                )
            },
        },
        Mutation {
            id: "ctr/probe-no-handler",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                let k = probe_kind(r);
                set(d, &format!("{c}/{k}"), json!({"periodSeconds": 5}))
            },
        },
        Mutation {
            id: "ctr/probe-port-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                let k = probe_kind(r);
                set(
                    d,
                    &format!("{c}/{k}"),
                    json!({"httpGet": {"port": r.pick(&[json!(0), json!(65536), json!("Not-A-Port"), json!("toolongportname1")])}}),
                )
            },
        },
        Mutation {
            id: "ctr/probe-grpc",
            paths: &[C],
            legal: true,
            apply: |d, r| {
                let c = ctr(d, r);
                set(
                    d,
                    &format!("{c}/readinessProbe"),
                    json!({"grpc": {"port": 9090, "service": "health"}}),
                )
            },
        },
        Mutation {
            id: "ctr/probe-http-header",
            paths: &[C],
            legal: true,
            apply: |d, r| {
                let c = ctr(d, r);
                set(
                    d,
                    &format!("{c}/livenessProbe"),
                    json!({"httpGet": {"path": "/", "port": 80, "scheme": r.pick(&["HTTP", "HTTPS"]), "httpHeaders": [{"name": "X-Probe", "value": "1"}]}}),
                )
            },
        },
        Mutation {
            id: "ctr/probe-http-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                set(
                    d,
                    &format!("{c}/livenessProbe"),
                    json!({"httpGet": {"path": "/", "port": 80, "scheme": r.pick(&["ftp", "http"]), "httpHeaders": [{"name": r.pick(&["bad header", ""]), "value": "1"}]}}),
                )
            },
        },
        Mutation {
            id: "ctr/lifecycle-sleep",
            paths: &[C],
            legal: true,
            apply: |d, r| {
                let c = ctr(d, r);
                set(
                    d,
                    &format!("{c}/lifecycle"),
                    json!({"preStop": {"sleep": {"seconds": r.pick(&[0, 1, 30])}}}),
                )
            },
        },
        Mutation {
            id: "ctr/lifecycle-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                set(
                    d,
                    &format!("{c}/lifecycle"),
                    r.pick(&[
                        json!({"preStop": {}}),
                        json!({"postStart": {"sleep": {"seconds": -1}}}),
                        json!({"preStop": {"exec": {"command": ["x"]}, "sleep": {"seconds": 1}}}),
                    ])
                    .clone(),
                )
            },
        },
        Mutation {
            id: "ctr/mount-missing-volume",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                push(
                    d,
                    &format!("{c}/volumeMounts"),
                    json!({"name": "nope", "mountPath": "/nope"}),
                )
            },
        },
        Mutation {
            id: "ctr/mount-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                let v = volume(d, r).map(|v| name_at(d, &v)).unwrap_or_default();
                push(
                    d,
                    &format!("{c}/volumeMounts"),
                    r.pick(&[
                        json!({"name": v, "mountPath": ""}),
                        json!({"name": v, "mountPath": "/x", "subPath": "../etc"}),
                        json!({"name": v, "mountPath": "/x", "subPath": "/abs"}),
                        json!({"name": v, "mountPath": "/x", "mountPropagation": "Sideways"}),
                    ])
                    .clone(),
                )
            },
        },
        Mutation {
            id: "ctr/mount-duplicate-path",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                let Some(v) = volume(d, r) else { return false };
                let v = name_at(d, &v);
                push(
                    d,
                    &format!("{c}/volumeMounts"),
                    json!({"name": v, "mountPath": "/same"}),
                ) && push(
                    d,
                    &format!("{c}/volumeMounts"),
                    json!({"name": v, "mountPath": "/same"}),
                )
            },
        },
        Mutation {
            id: "ctr/policy-fields-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                let (k, v) = *r.pick(&[
                    ("imagePullPolicy", "Sometimes"),
                    ("terminationMessagePolicy", "Log"),
                    ("terminationMessagePath", ""),
                ]);
                set(d, &format!("{c}/{k}"), json!(v))
            },
        },
        Mutation {
            id: "ctr/privileged",
            paths: &[C],
            legal: true,
            apply: |d, r| {
                let c = ctr(d, r);
                set(d, &format!("{c}/securityContext/privileged"), json!(true))
            },
        },
        Mutation {
            id: "ctr/security-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                let (k, v) = r
                    .pick(&[
                        ("runAsUser", json!(-1)),
                        ("runAsGroup", json!(-5)),
                        ("procMount", json!("Weird")),
                        ("privileged", json!(true)),
                    ])
                    .clone();
                let ok = set(d, &format!("{c}/securityContext/{k}"), v);
                if k == "privileged" {
                    set(
                        d,
                        &format!("{c}/securityContext/allowPrivilegeEscalation"),
                        json!(false),
                    )
                } else {
                    ok
                }
            },
        },
        Mutation {
            id: "ctr/capabilities-add",
            paths: &[C],
            legal: true,
            apply: |d, r| {
                let c = ctr(d, r);
                set(
                    d,
                    &format!("{c}/securityContext/capabilities/add"),
                    json!([r.pick(&["NET_ADMIN", "SYS_PTRACE"])]),
                )
            },
        },
        Mutation {
            id: "ctr/restart-policy-main",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                set(
                    d,
                    &format!("{c}/restartPolicy"),
                    json!(r.pick(&["Always", "Never", "Sometimes"])),
                )
            },
        },
        Mutation {
            id: "ctr/stdin-once",
            paths: &[C],
            legal: true,
            apply: |d, r| {
                let c = ctr(d, r);
                set(d, &format!("{c}/stdinOnce"), json!(true))
            },
        },
        Mutation {
            id: "ctr/working-dir-long",
            paths: &[C],
            legal: true,
            apply: |d, r| {
                let c = ctr(d, r);
                set(
                    d,
                    &format!("{c}/workingDir"),
                    json!("/".to_owned() + &"w".repeat(300)),
                )
            },
        },
        // ---- init containers ----
        Mutation {
            id: "init/add-sidecar",
            paths: &[C],
            legal: true,
            apply: |d, r| {
                push(
                    d,
                    "/spec/initContainers",
                    json!({"name": format!("side-{}", r.below(5)), "image": "fluent-bit:3", "restartPolicy": "Always", "readinessProbe": {"httpGet": {"path": "/", "port": 2020}}}),
                )
            },
        },
        Mutation {
            id: "init/probe-on-plain-init",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                push(
                    d,
                    "/spec/initContainers",
                    json!({"name": "setup", "image": "busybox", probe_kind(r): {"exec": {"command": ["true"]}}}),
                )
            },
        },
        Mutation {
            id: "init/name-clash",
            paths: &[C],
            legal: false,
            apply: |d, _| {
                let n = name_at(d, "/spec/containers/0");
                push(d, "/spec/initContainers", json!({"name": n, "image": "busybox"}))
            },
        },
        Mutation {
            id: "init/image-change",
            paths: &[U],
            legal: true,
            apply: |d, r| {
                let Some(i) = init(d, r) else { return false };
                set(d, &format!("{i}/image"), json!("busybox:1.37"))
            },
        },
        Mutation {
            id: "init/restart-policy-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let Some(i) = init(d, r) else { return false };
                set(
                    d,
                    &format!("{i}/restartPolicy"),
                    json!(r.pick(&["OnFailure", "Never"])),
                )
            },
        },
        // ---- volumes ----
        Mutation {
            id: "vol/mode",
            paths: &[C],
            legal: true,
            apply: |d, _| {
                push(
                    d,
                    "/spec/volumes",
                    json!({"name": "scripts", "configMap": {"name": "scripts", "defaultMode": 493}}),
                )
            },
        },
        Mutation {
            id: "vol/mode-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                push(
                    d,
                    "/spec/volumes",
                    json!({"name": "keys", "secret": {"secretName": "keys", "defaultMode": r.pick(&[512, 4096, -1, 1023])}}),
                )
            },
        },
        Mutation {
            id: "vol/item-mode-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                push(
                    d,
                    "/spec/volumes",
                    json!({"name": "items", "configMap": {"name": "c", "items": [{"key": "k", "path": r.pick(&["../up", "/abs", "ok"]), "mode": r.pick(&[0o777, 0o1000, -7])}]}}),
                )
            },
        },
        Mutation {
            id: "vol/duplicate-name",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let Some(v) = volume(d, r) else { return false };
                let n = name_at(d, &v);
                push(d, "/spec/volumes", json!({"name": n, "emptyDir": {}}))
            },
        },
        Mutation {
            id: "vol/no-source",
            paths: &[C],
            legal: false,
            apply: |d, _| push(d, "/spec/volumes", json!({"name": "empty"})),
        },
        Mutation {
            id: "vol/two-sources",
            paths: &[C],
            legal: false,
            apply: |d, _| {
                push(
                    d,
                    "/spec/volumes",
                    json!({"name": "both", "emptyDir": {}, "hostPath": {"path": "/tmp"}}),
                )
            },
        },
        Mutation {
            id: "vol/host-path",
            paths: &[C],
            legal: true,
            apply: |d, r| {
                push(
                    d,
                    "/spec/volumes",
                    json!({"name": "host", "hostPath": {"path": "/var/log", "type": r.pick(&["Directory", "DirectoryOrCreate", ""])}}),
                )
            },
        },
        Mutation {
            id: "vol/host-path-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                push(
                    d,
                    "/spec/volumes",
                    json!({"name": "host", "hostPath": {"path": r.pick(&["relative", "/a/../b", ""]), "type": r.pick(&["Directory", "Folder"])}}),
                )
            },
        },
        Mutation {
            id: "vol/empty-dir-size-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                push(
                    d,
                    "/spec/volumes",
                    json!({"name": "scratch", "emptyDir": {"sizeLimit": r.pick(&["-1Gi", "x"]), "medium": r.pick(&["Memory", "Disk"])}}),
                )
            },
        },
        Mutation {
            id: "vol/projected-token",
            paths: &[C],
            legal: true,
            apply: |d, r| {
                push(
                    d,
                    "/spec/volumes",
                    json!({"name": "token", "projected": {"defaultMode": 420, "sources": [{"serviceAccountToken": {"path": "token", "expirationSeconds": r.pick(&[600, 3600, 100, 4_294_967_296_u64])}}]}}),
                )
            },
        },
        Mutation {
            id: "vol/pvc",
            paths: &[C],
            legal: true,
            apply: |d, r| {
                push(
                    d,
                    "/spec/volumes",
                    json!({"name": "data", "persistentVolumeClaim": {"claimName": r.pick(&["data-0", "", "Bad_Claim"])}}),
                )
            },
        },
        Mutation {
            id: "vol/add",
            paths: &[U],
            legal: false,
            apply: |d, _| push(d, "/spec/volumes", json!({"name": "late", "emptyDir": {}})),
        },
        Mutation {
            id: "vol/name-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| push(d, "/spec/volumes", json!({"name": bad_name(r), "emptyDir": {}})),
        },
        // ---- pod spec ----
        Mutation {
            id: "spec/restart-policy-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| set(d, "/spec/restartPolicy", json!(r.pick(&["Sometimes", ""]))),
        },
        Mutation {
            id: "spec/dns-policy-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| set(d, "/spec/dnsPolicy", json!(r.pick(&["ClusterLast", "None"]))),
        },
        Mutation {
            id: "spec/dns-config",
            paths: &[C],
            legal: true,
            apply: |d, _| {
                set(
                    d,
                    "/spec/dnsConfig",
                    json!({"searches": ["a.example.com", "b.example.com"], "options": [{"name": "ndots", "value": "1"}]}),
                )
            },
        },
        Mutation {
            id: "spec/dns-config-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                set(
                    d,
                    "/spec/dnsConfig",
                    r.pick(&[
                        json!({"nameservers": ["1.1.1.1", "2.2.2.2", "3.3.3.3", "4.4.4.4"]}),
                        json!({"searches": ["bad_domain!"]}),
                        json!({"nameservers": ["not-an-ip"]}),
                        json!({"options": [{"name": ""}]}),
                    ])
                    .clone(),
                )
            },
        },
        Mutation {
            id: "spec/grace-negative",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                set(
                    d,
                    "/spec/terminationGracePeriodSeconds",
                    json!(r.pick(&[-1, -30])),
                )
            },
        },
        Mutation {
            id: "spec/grace-change",
            paths: &[U],
            legal: false,
            apply: |d, r| {
                set(
                    d,
                    "/spec/terminationGracePeriodSeconds",
                    json!(r.pick(&[0, 5, 120])),
                )
            },
        },
        Mutation {
            id: "spec/active-deadline-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| set(d, "/spec/activeDeadlineSeconds", json!(r.pick(&[0, -5]))),
        },
        Mutation {
            id: "spec/active-deadline-lower",
            paths: &[U],
            legal: true,
            apply: |d, r| set(d, "/spec/activeDeadlineSeconds", json!(r.pick(&[60, 1800]))),
        },
        Mutation {
            id: "spec/active-deadline-raise",
            paths: &[U],
            legal: false,
            apply: |d, r| {
                if d.pointer("/spec/activeDeadlineSeconds").is_some() {
                    if r.chance(1, 2) {
                        remove(d, "/spec/activeDeadlineSeconds")
                    } else {
                        set(d, "/spec/activeDeadlineSeconds", json!(7200))
                    }
                } else {
                    false
                }
            },
        },
        Mutation {
            id: "spec/toleration-add",
            paths: &[C, U],
            legal: true,
            apply: |d, r| {
                push(
                    d,
                    "/spec/tolerations",
                    json!({"key": "gpu", "operator": r.pick(&["Exists", "Equal"]), "effect": "NoSchedule"}),
                )
            },
        },
        Mutation {
            id: "spec/toleration-change",
            paths: &[U],
            legal: false,
            apply: |d, _| {
                len(d, "/spec/tolerations") > 0
                    && set(d, "/spec/tolerations/0/effect", json!("PreferNoSchedule"))
            },
        },
        Mutation {
            id: "spec/toleration-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                push(
                    d,
                    "/spec/tolerations",
                    r.pick(&[
                        json!({"key": "k", "operator": "Exists", "value": "v"}),
                        json!({"key": "k", "effect": "Sometimes"}),
                        json!({"operator": "Equal", "value": "v"}),
                        json!({"key": "k", "effect": "NoSchedule", "tolerationSeconds": 5}),
                    ])
                    .clone(),
                )
            },
        },
        Mutation {
            id: "spec/node-selector",
            paths: &[C],
            legal: true,
            apply: |d, _| set(d, "/spec/nodeSelector/disktype", json!("ssd")),
        },
        Mutation {
            id: "spec/node-selector-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                set(
                    d,
                    &format!("/spec/nodeSelector/{}", r.pick(&["bad key", "a~1b~1c"])),
                    json!("x"),
                )
            },
        },
        Mutation {
            id: "spec/node-name-change",
            paths: &[U],
            legal: false,
            apply: |d, _| set(d, "/spec/nodeName", json!("other-node")),
        },
        Mutation {
            id: "spec/hostname",
            paths: &[C],
            legal: true,
            apply: |d, _| set(d, "/spec/hostname", json!("web-0")) && set(d, "/spec/subdomain", json!("web")),
        },
        Mutation {
            id: "spec/hostname-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                set(
                    d,
                    &format!("/spec/{}", r.pick(&["hostname", "subdomain"])),
                    bad_name(r),
                )
            },
        },
        Mutation {
            id: "spec/host-network-ports",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                set(d, "/spec/hostNetwork", json!(true))
                    && push(
                        d,
                        &format!("{c}/ports"),
                        json!({"containerPort": 8081, "hostPort": 9091}),
                    )
            },
        },
        Mutation {
            id: "spec/scheduling-gate",
            paths: &[C],
            legal: true,
            apply: |d, _| {
                remove(d, "/spec/nodeName");
                push(d, "/spec/schedulingGates", json!({"name": "example.com/quota"}))
            },
        },
        Mutation {
            id: "spec/scheduling-gate-add",
            paths: &[U],
            legal: false,
            apply: |d, _| push(d, "/spec/schedulingGates", json!({"name": "example.com/late"})),
        },
        Mutation {
            id: "spec/os-mismatch",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                if d.pointer("/spec/os/name").and_then(Value::as_str) == Some("windows") {
                    let c = ctr(d, r);
                    set(
                        d,
                        &format!("{c}/securityContext/seLinuxOptions"),
                        json!({"level": "s0"}),
                    )
                } else {
                    set(d, "/spec/os", json!({"name": "windows"}))
                        && set(
                            d,
                            "/spec/securityContext/sysctls",
                            json!([{"name": "net.core.somaxconn", "value": "1024"}]),
                        )
                }
            },
        },
        Mutation {
            id: "spec/sysctls",
            paths: &[C],
            legal: true,
            apply: |d, r| {
                set(
                    d,
                    "/spec/securityContext/sysctls",
                    json!([{"name": r.pick(&["net.ipv4.ip_local_port_range", "kernel.shm_rmid_forced"]), "value": "1"}]),
                )
            },
        },
        Mutation {
            id: "spec/sysctls-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                set(
                    d,
                    "/spec/securityContext/sysctls",
                    json!([{"name": r.pick(&["Bad.Sysctl", "", "a..b"]), "value": "1"}, {"name": "kernel.msgmax", "value": "2"}, {"name": "kernel.msgmax", "value": "3"}]),
                )
            },
        },
        Mutation {
            id: "spec/fs-group-policy-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                set(
                    d,
                    "/spec/securityContext/fsGroupChangePolicy",
                    json!(r.pick(&["Sometimes", "always"])),
                )
            },
        },
        Mutation {
            id: "spec/supplemental-groups",
            paths: &[C],
            legal: true,
            apply: |d, r| {
                set(
                    d,
                    "/spec/securityContext/supplementalGroups",
                    json!(r.pick(&[json!([1000, 2000]), json!([-1])])),
                )
            },
        },
        Mutation {
            id: "spec/affinity",
            paths: &[C],
            legal: true,
            apply: |d, _| {
                set(
                    d,
                    "/spec/affinity",
                    json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}]}}}),
                )
            },
        },
        Mutation {
            id: "spec/affinity-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                set(d, "/spec/affinity", r.pick(&[json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}), json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In"}]}]}}}), json!({"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 0, "podAffinityTerm": {"topologyKey": ""}}]}})]).clone())
            },
        },
        Mutation {
            id: "spec/topology-spread",
            paths: &[C],
            legal: true,
            apply: |d, _| {
                push(
                    d,
                    "/spec/topologySpreadConstraints",
                    json!({"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "web"}}}),
                )
            },
        },
        Mutation {
            id: "spec/topology-spread-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                push(
                    d,
                    "/spec/topologySpreadConstraints",
                    json!({"maxSkew": r.pick(&[0, -1]), "topologyKey": "zone", "whenUnsatisfiable": r.pick(&["DoNotSchedule", "Maybe"])}),
                )
            },
        },
        Mutation {
            id: "spec/readiness-gate",
            paths: &[C],
            legal: true,
            apply: |d, r| {
                push(
                    d,
                    "/spec/readinessGates",
                    json!({"conditionType": r.pick(&["example.com/ready", "Bad Condition"])}),
                )
            },
        },
        Mutation {
            id: "spec/pod-resources",
            paths: &[C],
            legal: true,
            apply: |d, _| {
                set(
                    d,
                    "/spec/resources",
                    json!({"requests": {"cpu": "2", "memory": "4Gi"}, "limits": {"cpu": "4", "memory": "4Gi"}}),
                )
            },
        },
        Mutation {
            id: "spec/pod-resources-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| {
                set(
                    d,
                    "/spec/resources",
                    r.pick(&[
                        json!({"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}),
                        json!({"limits": {"example.com/gpu": "1"}}),
                        json!({"requests": {"memory": "-1Gi"}}),
                    ])
                    .clone(),
                )
            },
        },
        Mutation {
            id: "spec/pod-resources-change",
            paths: &[U],
            legal: false,
            apply: |d, _| set(d, "/spec/resources/requests/cpu", json!("3")),
        },
        Mutation {
            id: "spec/host-users",
            paths: &[C],
            legal: true,
            apply: |d, _| set(d, "/spec/hostUsers", json!(false)),
        },
        Mutation {
            id: "spec/priority",
            paths: &[C],
            legal: false,
            apply: |d, r| set(d, "/spec/priority", json!(r.pick(&[1000, 0]))),
        },
        Mutation {
            id: "spec/service-account-bad",
            paths: &[C],
            legal: false,
            apply: |d, r| set(d, "/spec/serviceAccountName", bad_name(r)),
        },
        // ---- ephemeral containers ----
        Mutation {
            id: "eph/add",
            paths: &[E],
            legal: true,
            apply: |d, r| add_ephemeral(d, r, |_, _| {}),
        },
        Mutation {
            id: "eph/add-privileged",
            paths: &[E],
            legal: true,
            apply: |d, r| {
                add_ephemeral(d, r, |c, r| {
                    c["securityContext"] = json!({"privileged": true, "capabilities": {"add": [r.pick(&["SYS_ADMIN", "NET_ADMIN"])]}});
                })
            },
        },
        Mutation {
            id: "eph/add-with-ports",
            paths: &[E],
            legal: false,
            apply: |d, r| {
                add_ephemeral(d, r, |c, _| {
                    c["ports"] = json!([{"containerPort": 80}]);
                })
            },
        },
        Mutation {
            id: "eph/add-with-resources",
            paths: &[E],
            legal: false,
            apply: |d, r| {
                add_ephemeral(d, r, |c, _| {
                    c["resources"] = json!({"requests": {"cpu": "100m"}});
                })
            },
        },
        Mutation {
            id: "eph/add-with-probe",
            paths: &[E],
            legal: false,
            apply: |d, r| {
                add_ephemeral(d, r, |c, r| {
                    c[probe_kind(r)] = json!({"exec": {"command": ["true"]}});
                })
            },
        },
        Mutation {
            id: "eph/add-with-lifecycle",
            paths: &[E],
            legal: false,
            apply: |d, r| {
                add_ephemeral(d, r, |c, _| {
                    c["lifecycle"] = json!({"preStop": {"exec": {"command": ["true"]}}});
                })
            },
        },
        Mutation {
            id: "eph/add-restart-policy",
            paths: &[E],
            legal: false,
            apply: |d, r| {
                add_ephemeral(d, r, |c, _| {
                    c["restartPolicy"] = json!("Always");
                })
            },
        },
        Mutation {
            id: "eph/add-subpath",
            paths: &[E],
            legal: false,
            apply: |d, r| {
                let Some(v) = volume(d, r) else { return false };
                let v = name_at(d, &v);
                let mut c = debug_container(r, d);
                c["volumeMounts"] = json!([{"name": v, "mountPath": "/v", "subPath": "x"}]);
                push(d, "/spec/ephemeralContainers", c)
            },
        },
        Mutation {
            id: "eph/add-mount",
            paths: &[E],
            legal: true,
            apply: |d, r| {
                let Some(v) = volume(d, r) else { return false };
                let v = name_at(d, &v);
                let mut c = debug_container(r, d);
                c["volumeMounts"] = json!([{"name": v, "mountPath": "/debug/v", "readOnly": true}]);
                push(d, "/spec/ephemeralContainers", c)
            },
        },
        Mutation {
            id: "eph/add-duplicate-name",
            paths: &[E],
            legal: false,
            apply: |d, r| {
                let n = name_at(d, "/spec/containers/0");
                let mut c = debug_container(r, d);
                c["name"] = json!(n);
                push(d, "/spec/ephemeralContainers", c)
            },
        },
        Mutation {
            id: "eph/add-target-missing",
            paths: &[E],
            legal: false,
            apply: |d, r| {
                add_ephemeral(d, r, |c, _| {
                    c["targetContainerName"] = json!("nope");
                })
            },
        },
        Mutation {
            id: "eph/add-name-bad",
            paths: &[E],
            legal: false,
            apply: |d, r| {
                add_ephemeral(d, r, |c, r| {
                    c["name"] = bad_name(r);
                })
            },
        },
        Mutation {
            id: "eph/add-image-empty",
            paths: &[E],
            legal: false,
            apply: |d, r| {
                add_ephemeral(d, r, |c, _| {
                    c["image"] = json!("");
                })
            },
        },
        Mutation {
            id: "eph/remove-existing",
            paths: &[E],
            legal: false,
            apply: |d, _| len(d, "/spec/ephemeralContainers") > 0 && remove(d, "/spec/ephemeralContainers/0"),
        },
        Mutation {
            id: "eph/change-existing",
            paths: &[E],
            legal: false,
            apply: |d, r| {
                len(d, "/spec/ephemeralContainers") > 0
                    && set(
                        d,
                        "/spec/ephemeralContainers/0/image",
                        json!(r.pick(&["busybox:1.37", "alpine"])),
                    )
            },
        },
        Mutation {
            id: "eph/other-field",
            paths: &[E, R, S],
            legal: true,
            apply: |d, r| {
                let c = ctr(d, r);
                set(d, &format!("{c}/image"), json!("changed:9"))
            },
        },
        Mutation {
            id: "eph/via-update",
            paths: &[U],
            legal: false,
            apply: |d, r| add_ephemeral(d, r, |_, _| {}),
        },
        // ---- resize ----
        Mutation {
            id: "rz/cpu",
            paths: &[R],
            legal: true,
            apply: |d, r| {
                let c = ctr(d, r);
                let q = some_quantity(r, false);
                let ok = d.pointer(&format!("{c}/resources/requests/cpu")).is_some()
                    && set_resource(d, &c, "requests", "cpu", q.clone());
                if ok && d.pointer(&format!("{c}/resources/limits/cpu")).is_some() {
                    set_resource(d, &c, "limits", "cpu", q)
                } else {
                    ok
                }
            },
        },
        Mutation {
            id: "rz/memory",
            paths: &[R],
            legal: true,
            apply: |d, r| {
                let c = ctr(d, r);
                let q = some_quantity(r, true);
                let ok = d.pointer(&format!("{c}/resources/requests/memory")).is_some()
                    && set_resource(d, &c, "requests", "memory", q.clone());
                if ok && d.pointer(&format!("{c}/resources/limits/memory")).is_some() {
                    set_resource(d, &c, "limits", "memory", q)
                } else {
                    ok
                }
            },
        },
        Mutation {
            id: "rz/memory-limit-down",
            paths: &[R],
            legal: true,
            apply: |d, r| {
                let c = ctr(d, r);
                d.pointer(&format!("{c}/resources/limits/memory")).is_some()
                    && set_resource(d, &c, "limits", "memory", json!("32Mi"))
            },
        },
        Mutation {
            id: "rz/qos-change",
            paths: &[R],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                set_resource(d, &c, "limits", "cpu", json!("8"))
            },
        },
        Mutation {
            id: "rz/remove-requests",
            paths: &[R],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                remove(
                    d,
                    &format!("{c}/resources/requests/{}", r.pick(&["cpu", "memory"])),
                )
            },
        },
        Mutation {
            id: "rz/remove-all",
            paths: &[R],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                set(d, &format!("{c}/resources"), json!({}))
            },
        },
        Mutation {
            id: "rz/init",
            paths: &[R],
            legal: false,
            apply: |d, r| {
                let Some(i) = init(d, r) else { return false };
                set_resource(d, &i, "requests", "cpu", json!("300m"))
            },
        },
        Mutation {
            id: "rz/sidecar",
            paths: &[R],
            legal: true,
            apply: |d, _| {
                let Some(i) = sidecar(d) else { return false };
                set_resource(d, &i, "requests", "cpu", json!("100m"))
            },
        },
        Mutation {
            id: "rz/pod-level",
            paths: &[R],
            legal: false,
            apply: |d, r| {
                d.pointer("/spec/resources").is_some()
                    && set(d, "/spec/resources/requests/cpu", json!(r.pick(&["750m", "1"])))
            },
        },
        Mutation {
            id: "rz/resize-policy",
            paths: &[R],
            legal: true,
            apply: |d, r| {
                let c = ctr(d, r);
                set(
                    d,
                    &format!("{c}/resizePolicy"),
                    json!([{"resourceName": "memory", "restartPolicy": r.pick(&["NotRequired", "RestartContainer", "Sometimes"])}]),
                )
            },
        },
        Mutation {
            id: "rz/extended",
            paths: &[R],
            legal: false,
            apply: |d, r| {
                let c = ctr(d, r);
                set_resource(d, &c, "requests", "example.com~1gpu", json!("1"))
                    && set_resource(d, &c, "limits", "example.com~1gpu", json!("1"))
            },
        },
        Mutation {
            id: "rz/huge",
            paths: &[R],
            legal: true,
            apply: |d, r| {
                let c = ctr(d, r);
                d.pointer(&format!("{c}/resources/requests/cpu")).is_some()
                    && set_resource(d, &c, "requests", "cpu", json!("200"))
            },
        },
        // ---- status ----
        Mutation {
            id: "st/phase",
            paths: &[S],
            legal: true,
            apply: |d, r| {
                set(
                    d,
                    "/status/phase",
                    json!(r.pick(&["Succeeded", "Failed", "Running", "Unknown"])),
                )
            },
        },
        Mutation {
            id: "st/phase-bad",
            paths: &[S],
            legal: false,
            apply: |d, r| set(d, "/status/phase", json!(r.pick(&["Pending", "Done", ""]))),
        },
        Mutation {
            id: "st/condition",
            paths: &[S],
            legal: true,
            apply: |d, r| {
                push(
                    d,
                    "/status/conditions",
                    json!({"type": r.pick(&["ContainersReady", "example.com/Healthy", "DisruptionTarget"]), "status": "True", "reason": "Checked"}),
                )
            },
        },
        Mutation {
            id: "st/condition-bad",
            paths: &[S],
            legal: false,
            apply: |d, r| {
                push(
                    d,
                    "/status/conditions",
                    r.pick(&[
                        json!({"type": "Ready", "status": "Maybe"}),
                        json!({"type": "", "status": "True"}),
                        json!({"type": "Bad Type!", "status": "False"}),
                    ])
                    .clone(),
                )
            },
        },
        Mutation {
            id: "st/restart-count-bad",
            paths: &[S],
            legal: false,
            apply: |d, _| {
                len(d, "/status/containerStatuses") > 0
                    && set(d, "/status/containerStatuses/0/restartCount", json!(-1))
            },
        },
        Mutation {
            id: "st/restart-count",
            paths: &[S],
            legal: true,
            apply: |d, r| {
                len(d, "/status/containerStatuses") > 0
                    && set(
                        d,
                        "/status/containerStatuses/0/restartCount",
                        json!(r.pick(&[2, 7])),
                    )
            },
        },
        Mutation {
            id: "st/container-state",
            paths: &[S],
            legal: true,
            apply: |d, _| {
                len(d, "/status/containerStatuses") > 0
                    && set(
                        d,
                        "/status/containerStatuses/0/state",
                        json!({"terminated": {"exitCode": 137, "reason": "OOMKilled"}}),
                    )
            },
        },
        Mutation {
            id: "st/container-state-bad",
            paths: &[S],
            legal: false,
            apply: |d, _| {
                len(d, "/status/containerStatuses") > 0
                    && set(
                        d,
                        "/status/containerStatuses/0/state",
                        json!({"running": {}, "terminated": {"exitCode": 0}}),
                    )
            },
        },
        Mutation {
            id: "st/container-status-unknown",
            paths: &[S],
            legal: false,
            apply: |d, _| {
                push(
                    d,
                    "/status/containerStatuses",
                    json!({"name": "ghost", "image": "x", "imageID": "", "ready": false, "restartCount": 0}),
                )
            },
        },
        Mutation {
            id: "st/pod-ip",
            paths: &[S],
            legal: true,
            apply: |d, _| {
                set(d, "/status/podIP", json!("10.0.0.99"))
                    && set(
                        d,
                        "/status/podIPs",
                        json!([{"ip": "10.0.0.99"}, {"ip": "fd00::99"}]),
                    )
            },
        },
        Mutation {
            id: "st/pod-ip-bad",
            paths: &[S],
            legal: false,
            apply: |d, r| {
                set(d, "/status/podIP", json!(r.pick(&["not-an-ip", "10.0.0.300"])))
                    && set(d, "/status/podIPs", json!([{"ip": "10.0.0.1"}]))
            },
        },
        Mutation {
            id: "st/pod-ips-dual-same-family",
            paths: &[S],
            legal: false,
            apply: |d, _| {
                set(d, "/status/podIP", json!("10.0.0.1"))
                    && set(
                        d,
                        "/status/podIPs",
                        json!([{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}]),
                    )
            },
        },
        Mutation {
            id: "st/host-ip-bad",
            paths: &[S],
            legal: false,
            apply: |d, _| set(d, "/status/hostIP", json!("host-1")),
        },
        Mutation {
            id: "st/qos-change",
            paths: &[S],
            legal: false,
            apply: |d, r| {
                set(
                    d,
                    "/status/qosClass",
                    json!(r.pick(&["BestEffort", "Guaranteed", "Burstable"])),
                )
            },
        },
        Mutation {
            id: "st/nominated-node-bad",
            paths: &[S],
            legal: false,
            apply: |d, r| set(d, "/status/nominatedNodeName", bad_name(r)),
        },
        Mutation {
            id: "st/observed-generation",
            paths: &[S],
            legal: true,
            apply: |d, r| set(d, "/status/observedGeneration", json!(r.pick(&[1, 5, -1]))),
        },
        Mutation {
            id: "st/allocated-resources",
            paths: &[S],
            legal: true,
            apply: |d, _| {
                len(d, "/status/containerStatuses") > 0
                    && set(
                        d,
                        "/status/containerStatuses/0/allocatedResources",
                        json!({"cpu": "100m", "memory": "128Mi"}),
                    )
            },
        },
        Mutation {
            id: "st/status-resources",
            paths: &[S],
            legal: true,
            apply: |d, r| {
                len(d, "/status/containerStatuses") > 0
                    && set(
                        d,
                        "/status/containerStatuses/0/resources",
                        json!({"requests": {"cpu": r.pick(&["100m", "-1"])}}),
                    )
            },
        },
        Mutation {
            id: "st/message-reason",
            paths: &[S],
            legal: true,
            apply: |d, _| {
                set(d, "/status/reason", json!("Evicted"))
                    && set(
                        d,
                        "/status/message",
                        json!("The node was low on resource: memory."),
                    )
            },
        },
        Mutation {
            id: "st/spec-change",
            paths: &[S],
            legal: true,
            apply: |d, _| set(d, "/spec/activeDeadlineSeconds", json!(5)),
        },
        Mutation {
            id: "st/resize-field",
            paths: &[S],
            legal: true,
            apply: |d, r| {
                set(
                    d,
                    "/status/resize",
                    json!(r.pick(&["InProgress", "Deferred", "Bogus"])),
                )
            },
        },
        Mutation {
            id: "st/ephemeral-status",
            paths: &[S],
            legal: true,
            apply: |d, _| {
                push(
                    d,
                    "/status/ephemeralContainerStatuses",
                    json!({"name": "debugger-9", "image": "busybox", "imageID": "", "ready": false, "restartCount": 0}),
                )
            },
        },
        Mutation {
            id: "st/image-id",
            paths: &[S],
            legal: true,
            apply: |d, r| {
                len(d, "/status/containerStatuses") > 0
                    && set(
                        d,
                        "/status/containerStatuses/0/imageID",
                        json!(r.pick(&["sha256:abc", "", "docker-pullable://x@sha256:1"])),
                    )
            },
        },
    ];
    M
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bases_read() {
        let b = bases();
        assert!(b.as_ref().is_ok_and(|b| b.len() >= 7), "{b:?}");
    }

    #[test]
    fn ids_are_unique_and_every_path_has_legal_and_illegal_mutations() {
        let ids: Vec<&str> = catalog().iter().map(|m| m.id).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(ids.len(), sorted.len());
        for p in PodPath::ALL {
            let of = |legal: bool| {
                catalog()
                    .iter()
                    .filter(|m| m.paths.contains(&p) && m.legal == legal)
                    .count()
            };
            assert!(of(true) > 0 && of(false) > 0, "{p:?}");
        }
    }

    #[test]
    fn generation_is_deterministic_and_changes_the_pod() {
        let bases = bases().unwrap_or_default();
        let start = create_form(&bases[0]);
        for i in 0..50 {
            let a = generate(PodPath::Create, 7, i, &start);
            let b = generate(PodPath::Create, 7, i, &start);
            assert_eq!(a, b);
            assert!(!a.mutations.is_empty(), "case {i}");
            assert_ne!(a.doc, start, "case {i}: {:?}", a.mutations);
        }
        assert_ne!(
            generate(PodPath::Create, 7, 1, &start),
            generate(PodPath::Create, 8, 1, &start)
        );
    }
}
