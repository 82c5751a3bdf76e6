//! AdmissionReviews of workloads (Deployments, Jobs, ... on their main resource): judged as the
//! API server judges the create or update ([`podmut_validation::workload::check_workload`]) and
//! answered in the API server's own `Status` shape for the kind (`Deployment.apps "web" is
//! invalid: ...`, `details.group: apps`).

use kube_core::DynamicObject;
use kube_core::admission::{AdmissionRequest, AdmissionResponse, AdmissionReview, Operation};
use serde_json::Value;

use podmut_model::document::{self, InputError};
use podmut_model::field_validation::CheckedValue;
use podmut_model::settings::Settings;
use podmut_model::workload::{KINDS, KindInfo};
use podmut_validation::workload::{WorkloadDocument, check_workload, read_workload};

const INPUT: &str = "admission-review";

/// The workload kind a review's `request` is about: its `kind.kind` and `resource` (resource and
/// group) are one row of [`KINDS`].
pub(crate) fn workload_of(request: &Value) -> Option<&'static KindInfo> {
    let at = |p: &str| request.pointer(p).and_then(Value::as_str).unwrap_or_default();
    let (kind, resource, group) = (at("/kind/kind"), at("/resource/resource"), at("/resource/group"));
    KINDS
        .iter()
        .find(|k| k.name == kind && k.resource == resource && k.group() == group)
}

/// Answer a review of a workload: a create or update on the main resource is judged; another
/// subresource (`scale`, `status`) is not podmut's to judge; DELETE and CONNECT carry nothing.
pub(crate) fn judge(
    value: &Value,
    info: &KindInfo,
    settings: &Settings,
) -> Result<AdmissionResponse, InputError> {
    let review: AdmissionReview<DynamicObject> = document::decode(value, INPUT)?;
    let req: AdmissionRequest<DynamicObject> = review
        .try_into()
        .map_err(|_| InputError::malformed(INPUT, "request: missing"))?;
    let response = AdmissionResponse::from(&req);
    if let Some(sub) = req.sub_resource.as_deref().filter(|s| !s.is_empty()) {
        return Ok(super::unjudged(
            response,
            &format!("{}/{sub}", info.resource),
            settings,
        ));
    }
    let read = |o: Option<&DynamicObject>, key: &str| -> Result<WorkloadDocument, InputError> {
        let o = o.ok_or_else(|| {
            InputError::malformed(INPUT, format!("request.{key}: required for {:?}", req.operation))
        })?;
        let value = serde_json::to_value(o).map_err(|e| InputError::malformed(INPUT, e.to_string()))?;
        let checked = CheckedValue {
            value,
            duplicates: Vec::new(),
        };
        match read_workload(checked, INPUT) {
            Some(Ok((doc, _))) if doc.workload.kind() == info.kind => Ok(doc),
            Some(Err(e)) => Err(InputError::malformed(
                INPUT,
                format!("request.{key}: {}", e.message()),
            )),
            _ => Err(InputError::wrong_kind(
                INPUT,
                format!("request.{key}: expected a {} as request.kind says", info.name),
            )),
        }
    };
    let verdict = match req.operation {
        Operation::Create => check_workload(None, read(req.object.as_ref(), "object")?, settings)?,
        Operation::Update => {
            let new = read(req.object.as_ref(), "object")?;
            let old = read(req.old_object.as_ref(), "oldObject")?;
            check_workload(Some(old), new, settings)?
        }
        _ => return Ok(response),
    };
    let name = req
        .object
        .as_ref()
        .and_then(|o| o.metadata.name.clone())
        .unwrap_or_else(|| req.name.clone());
    let kind = super::GroupKind {
        group: info.group(),
        kind: info.name,
    };
    Ok(super::respond(
        response,
        kind,
        &name,
        &verdict,
        settings.enforcement,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn review(operation: &str, object: &str, old: &str, sub: &str) -> String {
        format!(
            r#"{{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{{"uid":"u1",
            "kind":{{"group":"apps","version":"v1","kind":"Deployment"}},
            "resource":{{"group":"apps","version":"v1","resource":"deployments"}},"subResource":"{sub}",
            "requestKind":{{"group":"apps","version":"v1","kind":"Deployment"}},
            "requestResource":{{"group":"apps","version":"v1","resource":"deployments"}},
            "name":"web","namespace":"default","operation":"{operation}","userInfo":{{}},
            "object":{object},"oldObject":{old}}}}}"#
        )
    }

    fn deployment(image: &str, app: &str) -> String {
        format!(
            r#"{{"apiVersion":"apps/v1","kind":"Deployment","metadata":{{"name":"web","namespace":"default"}},
            "spec":{{"selector":{{"matchLabels":{{"app":"web"}}}},"template":{{"metadata":{{"labels":{{"app":"{app}"}}}},
            "spec":{{"containers":[{{"name":"a","image":"{image}"}}]}}}}}}}}"#
        )
    }

    fn answer(text: &str) -> Value {
        let out = crate::review(text, "").unwrap();
        serde_json::from_str::<Value>(&out).unwrap()["response"].clone()
    }

    #[test]
    fn a_deployment_is_judged_with_the_servers_status() {
        let ok = answer(&review("CREATE", &deployment("nginx", "web"), "null", ""));
        assert_eq!(ok["allowed"], true, "{ok}");
        let bad = answer(&review("CREATE", &deployment("", "other"), "null", ""));
        assert_eq!(bad["allowed"], false, "{bad}");
        let status = &bad["status"];
        assert_eq!(status["code"], 422);
        assert_eq!(status["details"]["group"], "apps");
        assert_eq!(status["details"]["kind"], "Deployment");
        let message = status["message"].as_str().unwrap();
        assert!(
            message.starts_with(r#"Deployment.apps "web" is invalid: "#),
            "{message}"
        );
        let fields: Vec<&str> = status["details"]["causes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["field"].as_str().unwrap())
            .collect();
        assert!(fields.contains(&"spec.template.metadata.labels"), "{fields:?}");
        assert!(
            fields.contains(&"spec.template.spec.containers[0].image"),
            "{fields:?}"
        );
    }

    #[test]
    fn an_update_compares_with_the_old_object_and_other_subresources_are_not_judged() {
        let old = deployment("nginx", "web");
        let changed =
            deployment("nginx:2", "web").replace(r#""app":"web"}},"template""#, r#""app":"x"}},"template""#);
        let bad = answer(&review("UPDATE", &changed, &old, ""));
        assert_eq!(bad["allowed"], false, "{bad}");
        assert!(
            bad["status"]["message"]
                .as_str()
                .unwrap()
                .contains("spec.selector"),
            "{bad}"
        );
        let scale = answer(&review("UPDATE", &changed, &old, "scale"));
        assert_eq!(scale["allowed"], true, "{scale}");
        assert!(
            scale["warnings"][0]
                .as_str()
                .unwrap()
                .contains("deployments/scale"),
            "{scale}"
        );
    }

    #[test]
    fn a_mismatched_object_is_named() {
        let pod = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"}}"#;
        let e = crate::review(&review("CREATE", pod, "null", ""), "").unwrap_err();
        assert!(e.to_string().contains("request.object"), "{e}");
    }
}
