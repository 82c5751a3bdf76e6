//! What the API server does with a Pod write around validation, for `check` (an admission webhook
//! receives the object after all of it, so `review` skips this): the handler (decoding the body,
//! the URL's name and namespace, the storage's UID precondition), the stock mutating admission
//! plugins that change what is validated, the field manager, and the registry's
//! `rest.BeforeCreate` / `rest.BeforeUpdate` (generated names, the metadata an update keeps from
//! the stored object, and the common metadata validation every update gets).
//!
//! A refusal before validation is an answer without causes (`Err(message)`): the server's
//! `Status` message, e.g. `the name of the object (a) does not match the name on the URL (b)`.
//!
//! podmut sees no cluster. Where admission looks something up it answers as a cluster with nothing
//! in it but what the API server creates itself: the `default` ServiceAccount (with
//! `automountServiceAccountToken: false`, so no token volume is added), the built-in PriorityClasses
//! `system-cluster-critical` and `system-node-critical` and no default PriorityClass, and no
//! RuntimeClass. Every other ServiceAccount, PriorityClass and RuntimeClass is "not found".
//!
//! Upstream: `staging/src/k8s.io/apiserver/pkg/endpoints/handlers/{create,update}.go`,
//! `pkg/registry/rest/{create,update}.go`, `pkg/registry/generic/registry/store.go`,
//! `apimachinery/pkg/util/managedfields/internal/fieldmanager.go`, and
//! `plugin/pkg/admission/{serviceaccount,priority,defaulttolerationseconds,runtimeclass}`.

use k8s_openapi::api::core::v1::{Pod, PodSpec, Toleration};
use serde_json::Value;

use crate::pod::meta::{validate_object_meta_accessor, validate_object_meta_accessor_update};
use crate::pod::util::opt_str;
use podmut_model::field::{ErrorList, Path};
use podmut_model::gojson::{Struct, Ty};
use podmut_model::quantity::Quantity;
use podmut_model::request_path::Subresource;

/// A refusal before validation: the server's message.
pub(crate) type Refusal = String;

/// The ServiceAccount a Pod without one gets (`DefaultServiceAccountName`).
const DEFAULT_SERVICE_ACCOUNT: &str = "default";
/// `scheduling.DefaultPriorityWhenNoDefaultClassExists`.
const DEFAULT_PRIORITY: i32 = 0;
/// The PriorityClasses the API server creates (`scheduling.SystemPriorityClasses`), all
/// `PreemptLowerPriority`.
const SYSTEM_PRIORITY_CLASSES: [(&str, i32); 2] = [
    ("system-node-critical", 2_000_001_000),
    ("system-cluster-critical", 2_000_000_000),
];
/// `PreemptLowerPriority`, the preemption policy of the default and the built-in classes.
const PREEMPT_LOWER_PRIORITY: &str = "PreemptLowerPriority";
/// `maxNameLength - randomLength` of `names.SimpleNameGenerator`.
pub const MAX_GENERATED_NAME_BASE: usize = 58;
/// The five characters podmut appends to a `generateName` (the API server appends five random
/// ones from `bcdfghjklmnpqrstvwxz2456789`: a name that is valid with one suffix is with any).
pub const GENERATED_SUFFIX: &str = "xxxxx";

/// The object's namespace, as the request's (the URL's) namespace.
fn namespace(pod: &Pod) -> &str {
    match opt_str(&pod.metadata.namespace) {
        "" => "default",
        ns => ns,
    }
}

/// `admission.NewForbidden` on a Pod: `pods "<name>" is forbidden: <why>`.
fn forbidden(pod: &Pod, why: &str) -> Refusal {
    podmut_model::field::forbidden_message(
        "pods",
        opt_str(&pod.metadata.name),
        opt_str(&pod.metadata.generate_name),
        why,
    )
}

