//! Admission policies in a control plane: where they are created, creating a set of them in the
//! order the server needs, and waiting until the server enforces them (it loads policies
//! asynchronously, so a created policy is not yet in effect).

use std::path::Path;
use std::time::{Duration, Instant};

use http::Method;
use serde_json::Value;

use crate::api::Api;

/// The API group version of ValidatingAdmissionPolicies and their bindings.
pub const VAP_API: &str = "/apis/admissionregistration.k8s.io/v1";

/// The collection URI of a ValidatingAdmissionPolicy or binding `kind`.
pub fn uri(kind: &str) -> Result<String, String> {
    match kind {
        "ValidatingAdmissionPolicy" => Ok(format!("{VAP_API}/validatingadmissionpolicies")),
        "ValidatingAdmissionPolicyBinding" => Ok(format!("{VAP_API}/validatingadmissionpolicybindings")),
        other => Err(format!("not an admission policy or binding: {other:?}")),
    }
}

/// The objects of a YAML stream (empty documents left out).
pub fn read_stream(file: &Path) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(file).map_err(|x| format!("{}: {x}", file.display()))?;
    let mut objects = Vec::new();
    for doc in serde_yaml_ng::Deserializer::from_str(&text) {
        let v: Value =
            serde::Deserialize::deserialize(doc).map_err(|x| format!("{}: {x}", file.display()))?;
        if !v.is_null() {
            objects.push(v);
        }
    }
    Ok(objects)
}

/// Create `objects`, the policies before their bindings; any refusal is an error naming it.
pub async fn create(api: &Api, objects: &[Value]) -> Result<(), String> {
    let mut ordered: Vec<&Value> = objects.iter().collect();
    ordered.sort_by_key(|o| o["kind"] != "ValidatingAdmissionPolicy");
    for o in ordered {
        let reply = api
            .send(
                Method::POST,
                &uri(o["kind"].as_str().unwrap_or_default())?,
                Some(o),
                "application/json",
            )
            .await
            .map_err(|x| x.to_string())?;
        if !reply.ok() {
            return Err(format!(
                "create {} {}: HTTP {}: {}",
                o["kind"], o["metadata"]["name"], reply.code, reply.body
            ));
        }
    }
    Ok(())
}

/// Send `body` to `uri` as a dry run (`uri` carries `dryRun=All`) until the server refuses it:
/// the policies that refuse it are in effect. At most 30 seconds.
pub async fn wait_until_refused(
    api: &Api,
    method: Method,
    uri: &str,
    body: &Value,
    what: &str,
) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let reply = api
            .send(method.clone(), uri, Some(body), "application/json")
            .await
            .map_err(|x| x.to_string())?;
        if !reply.ok() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("waited 30s for {what} to take effect"));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
