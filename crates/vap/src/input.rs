//! The request a policy sees: the CEL variables `object`, `oldObject`, `request` and
//! `namespaceObject` (upstream `cel.CreateAdmissionRequest` and `cel.CreateNamespaceObject`), and
//! what the rules and selectors match on.
//!
//! Pods are decoded and defaulted as the API server does before validating admission runs
//! (unknown fields dropped, `SetDefaults_Pod`), so that `object.spec.containers[0].imagePullPolicy`
//! is there as it is in a cluster; an update's `object` is what the request path's strategy made
//! of it (on `pods/resize`, only the resources come from the request).

use std::collections::BTreeMap;

use cel::Value;
use k8s_openapi::api::core::v1::Pod;
use serde_json::{Value as Json, json};

use super::VapRequest;
use super::values::{from_json, map_of};
use podmut_admission::coverage::{Op, Resource};
use podmut_model::defaults::apply_pod_defaults;
use podmut_model::document::{self, InputError};
use podmut_model::field_validation::CheckedValue;
use podmut_model::settings::Settings;
use podmut_model::workload::{KINDS, KindInfo, Workload, WorkloadKind};

/// The label every namespace carries with its own name.
pub(crate) const NAMESPACE_NAME_LABEL: &str = "kubernetes.io/metadata.name";

/// One request, ready to match and evaluate.
#[derive(Debug)]
pub(crate) struct Input {
    /// The resource: Pods, or a workload's.
    pub(crate) resource: Resource<'static>,
    pub op: Op,
    pub subresource: String,
    pub name: String,
    pub(crate) namespace: String,
    pub namespace_labels: BTreeMap<String, String>,
    /// The labels of the new and the old Pod.
    pub(crate) labels: [Option<BTreeMap<String, String>>; 2],
    pub(crate) object: Value,
    pub(crate) old_object: Value,
    pub(crate) request: Value,
    pub(crate) namespace_object: Value,
}

/// A Pod document, decoded and defaulted.
fn pod_of(value: Json, input: &str, settings: &Settings) -> Result<Pod, InputError> {
    let mut pod = document::pod_from_value(value, input)?;
    apply_pod_defaults(&mut pod, settings);
    Ok(pod)
}

/// A Pod back as JSON.
fn json_of(pod: &Pod, input: &str) -> Result<Json, InputError> {
    serde_json::to_value(pod).map_err(|e| InputError::malformed(input, e.to_string()))
}

/// A Pod document, decoded and defaulted, back as JSON.
fn pod_json(value: Json, input: &str, settings: &Settings) -> Result<Json, InputError> {
    json_of(&pod_of(value, input, settings)?, input)
}

/// What the request is about: a Pod, or a workload kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Pod,
    Workload(&'static KindInfo),
}

impl Target {
    /// The target a document's `kind` names (anything but a workload is read as a Pod).
    fn of(value: &Json) -> Target {
        WorkloadKind::of_value(value).map_or(Target::Pod, |k| Target::Workload(k.info()))
    }

    /// The target a review's `request.resource` names, when podmut evaluates policies on it.
    fn of_resource(group: &str, resource: &str) -> Option<Target> {
        if group.is_empty() && resource == "pods" {
            return Some(Target::Pod);
        }
        KINDS
            .iter()
            .find(|k| k.resource == resource && k.group() == group)
            .map(Target::Workload)
    }

    fn resource(self) -> Resource<'static> {
        match self {
            Target::Pod => Resource::POD,
            Target::Workload(k) => Resource {
                group: k.group(),
                version: "v1",
                resource: k.resource,
            },
        }
    }

    fn kind(self) -> &'static str {
        match self {
            Target::Pod => "Pod",
            Target::Workload(k) => k.name,
        }
    }

    /// The object as validating admission sees it: decoded (unknown fields dropped) and
    /// defaulted, as JSON.
    fn object(self, value: Json, input: &str, settings: &Settings) -> Result<Json, InputError> {
        match self {
            Target::Pod => pod_json(value, input, settings),
            Target::Workload(info) => workload_of(value, input, info)?
                .to_value()
                .map_err(|e| InputError::malformed(input, e.to_string())),
        }
    }
}

/// A workload document of kind `info`, decoded and defaulted.
fn workload_of(value: Json, input: &str, info: &KindInfo) -> Result<Workload, InputError> {
    let checked = CheckedValue {
        value,
        duplicates: Vec::new(),
    };
    let mut w = match Workload::validate_value(checked, input) {
        Some(read) => read?.object,
        None => return Err(InputError::wrong_kind(input, format!("expected a {}", info.name))),
    };
    if w.kind() != info.kind {
        return Err(InputError::wrong_kind(
            input,
            format!("expected a {}, found a {}", info.name, w.kind().info().name),
        ));
    }
    podmut_model::workload_defaults::apply_workload_defaults(&mut w);
    Ok(w)
}