/// The body's decoding: the first quantity (in the document's order) that does not parse
/// refuses the whole request, `Pod in version "v1" cannot be handled as a Pod: <error>`.
pub(crate) fn decode(pod: &Pod) -> Result<(), Refusal> {
    let doc = serde_json::to_value(pod).unwrap_or(Value::Null);
    let parts = [
        ("spec", &podmut_model::gojson::layout::STRUCT_CORE_POD_SPEC),
        ("status", &podmut_model::gojson::layout::STRUCT_CORE_POD_STATUS),
    ];
    for (key, ty) in parts {
        if let Some(err) = doc.get(key).and_then(|v| first_bad_quantity(v, ty)) {
            return Err(format!("Pod in version \"v1\" cannot be handled as a Pod: {err}"));
        }
    }
    Ok(())
}

/// The first quantity under `v` (an external object of type `ty`) that does not parse, visiting
/// keys in the document's (sorted) order as the decoder does.
fn first_bad_quantity(v: &Value, ty: &Ty) -> Option<podmut_model::quantity::QuantityError> {
    match (ty, v) {
        (Ty::Quantity, Value::String(s)) => Quantity::parse(s.trim()).err(),
        (Ty::Ptr(inner), _) => first_bad_quantity(v, inner),
        (Ty::Slice(inner), Value::Array(items)) => items.iter().find_map(|i| first_bad_quantity(i, inner)),
        (Ty::Map(inner), Value::Object(map)) => map.values().find_map(|i| first_bad_quantity(i, inner)),
        (Ty::Struct(s), Value::Object(map)) => map.iter().find_map(|(k, item)| {
            external_field(s, k).and_then(|field_ty| first_bad_quantity(item, field_ty))
        }),
        _ => None,
    }
}

/// The type of the field an external object holds under `key`.
fn external_field(s: &Struct, key: &str) -> Option<&'static Ty> {
    s.fields.iter().find(|f| f.ext == Some(key)).map(|f| f.ty)
}

/// The legacy init-container annotations `Convert_v1_Pod_To_core_Pod` drops.
const INIT_CONTAINER_ANNOTATIONS: [&str; 4] = [
    "pod.beta.kubernetes.io/init-containers",
    "pod.alpha.kubernetes.io/init-containers",
    "pod.beta.kubernetes.io/init-container-statuses",
    "pod.alpha.kubernetes.io/init-container-statuses",
];

/// Decoding's conversion (`Convert_v1_Pod_To_core_Pod`): `serviceAccount` is the deprecated alias
/// of `serviceAccountName`, a negative `terminationGracePeriodSeconds` becomes 1, and the legacy
/// init-container annotations are dropped.
fn convert(pod: &mut Pod) {
    if let Some(spec) = pod.spec.as_mut() {
        if opt_str(&spec.service_account_name).is_empty() && !opt_str(&spec.service_account).is_empty() {
            spec.service_account_name.clone_from(&spec.service_account);
        }
        if spec.termination_grace_period_seconds.is_some_and(|t| t < 0) {
            spec.termination_grace_period_seconds = Some(1);
        }
    }
    if let Some(annotations) = pod.metadata.annotations.as_mut() {
        annotations.retain(|k, _| !INIT_CONTAINER_ANNOTATIONS.contains(&k.as_str()));
    }
}

/// A create up to `podStrategy.Validate`: decoding, the field manager, the mutating admission
/// plugins, the generated name and `PrepareForCreate`'s generation.
pub(crate) fn before_create(mut pod: Pod) -> Result<Pod, Refusal> {
    decode(&pod)?;
    convert(&mut pod);
    if pod
        .metadata
        .managed_fields
        .as_deref()
        .is_some_and(|m| !decodable(m))
    {
        pod.metadata.managed_fields = None;
    }
    admit_create(&mut pod)?;
    if opt_str(&pod.metadata.name).is_empty() && !opt_str(&pod.metadata.generate_name).is_empty() {
        let base: String = opt_str(&pod.metadata.generate_name)
            .chars()
            .take(MAX_GENERATED_NAME_BASE)
            .collect();
        pod.metadata.name = Some(format!("{base}{GENERATED_SUFFIX}"));
    }
    pod.metadata.generation = Some(1);
    Ok(pod)
}

