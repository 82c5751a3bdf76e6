//! The AdmissionReview the API server would send a validating webhook for a Pod change
//! (`podmut admission-review`): the starting point for `podmut review`, `curl`, `wasmtime run` and
//! `kwctl run`.
//!
//! The shape follows `k8s.io/api/admission/v1` as the API server fills it
//! (`k8s.io/apiserver/pkg/admission/plugin/webhook/request`): `kind`/`resource` and their
//! `request*` twins, `subResource` only on a subresource, the namespace the Pod lives in, `object`
//! and `oldObject` as the operation has them, and `options` of the operation's kind. The uid comes
//! from the caller: the component is pure (no randomness), the CLI generates a fresh one.

use std::fmt;
use std::str::FromStr;

use serde_json::{Value, json};

use podmut_model::document::{self, InputError};
use podmut_model::request_path::Subresource;

/// An admission operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Operation {
    /// `CREATE`: `object` only.
    Create,
    /// `UPDATE`: `object` and `oldObject`.
    #[default]
    Update,
    /// `DELETE`: `oldObject` only.
    Delete,
}

impl Operation {
    /// The API name (`UPDATE`).
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "CREATE",
            Operation::Update => "UPDATE",
            Operation::Delete => "DELETE",
        }
    }

    fn options_kind(self) -> &'static str {
        match self {
            Operation::Create => "CreateOptions",
            Operation::Update => "UpdateOptions",
            Operation::Delete => "DeleteOptions",
        }
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Operation {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_uppercase().as_str() {
            "CREATE" => Ok(Operation::Create),
            "UPDATE" => Ok(Operation::Update),
            "DELETE" => Ok(Operation::Delete),
            _ => Err(format!(
                "unknown operation {s:?}: expected CREATE, UPDATE or DELETE"
            )),
        }
    }
}

/// What the request says beyond the Pods.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestOptions {
    /// The operation.
    pub operation: Operation,
    /// The request path.
    pub subresource: Subresource,
    /// `request.dryRun`.
    pub dry_run: bool,
    /// `request.userInfo.username`.
    pub user: String,
    /// `request.uid`.
    pub uid: String,
}

impl Default for RequestOptions {
    fn default() -> Self {
        Self {
            operation: Operation::Update,
            subresource: Subresource::None,
            dry_run: false,
            user: "kubernetes-admin".into(),
            uid: String::new(),
        }
    }
}