/// A workload update's `object`: the sent object with the stored status (every workload
/// strategy's `PrepareForUpdate` keeps the status on the main resource).
fn prepared_workload(mut new: Json, old: &Json) -> Json {
    if let Some(n) = new.as_object_mut() {
        match old.get("status") {
            Some(st) => n.insert("status".to_owned(), st.clone()),
            None => n.remove("status"),
        };
    }
    new
}

/// The Pod validating admission sees for an update sent as `new` on `subresource`: the path's
/// strategy step (`PrepareForUpdate` in `pkg/registry/core/pod/strategy.go`) has already kept
/// what the path may change and taken everything else from the stored Pod; on the main resource
/// that is the status.
fn prepared(subresource: &str, new: Pod, old: &Pod, settings: &Settings) -> Pod {
    match subresource.parse::<podmut_model::request_path::Subresource>() {
        Ok(sub) if sub != podmut_model::request_path::Subresource::None => {
            podmut_validation::validation::prepare_update(sub, &new, old, settings).pod
        }
        _ => Pod {
            status: old.status.clone(),
            ..new
        },
    }
}

fn labels_of(pod: &Json) -> Option<BTreeMap<String, String>> {
    let labels = pod.pointer("/metadata/labels").and_then(Json::as_object);
    Some(
        labels
            .map(|l| {
                podmut_model::order::map_from(
                    l.iter()
                        .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned()))),
                )
            })
            .unwrap_or_default(),
    )
}

fn text_at<'a>(v: &'a Json, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Json::as_str).unwrap_or_default()
}

impl Input {
    /// Build the request from the old/new Pods or from an AdmissionReview.
    pub(crate) fn build(req: &VapRequest) -> Result<Input, InputError> {
        let settings = Settings::default();
        let limit = settings.max_input_bytes;
        let (target, op, subresource, object, old, review_request) = if let Some(review) = &req.review {
            let v = document::parse_text(review, "admission-review", limit)?;
            let Some(r) = v.get("request").cloned() else {
                return Err(InputError::wrong_kind(
                    "admission-review",
                    "request: Required value: an AdmissionReview with a request",
                ));
            };
            let resource = text_at(&r, "/resource/resource");
            let Some(target) = Target::of_resource(text_at(&r, "/resource/group"), resource) else {
                return Err(InputError::wrong_kind(
                    "admission-review",
                    format!(
                        "request.resource: {resource:?}: podmut evaluates policies on Pods (resource \"pods\", group \"\") and workloads (deployments, replicasets, statefulsets, daemonsets, jobs, cronjobs, replicationcontrollers, podtemplates)"
                    ),
                ));
            };
            let op_name = text_at(&r, "/operation");
            let op = Op::parse(op_name).ok_or_else(|| {
                InputError::malformed(
                    "admission-review",
                    format!("request.operation: Unsupported value: {op_name:?}: supported values: \"CREATE\", \"UPDATE\", \"DELETE\", \"CONNECT\""),
                )
            })?;
            let object_at = |key: &str| -> Result<Option<Json>, InputError> {
                match r.get(key) {
                    None | Some(Json::Null) => Ok(None),
                    Some(p) => target.object(p.clone(), "admission-review", &settings).map(Some),
                }
            };
            let (object, old) = (object_at("object")?, object_at("oldObject")?);
            let sub = text_at(&r, "/subResource").to_owned();
            (target, op, sub, object, old, Some(r))
        } else {
            let Some(new) = &req.object else {
                return Err(InputError::malformed(
                    "new-pod",
                    "Required value: the Pod after the change (or an AdmissionReview)",
                ));
            };
            let new = document::parse_text(new, "new-pod", limit)?;
            if let Target::Workload(info) = Target::of(&new) {
                let (op, object, old) = workload_change(req, new, info, &settings)?;
                (Target::Workload(info), op, String::new(), Some(object), old, None)
            } else {
                let read = |text: &str, input: &str| -> Result<Pod, InputError> {
                    pod_of(document::parse_text(text, input, limit)?, input, &settings)
                };
                let object = pod_of(new, "new-pod", &settings)?;
                let old = req
                    .old_object
                    .as_deref()
                    .map(|t| read(t, "old-pod"))
                    .transpose()?;
                let (op, object) = match &old {
                    Some(o) => (Op::Update, prepared(&req.subresource, object, o, &settings)),
                    None => (Op::Create, object),
                };
                let old = old.map(|o| json_of(&o, "old-pod")).transpose()?;
                (
                    Target::Pod,
                    op,
                    req.subresource.clone(),
                    Some(json_of(&object, "new-pod")?),
                    old,
                    None,
                )
            }
        };
        let either = object.as_ref().or(old.as_ref());
        let meta = |p: &str| either.map(|o| text_at(o, p).to_owned()).unwrap_or_default();
        let (mut name, mut namespace) = (meta("/metadata/name"), meta("/metadata/namespace"));
        if let Some(r) = &review_request {
            if name.is_empty() {
                name = text_at(r, "/name").to_owned();
            }
            if namespace.is_empty() {
                namespace = text_at(r, "/namespace").to_owned();
            }
        }
        if namespace.is_empty() {
            namespace = "default".to_owned();
        }
        let mut namespace_labels = req.namespace_labels.clone().unwrap_or_default();
        namespace_labels.insert(NAMESPACE_NAME_LABEL.to_owned(), namespace.clone());
        let request = match review_request {
            Some(mut r) => {
                if let Some(o) = r.as_object_mut() {
                    // Upstream leaves them out of `request`: they are `object` and `oldObject`.
                    o.remove("object");
                    o.remove("oldObject");
                }
                r
            }
            None => synthetic_request(target, op, &subresource, &name, &namespace, req.user.as_deref()),
        };
        let namespace_object = map_of(vec![
            ("apiVersion".into(), from_json(&json!("v1"))),
            ("kind".into(), from_json(&json!("Namespace"))),
            (
                "metadata".into(),
                from_json(&json!({"name": namespace, "labels": namespace_labels})),
            ),
        ]);
        Ok(Input {
            resource: target.resource(),
            op,
            subresource,
            name,
            namespace,
            namespace_labels,
            labels: [
                object.as_ref().and_then(labels_of),
                old.as_ref().and_then(labels_of),
            ],
            object: object.as_ref().map_or(Value::Null, from_json),
            old_object: old.as_ref().map_or(Value::Null, from_json),
            request: from_json(&request),
            namespace_object,
        })
    }
}