/// The mutating admission plugins of a create, in the API server's order: ServiceAccount,
/// Priority, DefaultTolerationSeconds, RuntimeClass.
fn admit_create(pod: &mut Pod) -> Result<(), Refusal> {
    let ns = namespace(pod).to_owned();
    let spec = pod.spec.get_or_insert_with(PodSpec::default);
    if opt_str(&spec.service_account_name).is_empty() {
        spec.service_account_name = Some(DEFAULT_SERVICE_ACCOUNT.to_owned());
    }
    let sa = opt_str(&spec.service_account_name).to_owned();
    if sa != DEFAULT_SERVICE_ACCOUNT {
        return Err(forbidden(
            pod,
            &format!("error looking up service account {ns}/{sa}: serviceaccount \"{sa}\" not found"),
        ));
    }
    admit_priority(pod)?;
    let spec = pod.spec.get_or_insert_with(PodSpec::default);
    add_default_tolerations(spec);
    if let Some(class) = spec.runtime_class_name.clone() {
        return Err(forbidden(
            pod,
            &format!(
                "pod rejected: RuntimeClass {} not found",
                podmut_model::gojson::go_quote(&class)
            ),
        ));
    }
    Ok(())
}

/// The Priority plugin on a create: the class's priority and preemption policy, which the Pod may
/// only repeat.
fn admit_priority(pod: &mut Pod) -> Result<(), Refusal> {
    let spec = pod.spec.get_or_insert_with(PodSpec::default);
    let class = opt_str(&spec.priority_class_name).to_owned();
    let priority = if class.is_empty() {
        DEFAULT_PRIORITY
    } else if let Some((_, value)) = SYSTEM_PRIORITY_CLASSES.iter().find(|(n, _)| *n == class) {
        *value
    } else {
        return Err(forbidden(
            pod,
            &format!("no PriorityClass with name {class} was found"),
        ));
    };
    if let Some(p) = spec.priority
        && p != priority
    {
        return Err(forbidden(
            pod,
            &format!(
                "the integer value of priority ({p}) must not be provided in pod spec; priority admission controller computed {priority} from the given PriorityClass name"
            ),
        ));
    }
    spec.priority = Some(priority);
    if let Some(p) = spec.preemption_policy.as_deref()
        && p != PREEMPT_LOWER_PRIORITY
    {
        let p = p.to_owned();
        return Err(forbidden(
            pod,
            &format!(
                "the string value of PreemptionPolicy ({p}) must not be provided in pod spec; priority admission controller computed {PREEMPT_LOWER_PRIORITY} from the given PriorityClass name"
            ),
        ));
    }
    spec.preemption_policy = Some(PREEMPT_LOWER_PRIORITY.to_owned());
    Ok(())
}

/// DefaultTolerationSeconds: tolerate `not-ready` and `unreachable` `NoExecute` taints for 300 s
/// unless the Pod already tolerates them (creates and main-resource updates).
fn add_default_tolerations(spec: &mut PodSpec) {
    for key in ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"] {
        let tolerated = spec.tolerations.iter().flatten().any(|t| {
            let k = opt_str(&t.key);
            let e = opt_str(&t.effect);
            (k == key || k.is_empty()) && (e == "NoExecute" || e.is_empty())
        });
        if !tolerated {
            spec.tolerations.get_or_insert_with(Vec::new).push(Toleration {
                key: Some(key.to_owned()),
                operator: Some("Exists".to_owned()),
                effect: Some("NoExecute".to_owned()),
                toleration_seconds: Some(300),
                value: None,
            });
        }
    }
}

