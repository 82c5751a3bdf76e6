//! One change, sent for real: the old Pod created in a fresh namespace (its ephemeral containers
//! through their subresource, its status through `/status`, a deletion when it was being
//! deleted), then the change applied to the Pod the server stored and sent with `dryRun=All`.
//!
//! The change is the fixture's own (`old` → `new`, as an RFC 6902 diff) applied to what the server
//! stored, as a client edits what it read: what the server adds on create (defaults, the
//! `default` ServiceAccount, the not-ready tolerations, `status.qosClass`) stays, and podmut is
//! given exactly the stored Pod and exactly the bytes the server was sent.
//!
//! An old Pod this release refuses (a fixture about a value stored before a rule was tightened)
//! is written into etcd directly, as the older release stored it, and read back.

use std::sync::atomic::{AtomicU64, Ordering};

use http::Method;
use serde_json::{Value, json};

use crate::OracleError;
use crate::api::{Api, PodPath, Reply};
use podmut::replay::creatable;
pub use podmut::replay::{apply_change, in_namespace};

/// The result of sending one change.
#[derive(Clone, Debug)]
pub struct Exchange {
    /// The Pod the server stored (the old Pod of an update), `None` for a create.
    pub stored: Option<Value>,
    /// The body sent with `dryRun=All`.
    pub sent: Value,
    /// The server's answer to it.
    pub reply: Reply,
}

/// A namespace name unique to this process and call: `oracle-<pid>-<n>` (a deleted namespace
/// never goes away here, so names are never reused).
pub fn fresh_namespace() -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    format!(
        "oracle-{:x}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

fn name_of(pod: &Value) -> String {
    pod.pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// Create `old` for real in `ns` and bring it to the fixture's state; the stored Pod, or the
/// server's refusal (the old Pod itself cannot exist in this release).
pub async fn create_old(api: &Api, ns: &str, old: &Value) -> Result<Result<Value, Reply>, OracleError> {
    let deleting = old.pointer("/metadata/deletionTimestamp").is_some();
    if let Some(node) = old
        .pointer("/spec/nodeName")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
    {
        api.ensure_node(node).await?;
    }
    if let Some(class) = old
        .pointer("/spec/priorityClassName")
        .and_then(Value::as_str)
        .filter(|c| !c.is_empty() && !c.starts_with("system-"))
    {
        api.ensure_priority_class(class).await?;
    }
    let reply = api
        .create_pod(ns, &creatable(old, deleting.then_some("podmut.dev/oracle-hold")))
        .await?;
    if reply.code == 422 {
        // This release refuses the Pod: store it as an older release did, then read it back.
        return store_directly(api, ns, old).await;
    }
    if !reply.ok() {
        return Ok(Err(reply));
    }
    let mut stored = reply.body;
    let name = name_of(&stored);
    if let Some(ephemeral) = old
        .pointer("/spec/ephemeralContainers")
        .filter(|e| e.as_array().is_some_and(|a| !a.is_empty()))
    {
        let mut body = stored.clone();
        body["spec"]["ephemeralContainers"] = ephemeral.clone();
        let reply = api
            .put_pod(ns, &name, PodPath::EphemeralContainers, &body)
            .await?;
        if reply.code == 422 {
            return store_directly(api, ns, old).await;
        }
        if !reply.ok() {
            return Ok(Err(reply));
        }
        stored = reply.body;
    }
    if let Some(status) = old
        .get("status")
        .and_then(Value::as_object)
        .filter(|s| !s.is_empty())
    {
        let mut body = stored.clone();
        let merged = body["status"].as_object_mut().map(|s| {
            for (k, v) in status {
                s.insert(k.clone(), v.clone());
            }
        });
        if merged.is_none() {
            body["status"] = Value::Object(status.clone());
        }
        let reply = api.put_pod(ns, &name, PodPath::Status, &body).await?;
        if reply.code == 422 {
            return store_directly(api, ns, old).await;
        }
        if !reply.ok() {
            return Ok(Err(reply));
        }
        stored = reply.body;
    }
    if deleting {
        let uri = format!("/api/v1/namespaces/{ns}/pods/{name}");
        let reply = api.send(Method::DELETE, &uri, None, "application/json").await?;
        if !reply.ok() {
            return Ok(Err(reply));
        }
        let reply = api.send(Method::GET, &uri, None, "application/json").await?;
        if !reply.ok() {
            return Ok(Err(reply));
        }
        stored = reply.body;
    }
    Ok(Ok(stored))
}

/// Write `old` into etcd as it is (identity filled in as a server would have), then read it back
/// through the API server: a Pod stored under an older release's rules.
async fn store_directly(api: &Api, ns: &str, old: &Value) -> Result<Result<Value, Reply>, OracleError> {
    let mut pod = old.clone();
    let name = name_of(&pod);
    if let Some(meta) = pod.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("resourceVersion");
        meta.remove("selfLink");
        meta.entry("uid")
            .or_insert_with(|| json!(format!("0000aaaa-0000-4000-8000-{:012x}", name.len())));
        meta.entry("creationTimestamp")
            .or_insert_with(|| json!("2026-01-01T00:00:00Z"));
    }
    // What the ServiceAccount admission plugin sets on every Pod it admits, which later requests
    // on pods/ephemeralcontainers require.
    if let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) {
        let empty = spec
            .get("serviceAccountName")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty);
        if empty {
            spec.insert("serviceAccountName".into(), json!("default"));
        }
    }
    if let Some(o) = pod.as_object_mut() {
        o.insert("apiVersion".into(), json!("v1"));
        o.insert("kind".into(), json!("Pod"));
    }
    api.etcd_put(&format!("/registry/pods/{ns}/{name}"), &pod).await?;
    let reply = api
        .send(
            Method::GET,
            &format!("/api/v1/namespaces/{ns}/pods/{name}"),
            None,
            "application/json",
        )
        .await?;
    Ok(if reply.ok() { Ok(reply.body) } else { Err(reply) })
}

/// Send one change: `old` (if any) created for real in `ns`, then `new` as a dry run on `path`.
/// `Ok(Err(reply))` when the old Pod cannot be created as the fixture has it.
pub async fn exchange(
    api: &Api,
    ns: &str,
    path: PodPath,
    old: Option<&Value>,
    new: &Value,
    query: &str,
) -> Result<Result<Exchange, Reply>, OracleError> {
    let old = old.map(|o| in_namespace(o, ns));
    let new = in_namespace(new, ns);
    let (stored, sent) = match &old {
        None => (None, new.clone()),
        Some(old) => {
            let stored = match create_old(api, ns, old).await? {
                Ok(s) => s,
                Err(refused) => return Ok(Err(refused)),
            };
            let sent = apply_change(&stored, old, &new).map_err(OracleError::Server)?;
            (Some(stored), sent)
        }
    };
    let name = name_of(stored.as_ref().unwrap_or(&sent));
    let reply = api.dry_run(ns, &name, path, &sent, query).await?;
    Ok(Ok(Exchange { stored, sent, reply }))
}