/// A workload create or update given as documents: the operation, `object` and `oldObject`.
fn workload_change(
    req: &VapRequest,
    new: Json,
    info: &'static KindInfo,
    settings: &Settings,
) -> Result<(Op, Json, Option<Json>), InputError> {
    if !req.subresource.is_empty() {
        return Err(InputError::wrong_kind(
            "new-pod",
            format!(
                "a {} has no {:?} subresource podmut evaluates",
                info.name, req.subresource
            ),
        ));
    }
    let object = Target::Workload(info).object(new, "new-pod", settings)?;
    let Some(old) = &req.old_object else {
        return Ok((Op::Create, object, None));
    };
    let old = document::parse_text(old, "old-pod", settings.max_input_bytes)?;
    let old = Target::Workload(info).object(old, "old-pod", settings)?;
    Ok((Op::Update, prepared_workload(object, &old), Some(old)))
}

/// The `request` variable for a change given as old/new objects.
fn synthetic_request(
    target: Target,
    op: Op,
    subresource: &str,
    name: &str,
    namespace: &str,
    user: Option<&str>,
) -> Json {
    let options_kind = match op {
        Op::Create => "CreateOptions",
        Op::Update => "UpdateOptions",
        Op::Delete => "DeleteOptions",
        Op::Connect => "",
    };
    let user_info = user.map_or_else(|| json!({}), |u| json!({"username": u}));
    let r = target.resource();
    let kind = json!({"group": r.group, "version": r.version, "kind": target.kind()});
    let resource = json!({"group": r.group, "version": r.version, "resource": r.resource});
    json!({
        "kind": kind,
        "resource": resource,
        "subResource": subresource,
        "requestKind": kind,
        "requestResource": resource,
        "requestSubResource": subresource,
        "name": name,
        "namespace": namespace,
        "operation": op.as_str(),
        "userInfo": user_info,
        "dryRun": false,
        "options": {"apiVersion": "meta.k8s.io/v1", "kind": options_kind},
    })
}

/// One params object.
#[derive(Debug)]
pub(crate) struct Param {
    pub(crate) api_version: String,
    pub(crate) kind: String,
    pub name: String,
    pub(crate) namespace: String,
    pub(crate) labels: BTreeMap<String, String>,
    pub(crate) value: Value,
}

/// Read the params objects.
pub(crate) fn read_params(text: Option<&str>) -> Result<Vec<Param>, InputError> {
    let Some(text) = text else { return Ok(Vec::new()) };
    let items = document::parse_stream(text, "params", Settings::default().max_input_bytes)?;
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let kind = text_at(&item, "/kind").to_owned();
            if kind.is_empty() {
                return Err(InputError::wrong_kind(
                    "params",
                    format!(
                        "item {}: kind: Required value: every object names its kind",
                        i + 1
                    ),
                ));
            }
            Ok(Param {
                api_version: text_at(&item, "/apiVersion").to_owned(),
                kind,
                name: text_at(&item, "/metadata/name").to_owned(),
                namespace: text_at(&item, "/metadata/namespace").to_owned(),
                labels: labels_of(&item).unwrap_or_default(),
                value: from_json(&item),
            })
        })
        .collect()
}