/// Whether the field manager can decode a request's `managedFields` (`DecodeManagedFields`):
/// when it cannot, it keeps the stored object's instead.
fn decodable(entries: &[k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry]) -> bool {
    entries.iter().all(|e| {
        matches!(opt_str(&e.operation), "Apply" | "Update")
            && !opt_str(&e.api_version).is_empty()
            && opt_str(&e.fields_type) == "FieldsV1"
    })
}

/// The stored Pod an update is judged against, as the server decodes it from storage
/// ([`convert`]): it always has a namespace (the URL's, `default` when the document names none).
pub(crate) fn stored(mut old: Pod) -> Pod {
    convert(&mut old);
    if opt_str(&old.metadata.namespace).is_empty() {
        old.metadata.namespace = Some(namespace(&old).to_owned());
    }
    old
}

/// An update on `sub` up to its strategy's `PrepareForUpdate`: decoding, the URL's namespace and
/// name, the UID precondition, the field manager, the mutating admission plugins of a
/// main-resource update, and `BeforeUpdate`'s metadata kept from the stored object.
pub(crate) fn before_update(mut pod: Pod, old: &Pod, sub: Subresource) -> Result<Pod, Refusal> {
    decode(&pod)?;
    convert(&mut pod);
    let (old_ns, old_name) = (namespace(old).to_owned(), opt_str(&old.metadata.name).to_owned());
    match opt_str(&pod.metadata.namespace) {
        "" => pod.metadata.namespace = Some(old_ns.clone()),
        ns if ns != old_ns => {
            return Err(
                "the namespace of the provided object does not match the namespace sent on the request"
                    .into(),
            );
        }
        _ => {}
    }
    let name = opt_str(&pod.metadata.name);
    if name != old_name {
        return Err(format!(
            "the name of the object ({name}) does not match the name on the URL ({old_name})"
        ));
    }
    let (uid, old_uid) = (opt_str(&pod.metadata.uid), opt_str(&old.metadata.uid));
    if !uid.is_empty() && uid != old_uid {
        return Err(format!(
            "Operation cannot be fulfilled on pods {}: StorageError: invalid object, Code: 4, Key: /pods/{old_ns}/{old_name}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: {uid}, UID in object meta: {old_uid}",
            podmut_model::gojson::go_quote(&old_name)
        ));
    }
    let keep_stored = sub != Subresource::None
        || pod
            .metadata
            .managed_fields
            .as_deref()
            .is_none_or(|m| m.is_empty() || !decodable(m));
    if keep_stored {
        pod.metadata
            .managed_fields
            .clone_from(&old.metadata.managed_fields);
    }
    if sub == Subresource::None {
        admit_update(&mut pod, old);
    }
    keep_stored_metadata(&mut pod, old);
    Ok(pod)
}

/// The mutating admission plugins of a main-resource update: Priority keeps the stored priority
/// and preemption policy when the request has none; DefaultTolerationSeconds adds its tolerations.
fn admit_update(pod: &mut Pod, old: &Pod) {
    let old_spec = old.spec.as_ref();
    let spec = pod.spec.get_or_insert_with(PodSpec::default);
    if spec.priority.is_none() {
        spec.priority = old_spec.and_then(|s| s.priority);
    }
    if spec.preemption_policy.is_none() {
        spec.preemption_policy = old_spec.and_then(|s| s.preemption_policy.clone());
    }
    add_default_tolerations(spec);
}

/// `BeforeUpdate`: the generation is the stored one (the strategy may bump it), an empty UID is the
/// stored one, and the creation timestamp, a deletion timestamp and a deletion grace period the
/// request drops are the stored ones.
fn keep_stored_metadata(pod: &mut Pod, old: &Pod) {
    let (meta, stored) = (&mut pod.metadata, &old.metadata);
    meta.generation = stored.generation;
    if opt_str(&meta.uid).is_empty() {
        meta.uid.clone_from(&stored.uid);
    }
    if stored.creation_timestamp.is_some() {
        meta.creation_timestamp.clone_from(&stored.creation_timestamp);
    }
    if stored.deletion_timestamp.is_some() {
        meta.deletion_timestamp.clone_from(&stored.deletion_timestamp);
    }
    if stored.deletion_grace_period_seconds.is_some() && meta.deletion_grace_period_seconds.is_none() {
        meta.deletion_grace_period_seconds = stored.deletion_grace_period_seconds;
    }
}