/// Build the AdmissionReview request for `old` -> `new` (JSON or YAML Pods).
///
/// `CREATE` needs `new` and no subresource, `UPDATE` both Pods, `DELETE` `old`. The namespace is
/// the Pod's, else `default` (where `kubectl` would send it).
///
/// ```
/// use podmut_admission::review_request::{RequestOptions, admission_request};
/// use podmut_model::request_path::Subresource;
/// let pod = "kind: Pod\napiVersion: v1\nmetadata: {name: web}\nspec: {containers: [{name: a, image: x}]}\n";
/// let opts = RequestOptions { subresource: Subresource::Dynamic, uid: "u-1".into(), ..Default::default() };
/// let review = admission_request(Some(pod), Some(pod), &opts, 1 << 20).unwrap();
/// assert_eq!(review["request"]["subResource"], "dynamic");
/// assert_eq!(review["request"]["namespace"], "default");
/// ```
pub fn admission_request(
    old: Option<&str>,
    new: Option<&str>,
    options: &RequestOptions,
    max_bytes: u64,
) -> Result<Value, InputError> {
    let read = |text: &str, input: &str| -> Result<Value, InputError> {
        let v = document::parse_text(text, input, max_bytes)?;
        document::expect_kind(&v, input, "v1", "Pod")?;
        Ok(v)
    };
    let old = old.map(|t| read(t, "old-pod")).transpose()?;
    let new = new.map(|t| read(t, "new-pod")).transpose()?;
    let (object, old_object) = match (options.operation, old, new) {
        (Operation::Create, _, None) => {
            return Err(InputError::malformed(
                "new-pod",
                "a CREATE request needs the new Pod",
            ));
        }
        (Operation::Create, Some(_), _) => {
            return Err(InputError::malformed(
                "old-pod",
                "a CREATE request has no old Pod",
            ));
        }
        (Operation::Create, None, Some(new)) => (new, Value::Null),
        (Operation::Update, Some(old), Some(new)) => (new, old),
        (Operation::Update, None, _) => {
            return Err(InputError::malformed(
                "old-pod",
                "an UPDATE request needs the old Pod",
            ));
        }
        (Operation::Update, _, None) => {
            return Err(InputError::malformed(
                "new-pod",
                "an UPDATE request needs the new Pod",
            ));
        }
        (Operation::Delete, Some(old), None) => (Value::Null, old),
        (Operation::Delete, None, _) => {
            return Err(InputError::malformed(
                "old-pod",
                "a DELETE request needs the old Pod",
            ));
        }
        (Operation::Delete, Some(_), Some(_)) => {
            return Err(InputError::malformed(
                "new-pod",
                "a DELETE request has no new Pod",
            ));
        }
    };
    if options.operation != Operation::Update && options.subresource != Subresource::None {
        return Err(InputError::malformed(
            "options",
            format!(
                "pods/{} is only updated: {} goes to the main resource",
                options.subresource, options.operation
            ),
        ));
    }
    let pod = if object.is_null() { &old_object } else { &object };
    let meta = |k: &str| pod.pointer(&format!("/metadata/{k}")).and_then(Value::as_str);
    let name = meta("name").unwrap_or_default();
    let namespace = meta("namespace").unwrap_or("default");
    let kind = json!({"group": "", "version": "v1", "kind": "Pod"});
    let resource = json!({"group": "", "version": "v1", "resource": "pods"});
    let mut request = json!({
        "uid": options.uid,
        "kind": kind,
        "resource": resource,
        "requestKind": kind,
        "requestResource": resource,
        "name": name,
        "namespace": namespace,
        "operation": options.operation.as_str(),
        "userInfo": {"username": options.user, "groups": ["system:authenticated"]},
        "object": object,
        "oldObject": old_object,
        "dryRun": options.dry_run,
        "options": {"apiVersion": "meta.k8s.io/v1", "kind": options.operation.options_kind()},
    });
    if options.subresource != Subresource::None
        && let Some(r) = request.as_object_mut()
    {
        r.insert("subResource".into(), json!(options.subresource.api_name()));
        r.insert("requestSubResource".into(), json!(options.subresource.api_name()));
    }
    Ok(json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": request,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop}\nspec:\n  containers:\n  - {name: app, image: nginx}\n";

    fn opts(operation: Operation, subresource: Subresource) -> RequestOptions {
        RequestOptions {
            operation,
            subresource,
            uid: "u".into(),
            ..RequestOptions::default()
        }
    }

    #[test]
    fn the_review_podmut_judges() {
        let r = admission_request(
            Some(POD),
            Some(POD),
            &opts(Operation::Update, Subresource::Resize),
            1 << 20,
        )
        .unwrap();
        let text = r.to_string();
        let out: Value = serde_json::from_str(&crate::review(&text, "").unwrap()).unwrap();
        assert_eq!(out["response"]["uid"], "u");
        assert_eq!(out["response"]["allowed"], true);
        assert_eq!(r["request"]["namespace"], "shop");
        assert_eq!(r["request"]["options"]["kind"], "UpdateOptions");
        assert_eq!(r["request"]["requestSubResource"], "resize");
    }

    #[test]
    fn operations_need_their_pods() {
        let c = admission_request(
            None,
            Some(POD),
            &opts(Operation::Create, Subresource::None),
            1 << 20,
        )
        .unwrap();
        assert!(c["request"]["oldObject"].is_null());
        assert!(c["request"].get("subResource").is_none());
        let d = admission_request(
            Some(POD),
            None,
            &opts(Operation::Delete, Subresource::None),
            1 << 20,
        )
        .unwrap();
        assert!(d["request"]["object"].is_null());
        assert_eq!(d["request"]["name"], "web");
        let e = admission_request(
            None,
            Some(POD),
            &opts(Operation::Update, Subresource::None),
            1 << 20,
        )
        .unwrap_err();
        assert_eq!(e.input(), "old-pod");
        let e = admission_request(
            None,
            Some(POD),
            &opts(Operation::Create, Subresource::Dynamic),
            1 << 20,
        )
        .unwrap_err();
        assert!(e.to_string().contains("pods/dynamic is only updated"), "{e}");
        let e = admission_request(
            Some("kind: Node"),
            Some(POD),
            &opts(Operation::Update, Subresource::None),
            1 << 20,
        )
        .unwrap_err();
        assert_eq!(e.input(), "old-pod");
        assert_eq!("update".parse::<Operation>().unwrap(), Operation::Update);
    }
}