/// `validateCommonFields`: every update's metadata is validated by the registry before the
/// strategy validates it again (`ValidateObjectMetaAccessor` with path-segment names, then
/// `ValidateObjectMetaAccessorUpdate`), so the API server reports such errors more than once.
pub(crate) fn validate_common_fields(new: &Pod, old: &Pod, release: u8) -> ErrorList {
    let path = Path::new("metadata");
    let mut errs = validate_object_meta_accessor(&new.metadata, &path, release);
    errs.extend(validate_object_meta_accessor_update(
        &new.metadata,
        &old.metadata,
        &path,
        release,
    ));
    errs
}

#[cfg(test)]
mod tests {
    use super::*;
    use podmut_model::document::parse_pod;

    fn pod(yaml: &str) -> Pod {
        parse_pod(yaml, "pod", 1 << 20).unwrap()
    }

    #[test]
    fn the_first_bad_quantity_refuses_the_request() {
        let p = pod(
            "metadata: {name: a}\nspec:\n  containers:\n  - name: c\n    resources: {limits: {memory: 1.5.5Gi}, requests: {cpu: 1x}}\n",
        );
        let err = decode(&p).unwrap_err();
        assert!(
            err.starts_with("Pod in version \"v1\" cannot be handled as a Pod: quantities must match"),
            "{err}"
        );
        assert!(
            decode(&pod(
                "spec: {containers: [{name: c, resources: {limits: {cpu: '1'}}}]}\n"
            ))
            .is_ok()
        );
    }

    #[test]
    fn a_create_gets_a_service_account_a_priority_and_a_name() {
        let p = before_create(pod(
            "metadata: {generateName: web-, namespace: d}\nspec: {containers: [{name: c}]}\n",
        ))
        .unwrap();
        let spec = p.spec.as_ref().unwrap();
        assert_eq!(spec.service_account_name.as_deref(), Some("default"));
        assert_eq!(spec.priority, Some(0));
        assert_eq!(p.metadata.name.as_deref(), Some("web-xxxxx"));
        assert_eq!(spec.tolerations.as_ref().map(Vec::len), Some(2));
        let err = before_create(pod(
            "metadata: {name: a, namespace: d}\nspec: {priorityClassName: x, containers: [{name: c}]}\n",
        ))
        .unwrap_err();
        assert_eq!(
            err,
            "pods \"a\" is forbidden: no PriorityClass with name x was found"
        );
        let err = before_create(pod("metadata: {generateName: g-, namespace: d}\nspec: {serviceAccountName: s, containers: [{name: c}]}\n")).unwrap_err();
        assert_eq!(
            err,
            "pods \"g-\" is forbidden: error looking up service account d/s: serviceaccount \"s\" not found"
        );
    }

    #[test]
    fn an_update_keeps_the_stored_identity() {
        let old = pod(
            "metadata: {name: a, namespace: d, uid: u1, creationTimestamp: '2020-01-01T00:00:00Z', generation: 3}\nspec: {containers: [{name: c}]}\n",
        );
        let new = pod(
            "metadata: {name: a, namespace: d, creationTimestamp: '2021-01-01T00:00:00Z', generation: 1}\nspec: {containers: [{name: c}]}\n",
        );
        let p = before_update(new, &old, Subresource::None).unwrap();
        assert_eq!(p.metadata, {
            let mut m = old.metadata.clone();
            m.managed_fields = None;
            m
        });
        let renamed = pod("metadata: {name: b, namespace: d}\nspec: {containers: [{name: c}]}\n");
        assert_eq!(
            before_update(renamed, &old, Subresource::None).unwrap_err(),
            "the name of the object (b) does not match the name on the URL (a)"
        );
    }
}
