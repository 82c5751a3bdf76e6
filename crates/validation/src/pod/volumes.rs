//! Pod volumes: `ValidateVolumes`, `validateVolumeSource` and the per-source checks, plus the
//! path helpers (`validateLocalDescendingPath`, `ValidateLocalNonReservedPath`).
//!
//! Upstream: `pkg/apis/core/validation/validation.go`. Upstream's field-path quirks are kept on
//! purpose (a second source type on `downwardAPI` is reported at `downwarAPI`, a second `cephfs`
//! at `cephFS`, a GCE PD is validated under `persistentDisk`, downward-API item paths are not
//! indexed, a projected service-account token's missing path is reported at `projected.path`).
//!
//! Left out: the full `ValidatePersistentVolumeClaimSpec` of a generic ephemeral volume's claim
//! template (only its metadata and presence are checked), cluster-trust-bundle name and signer
//! formats, and the iSCSI IQN/EUI/NAA regular expressions (only the prefix rule is checked).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{
    ClusterTrustBundleProjection, DownwardAPIVolumeFile, KeyToPath, ObjectFieldSelector,
    ProjectedVolumeSource, ResourceFieldSelector, ServiceAccountTokenProjection, Volume,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::pod::names::{self, invalid_each};
use crate::pod::options::PodValidationOptions;
use crate::pod::util::{items, opt_str};
use podmut_model::field::{BadValue, ErrorList, FieldError, Path};
use podmut_model::quantity::Quantity;

const FILE_MODE_MSG: &str = "must be a number between 0 and 0777 (octal), both inclusive";

/// The volumes that validated, by name (upstream's `map[string]core.VolumeSource`).
pub(crate) type VolumeMap<'a> = BTreeMap<&'a str, &'a Volume>;

/// `validatePathNoBacksteps`.
pub(crate) fn validate_path_no_backsteps(target: &str, path: &Path) -> ErrorList {
    if target.replace('\\', "/").split('/').any(|p| p == "..") {
        vec![FieldError::invalid(path, target, "must not contain '..'").with_origin("volume/path-backsteps")]
    } else {
        ErrorList::new()
    }
}

/// `validateLocalDescendingPath`: relative, no `..` element.
pub(crate) fn validate_local_descending_path(target: &str, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    if target.starts_with('/') {
        errs.push(
            FieldError::invalid(path, target, "must be a relative path").with_origin("volume/path-relative"),
        );
    }
    errs.extend(validate_path_no_backsteps(target, path));
    errs
}

/// `ValidateLocalNonReservedPath`: a local descending path that does not start with `..`.
pub(crate) fn validate_local_non_reserved_path(target: &str, path: &Path) -> ErrorList {
    let mut errs = validate_local_descending_path(target, path);
    if target.starts_with("..") && !target.starts_with("../") {
        errs.push(
            FieldError::invalid(path, target, "must not start with '..'").with_origin("volume/path-reserved"),
        );
    }
    errs
}

fn required(path: &Path, detail: &str) -> FieldError {
    FieldError::required(path, detail).with_origin("volume/required")
}

fn file_mode(mode: Option<i32>, path: &Path) -> ErrorList {
    match mode {
        Some(m) if !(0..=0o777).contains(&m) => {
            vec![FieldError::invalid(path, m, FILE_MODE_MSG).with_origin("volume/file-mode")]
        }
        _ => ErrorList::new(),
    }
}

/// `validateKeyToPath`.
fn validate_key_to_path(kp: &KeyToPath, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    if kp.key.is_empty() {
        errs.push(required(&path.child("key"), ""));
    }
    if kp.path.is_empty() {
        errs.push(required(&path.child("path"), ""));
    }
    errs.extend(validate_local_non_reserved_path(&kp.path, &path.child("path")));
    errs.extend(file_mode(kp.mode, &path.child("mode")));
    errs
}

/// Internal field paths a downward-API selector may name in a volume (`validVolumeDownwardAPIFieldPathExpressions`).
pub(crate) const VOLUME_FIELD_PATHS: &[&str] = &[
    "metadata.annotations",
    "metadata.labels",
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
];
/// ... and in an env var (`validEnvDownwardAPIFieldPathExpressions`).
pub(crate) const ENV_FIELD_PATHS: &[&str] = &[
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.serviceAccountName",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
];
/// `validContainerResourceFieldPathExpressions`.
pub(crate) const RESOURCE_FIELD_PATHS: &[&str] = &[
    "limits.cpu",
    "limits.ephemeral-storage",
    "limits.memory",
    "requests.cpu",
    "requests.ephemeral-storage",
    "requests.memory",
];

/// `fieldpath.SplitMaybeSubscriptedPath`: `metadata.labels['x']` → (`metadata.labels`, `x`).
fn split_subscripted(field_path: &str) -> Option<(&str, &str)> {
    let s = field_path.strip_suffix("']")?;
    let (path, sub) = s.split_once("['")?;
    (!path.is_empty()).then_some((path, sub))
}

/// `podshelper.ConvertDownwardAPIFieldLabel` (the error half).
fn convert_downward_api_field_label(version: &str, label: &str) -> Result<String, String> {
    if version != "v1" {
        return Err(format!("unsupported pod version: {version}"));
    }
    if let Some((path, _)) = split_subscripted(label) {
        return match path {
            "metadata.annotations" | "metadata.labels" => Ok(label.to_owned()),
            _ => Err(format!("field label does not support subscript: {label}")),
        };
    }
    match label {
        "metadata.annotations"
        | "metadata.labels"
        | "metadata.name"
        | "metadata.namespace"
        | "metadata.uid"
        | "spec.nodeName"
        | "spec.restartPolicy"
        | "spec.serviceAccountName"
        | "spec.schedulerName"
        | "status.phase"
        | "status.hostIP"
        | "status.hostIPs"
        | "status.podIP"
        | "status.podIPs" => Ok(label.to_owned()),
        "spec.host" => Ok("spec.nodeName".to_owned()),
        _ => Err(format!("field label not supported: {label}")),
    }
}

/// `validateObjectFieldSelector`.
pub(crate) fn validate_object_field_selector(
    fs: &ObjectFieldSelector,
    expressions: &[&str],
    path: &Path,
) -> ErrorList {
    let api_version = opt_str(&fs.api_version);
    if api_version.is_empty() {
        return vec![required(&path.child("apiVersion"), "")];
    }
    if fs.field_path.is_empty() {
        return vec![required(&path.child("fieldPath"), "")];
    }
    let internal = match convert_downward_api_field_label(api_version, &fs.field_path) {
        Ok(p) => p,
        Err(e) => {
            return vec![
                FieldError::invalid(
                    &path.child("fieldPath"),
                    fs.field_path.as_str(),
                    format!("error converting fieldPath: {e}"),
                )
                .with_origin("volume/field-selector"),
            ];
        }
    };
    if let Some((p, subscript)) = split_subscripted(&internal) {
        return match p {
            "metadata.annotations" => names::validate_qualified_name(&subscript.to_lowercase(), path),
            "metadata.labels" => names::validate_qualified_name(subscript, path),
            _ => vec![
                FieldError::invalid(path, p, "does not support subscript")
                    .with_origin("volume/field-selector"),
            ],
        };
    }
    if !expressions.contains(&internal.as_str()) {
        let mut sorted: Vec<&str> = expressions.to_vec();
        podmut_model::order::sort(&mut sorted);
        return vec![
            FieldError::not_supported(&path.child("fieldPath"), internal, &sorted)
                .with_origin("volume/field-selector"),
        ];
    }
    ErrorList::new()
}

/// `validateContainerResourceFieldSelector` (with the downward-API hugepages prefixes).
pub(crate) fn validate_container_resource_field_selector(
    fs: &ResourceFieldSelector,
    path: &Path,
    volume: bool,
) -> ErrorList {
    let mut errs = ErrorList::new();
    if volume && opt_str(&fs.container_name).is_empty() {
        errs.push(required(&path.child("containerName"), ""));
    } else if fs.resource.is_empty() {
        errs.push(required(&path.child("resource"), ""));
    } else if !RESOURCE_FIELD_PATHS.contains(&fs.resource.as_str())
        && !fs.resource.starts_with("requests.hugepages-")
        && !fs.resource.starts_with("limits.hugepages-")
    {
        errs.push(
            FieldError::not_supported(
                &path.child("resource"),
                fs.resource.as_str(),
                RESOURCE_FIELD_PATHS,
            )
            .with_origin("volume/resource-field-selector"),
        );
    }
    errs.extend(validate_divisor(&fs.resource, fs.divisor.as_ref(), path));
    errs
}

/// `validateContainerResourceDivisor`: divisors are compared in their canonical string form, as
/// upstream compares `divisor.String()`.
fn validate_divisor(
    resource: &str,
    divisor: Option<&k8s_openapi::apimachinery::pkg::api::resource::Quantity>,
    path: &Path,
) -> ErrorList {
    let Some(d) = divisor else {
        return ErrorList::new();
    };
    let Ok(q) = Quantity::from_k8s(d) else {
        return vec![
            FieldError::invalid(
                &path.child("divisor"),
                d.0.as_str(),
                "quantity is not a valid Kubernetes quantity",
            )
            .with_origin("resources/quantity-format"),
        ];
    };
    if q.is_zero() {
        return ErrorList::new();
    }
    let s = q.to_string();
    let sizes = [
        "1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei",
    ];
    let detail = match resource {
        "limits.cpu" | "requests.cpu" if s != "1m" && s != "1" => {
            Some("only divisor's values 1m and 1 are supported with the cpu resource")
        }
        "limits.memory" | "requests.memory" if !sizes.contains(&s.as_str()) => Some(
            "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource",
        ),
        "limits.ephemeral-storage" | "requests.ephemeral-storage" if !sizes.contains(&s.as_str()) => Some(
            "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the local ephemeral storage resource",
        ),
        r if (r.starts_with("requests.hugepages-") || r.starts_with("limits.hugepages-"))
            && !sizes.contains(&s.as_str()) =>
        {
            Some(
                "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the hugepages resource",
            )
        }
        _ => None,
    };
    detail
        .map(|d| {
            vec![
                FieldError::invalid(&path.child("divisor"), resource, d)
                    .with_origin("volume/resource-field-selector"),
            ]
        })
        .unwrap_or_default()
}

/// `validateDownwardAPIVolumeFile` (note: upstream passes the un-indexed list path).
fn validate_downward_api_file(file: &DownwardAPIVolumeFile, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    if file.path.is_empty() {
        errs.push(required(&path.child("path"), ""));
    }
    errs.extend(validate_local_non_reserved_path(&file.path, &path.child("path")));
    if let Some(f) = &file.field_ref {
        errs.extend(validate_object_field_selector(
            f,
            VOLUME_FIELD_PATHS,
            &path.child("fieldRef"),
        ));
        if file.resource_field_ref.is_some() {
            errs.push(
                FieldError::invalid(
                    path,
                    "resource",
                    "fieldRef and resourceFieldRef can not be specified simultaneously",
                )
                .with_origin("volume/downward-api"),
            );
        }
    } else if let Some(r) = &file.resource_field_ref {
        errs.extend(validate_container_resource_field_selector(
            r,
            &path.child("resourceFieldRef"),
            true,
        ));
    } else {
        errs.push(required(path, "one of fieldRef and resourceFieldRef is required"));
    }
    errs.extend(file_mode(file.mode, &path.child("mode")));
    errs
}

/// `validateProjectionSources` / `validateProjectedVolumeSource`.
fn validate_projected(p: &ProjectedVolumeSource, path: &Path, ctx: &VolumeContext<'_>) -> ErrorList {
    let mut paths = ProjectedPaths {
        seen: BTreeSet::new(),
        projected: path,
    };
    let mut errs = file_mode(p.default_mode, &path.child("defaultMode"));
    for (i, source) in items(&p.sources).iter().enumerate() {
        let mut num = 0;
        let sp = path.child("sources").index(i);
        if let Some(s) = &source.secret {
            num += 1;
            errs.extend(key_to_path_projection(
                &s.name,
                &s.items,
                &sp.child("secret"),
                &mut paths,
            ));
        }
        if let Some(c) = &source.config_map {
            num += 1;
            errs.extend(key_to_path_projection(
                &c.name,
                &c.items,
                &sp.child("configMap"),
                &mut paths,
            ));
        }
        if let Some(d) = &source.downward_api {
            num += 1;
            let pp = sp.child("downwardAPI");
            for f in items(&d.items) {
                errs.extend(validate_downward_api_file(f, &pp));
                if !f.path.is_empty() {
                    errs.extend(paths.note(&f.path, &f.path));
                }
            }
        }
        if let Some(t) = &source.service_account_token {
            num += 1;
            errs.extend(service_account_token_projection(t, &sp, path, ctx));
        }
        if let Some(b) = &source.cluster_trust_bundle {
            num += 1;
            errs.extend(cluster_trust_bundle_projection(
                b,
                &sp.child("clusterTrustBundle"),
            ));
            errs.extend(paths.note(&b.path, &b.path));
        }
        if num > 1 {
            errs.push(
                FieldError::forbidden(&sp, "may not specify more than 1 volume type per source")
                    .with_origin("volume/one-source"),
            );
        }
    }
    errs
}

/// The file paths the sources of one projected volume write so far, and the volume's path.
struct ProjectedPaths<'a> {
    seen: BTreeSet<String>,
    projected: &'a Path,
}

impl ProjectedPaths<'_> {
    /// Note a written path: `conflicting duplicate paths` (at the volume, with `bad` as the value)
    /// when another source already writes it.
    fn note(&mut self, written: &str, bad: &str) -> Option<FieldError> {
        (!self.seen.insert(written.to_owned())).then(|| {
            FieldError::invalid(self.projected, bad, "conflicting duplicate paths")
                .with_origin("volume/projected-paths")
        })
    }
}

/// A projected `secret` or `configMap`: its name is required, and each item is a valid
/// key-to-path whose path no other source writes (the bad value of a clash is the name).
fn key_to_path_projection(
    name: &str,
    key_paths: &Option<Vec<KeyToPath>>,
    pp: &Path,
    paths: &mut ProjectedPaths<'_>,
) -> ErrorList {
    let mut errs = ErrorList::new();
    if name.is_empty() {
        errs.push(required(&pp.child("name"), ""));
    }
    for (j, kp) in items(key_paths).iter().enumerate() {
        errs.extend(validate_key_to_path(kp, &pp.child("items").index(j)));
        if !kp.path.is_empty() {
            errs.extend(paths.note(&kp.path, name));
        }
    }
    errs
}

/// A projected `serviceAccountToken`: expiration between 10 minutes and 2^32 seconds, a required
/// local path (upstream reports the path at `projected.path`, not at the source's).
fn service_account_token_projection(
    t: &ServiceAccountTokenProjection,
    sp: &Path,
    projected: &Path,
    ctx: &VolumeContext<'_>,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let pp = sp.child("serviceAccountToken");
    let exp = t.expiration_seconds.unwrap_or(0);
    if exp < 600 {
        errs.push(
            FieldError::invalid(
                &pp.child("expirationSeconds"),
                exp,
                "may not specify a duration less than 10 minutes",
            )
            .with_origin("volume/token-expiration"),
        );
    }
    if exp > 1 << 32 {
        errs.push(
            FieldError::invalid(
                &pp.child("expirationSeconds"),
                exp,
                "may not specify a duration larger than 2^32 seconds",
            )
            .with_origin("volume/token-expiration"),
        );
    }
    if t.path.is_empty() {
        errs.push(required(&projected.child("path"), ""));
    } else if !ctx.opts.allow_non_local_projected_token_path {
        errs.extend(validate_local_non_reserved_path(
            &t.path,
            &projected.child("path"),
        ));
    }
    errs
}

/// A projected `clusterTrustBundle`: a name or a signer name (with a label selector), and a local
/// path.
fn cluster_trust_bundle_projection(b: &ClusterTrustBundleProjection, pp: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    match (&b.name, &b.signer_name) {
        (Some(_), Some(_)) => errs.push(
            FieldError::invalid(
                pp,
                BadValue::go(
                    b,
                    &podmut_model::gojson::layout::STRUCT_CORE_CLUSTER_TRUST_BUNDLE_PROJECTION,
                ),
                "only one of name and signerName may be used",
            )
            .with_origin("volume/cluster-trust-bundle"),
        ),
        (Some(n), None) => {
            if n.is_empty() {
                errs.push(required(&pp.child("name"), "must be a valid object name"));
            }
            if b.label_selector.is_some() {
                errs.push(
                    FieldError::invalid(
                        &pp.child("labelSelector"),
                        BadValue::go(
                            &b.label_selector,
                            &podmut_model::gojson::layout::PTR_STRUCT_V1_LABEL_SELECTOR,
                        ),
                        "labelSelector must be unset if name is specified",
                    )
                    .with_origin("volume/cluster-trust-bundle"),
                );
            }
        }
        (None, Some(s)) => {
            if s.is_empty() {
                errs.push(required(&pp.child("signerName"), "must be a valid signer name"));
            }
            errs.extend(crate::pod::scheduling::validate_label_selector(
                b.label_selector.as_ref(),
                false,
                &pp.child("labelSelector"),
            ));
        }
        (None, None) => errs.push(required(pp, "either name or signerName must be specified")),
    }
    if b.path.is_empty() {
        errs.push(required(&pp.child("path"), ""));
    }
    errs.extend(validate_local_non_reserved_path(&b.path, &pp.child("path")));
    errs
}

/// `ValidateTemplateObjectMeta`: only labels and annotations may be set on a claim template.
fn validate_template_object_meta(meta: &ObjectMeta, path: &Path) -> ErrorList {
    let mut errs = names::validate_annotations(meta.annotations.as_ref(), &path.child("annotations"));
    errs.extend(names::validate_labels(
        meta.labels.as_ref(),
        &path.child("labels"),
    ));
    let stripped = ObjectMeta {
        labels: None,
        annotations: None,
        ..meta.clone()
    };
    let fields = [
        ("creationTimestamp", stripped.creation_timestamp.is_some()),
        (
            "deletionGracePeriodSeconds",
            stripped.deletion_grace_period_seconds.is_some(),
        ),
        ("deletionTimestamp", stripped.deletion_timestamp.is_some()),
        ("finalizers", !items(&stripped.finalizers).is_empty()),
        ("generateName", !opt_str(&stripped.generate_name).is_empty()),
        ("generation", stripped.generation.unwrap_or(0) != 0),
        ("managedFields", !items(&stripped.managed_fields).is_empty()),
        ("name", !opt_str(&stripped.name).is_empty()),
        ("namespace", !opt_str(&stripped.namespace).is_empty()),
        ("ownerReferences", !items(&stripped.owner_references).is_empty()),
        ("resourceVersion", !opt_str(&stripped.resource_version).is_empty()),
        ("selfLink", !opt_str(&stripped.self_link).is_empty()),
        ("uid", !opt_str(&stripped.uid).is_empty()),
    ];
    for (field, set) in fields {
        if set {
            errs.push(
                FieldError::forbidden(&path.child(field), "cannot be set")
                    .with_origin("volume/claim-template-meta"),
            );
        }
    }
    errs
}

/// What every volume check may need besides the volume: the Pod's name (generic ephemeral volumes
/// create PVCs named after it) and the validation options.
#[derive(Clone, Copy, Debug)]
pub(crate) struct VolumeContext<'a> {
    /// `metadata.name` of the Pod (`""` for a template).
    pub(crate) pod_name: &'a str,
    /// The options derived for this request.
    pub(crate) opts: &'a PodValidationOptions,
}

/// One volume source's checks, given the volume, its path and the context.
type SourceCheck = fn(&Volume, &Path, &VolumeContext<'_>) -> ErrorList;

/// Whether a volume sets a given source.
type SourcePresent = fn(&Volume) -> bool;

/// Every volume source in upstream's order (`validateVolumeSource`): its JSON name (what the
/// "more than 1 volume type" error names), whether the volume sets it, and its checks.
const VOLUME_SOURCES: &[(&str, SourcePresent, SourceCheck)] = &[
    ("emptyDir", |v| v.empty_dir.is_some(), empty_dir_source),
    ("hostPath", |v| v.host_path.is_some(), host_path_source),
    ("gitRepo", |v| v.git_repo.is_some(), git_repo_source),
    (
        "gcePersistentDisk",
        |v| v.gce_persistent_disk.is_some(),
        gce_persistent_disk_source,
    ),
    (
        "awsElasticBlockStore",
        |v| v.aws_elastic_block_store.is_some(),
        aws_elastic_block_store_source,
    ),
    ("secret", |v| v.secret.is_some(), secret_source),
    ("nfs", |v| v.nfs.is_some(), nfs_source),
    ("iscsi", |v| v.iscsi.is_some(), iscsi_source),
    ("glusterfs", |v| v.glusterfs.is_some(), glusterfs_source),
    ("flocker", |v| v.flocker.is_some(), flocker_source),
    (
        "persistentVolumeClaim",
        |v| v.persistent_volume_claim.is_some(),
        persistent_volume_claim_source,
    ),
    ("rbd", |v| v.rbd.is_some(), rbd_source),
    ("cinder", |v| v.cinder.is_some(), cinder_source),
    ("cephFS", |v| v.cephfs.is_some(), cephfs_source),
    ("quobyte", |v| v.quobyte.is_some(), quobyte_source),
    ("downwarAPI", |v| v.downward_api.is_some(), downward_api_source),
    ("fc", |v| v.fc.is_some(), fc_source),
    ("flexVolume", |v| v.flex_volume.is_some(), flex_volume_source),
    ("configMap", |v| v.config_map.is_some(), config_map_source),
    ("azureFile", |v| v.azure_file.is_some(), azure_file_source),
    (
        "vsphereVolume",
        |v| v.vsphere_volume.is_some(),
        vsphere_volume_source,
    ),
    (
        "photonPersistentDisk",
        |v| v.photon_persistent_disk.is_some(),
        photon_persistent_disk_source,
    ),
    (
        "portworxVolume",
        |v| v.portworx_volume.is_some(),
        portworx_volume_source,
    ),
    ("azureDisk", |v| v.azure_disk.is_some(), azure_disk_source),
    ("storageos", |v| v.storageos.is_some(), storageos_source),
    ("projected", |v| v.projected.is_some(), projected_source),
    ("scaleIO", |v| v.scale_io.is_some(), scale_io_source),
    ("csi", |v| v.csi.is_some(), csi_source),
    ("ephemeral", |v| v.ephemeral.is_some(), ephemeral_source),
    ("image", |v| v.image.is_some(), image_source),
];

/// `validateVolumeSource` for one volume: exactly one source, and that source's own checks.
fn validate_volume_source(v: &Volume, path: &Path, ctx: &VolumeContext<'_>) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut found = false;
    for (name, present, check) in VOLUME_SOURCES {
        if !present(v) {
            continue;
        }
        if found {
            errs.push(
                FieldError::forbidden(&path.child(*name), "may not specify more than 1 volume type")
                    .with_origin("volume/one-source"),
            );
        } else {
            found = true;
            errs.extend(check(v, path, ctx));
        }
    }
    if !found {
        errs.push(required(path, "must specify a volume type"));
    }
    errs
}

/// The `emptyDir` source.
fn empty_dir_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let mut e = ErrorList::new();
    if let Some(limit) = v.empty_dir.as_ref().and_then(|d| d.size_limit.as_ref()) {
        match Quantity::from_k8s(limit) {
            Ok(q) if q.sign() < 0 => e.push(
                FieldError::forbidden(
                    &path.child("emptyDir").child("sizeLimit"),
                    "SizeLimit field must be a valid resource quantity",
                )
                .with_origin("volume/empty-dir-size"),
            ),
            Ok(_) => {}
            Err(err) => e.push(
                FieldError::invalid(
                    &path.child("emptyDir").child("sizeLimit"),
                    limit.0.as_str(),
                    err.to_string(),
                )
                .with_origin("resources/quantity-format"),
            ),
        }
    }
    e
}

/// The `hostPath` source.
fn host_path_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(h) = &v.host_path else {
        return ErrorList::new();
    };
    let p = path.child("hostPath");
    if h.path.is_empty() {
        return vec![required(&p.child("path"), "")];
    }
    let mut e = validate_path_no_backsteps(&h.path, &p.child("path"));
    if let Some(t) = &h.type_ {
        let supported = [
            "",
            "BlockDevice",
            "CharDevice",
            "Directory",
            "DirectoryOrCreate",
            "File",
            "FileOrCreate",
            "Socket",
        ];
        if !supported.contains(&t.as_str()) {
            e.push(
                FieldError::not_supported(&p.child("type"), t.as_str(), &supported)
                    .with_origin("volume/host-path-type"),
            );
        }
    }
    e
}

/// The `gitRepo` source.
fn git_repo_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(g) = &v.git_repo else {
        return ErrorList::new();
    };
    let p = path.child("gitRepo");
    let mut e = ErrorList::new();
    if g.repository.is_empty() {
        e.push(required(&p.child("repository"), ""));
    }
    e.extend(validate_local_descending_path(
        opt_str(&g.directory),
        &p.child("directory"),
    ));
    e
}

/// The `gcePersistentDisk` source.
fn gce_persistent_disk_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(d) = &v.gce_persistent_disk else {
        return ErrorList::new();
    };
    let p = path.child("persistentDisk");
    let mut e = ErrorList::new();
    if d.pd_name.is_empty() {
        e.push(required(&p.child("pdName"), ""));
    }
    let part = d.partition.unwrap_or(0);
    if !(0..=255).contains(&part) {
        e.push(
            FieldError::invalid(&p.child("partition"), part, names::inclusive_range_error(1, 255))
                .with_origin("volume/partition"),
        );
    }
    e
}

/// The `awsElasticBlockStore` source.
fn aws_elastic_block_store_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(d) = &v.aws_elastic_block_store else {
        return ErrorList::new();
    };
    let p = path.child("awsElasticBlockStore");
    let mut e = ErrorList::new();
    if d.volume_id.is_empty() {
        e.push(required(&p.child("volumeID"), ""));
    }
    let part = d.partition.unwrap_or(0);
    if !(0..=255).contains(&part) {
        e.push(
            FieldError::invalid(&p.child("partition"), part, names::inclusive_range_error(1, 255))
                .with_origin("volume/partition"),
        );
    }
    e
}

/// The `secret` source.
fn secret_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(s) = &v.secret else {
        return ErrorList::new();
    };
    let p = path.child("secret");
    let mut e = ErrorList::new();
    if opt_str(&s.secret_name).is_empty() {
        e.push(required(&p.child("secretName"), ""));
    }
    e.extend(file_mode(s.default_mode, &p.child("defaultMode")));
    for (i, kp) in items(&s.items).iter().enumerate() {
        e.extend(validate_key_to_path(kp, &p.child("items").index(i)));
    }
    e
}

/// The `nfs` source.
fn nfs_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(n) = &v.nfs else { return ErrorList::new() };
    let p = path.child("nfs");
    let mut e = ErrorList::new();
    if n.server.is_empty() {
        e.push(required(&p.child("server"), ""));
    }
    if n.path.is_empty() {
        e.push(required(&p.child("path"), ""));
    }
    if !n.path.starts_with('/') {
        e.push(
            FieldError::invalid(&p.child("path"), n.path.as_str(), "must be an absolute path")
                .with_origin("volume/nfs-path"),
        );
    }
    e
}

/// The `iscsi` source.
fn iscsi_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(s) = &v.iscsi else {
        return ErrorList::new();
    };
    let p = path.child("iscsi");
    let mut e = ErrorList::new();
    if s.target_portal.is_empty() {
        e.push(required(&p.child("targetPortal"), ""));
    }
    let prefixed = |x: &str| x.starts_with("iqn") || x.starts_with("eui") || x.starts_with("naa");
    if s.iqn.is_empty() {
        e.push(required(&p.child("iqn"), ""));
    } else if !prefixed(&s.iqn) {
        e.push(
            FieldError::invalid(
                &p.child("iqn"),
                s.iqn.as_str(),
                "must be valid format starting with iqn, eui, or naa",
            )
            .with_origin("volume/iscsi"),
        );
    }
    if !(0..=255).contains(&s.lun) {
        e.push(
            FieldError::invalid(&p.child("lun"), s.lun, names::inclusive_range_error(0, 255))
                .with_origin("volume/iscsi"),
        );
    }
    if (s.chap_auth_discovery == Some(true) || s.chap_auth_session == Some(true)) && s.secret_ref.is_none() {
        e.push(required(&p.child("secretRef"), ""));
    }
    if let Some(init) = &s.initiator_name {
        if !prefixed(init) {
            e.push(
                FieldError::invalid(
                    &p.child("initiatorname"),
                    init.as_str(),
                    "must be valid format starting with iqn, eui, or naa",
                )
                .with_origin("volume/iscsi"),
            );
        }
        if v.name.len() + 1 + s.target_portal.len() > 64 {
            e.push(
                FieldError::invalid(
                    &path.child("name"),
                    v.name.as_str(),
                    "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.",
                )
                .with_origin("volume/iscsi"),
            );
        }
    }
    e
}

/// The `glusterfs` source.
fn glusterfs_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(g) = &v.glusterfs else {
        return ErrorList::new();
    };
    let p = path.child("glusterfs");
    let mut e = ErrorList::new();
    if g.endpoints.is_empty() {
        e.push(required(&p.child("endpoints"), ""));
    }
    if g.path.is_empty() {
        e.push(required(&p.child("path"), ""));
    }
    e
}

/// The `flocker` source.
fn flocker_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(f) = &v.flocker else {
        return ErrorList::new();
    };
    let p = path.child("flocker");
    let (name, uuid) = (opt_str(&f.dataset_name), opt_str(&f.dataset_uuid));
    let mut e = ErrorList::new();
    if name.is_empty() && uuid.is_empty() {
        e.push(required(&p, "one of datasetName and datasetUUID is required"));
    }
    if !name.is_empty() && !uuid.is_empty() {
        e.push(
            FieldError::invalid(
                &p,
                "resource",
                "datasetName and datasetUUID can not be specified simultaneously",
            )
            .with_origin("volume/flocker"),
        );
    }
    if name.contains('/') {
        e.push(
            FieldError::invalid(&p.child("datasetName"), name, "must not contain '/'")
                .with_origin("volume/flocker"),
        );
    }
    e
}

/// The `persistentVolumeClaim` source.
fn persistent_volume_claim_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(c) = &v.persistent_volume_claim else {
        return ErrorList::new();
    };
    if c.claim_name.is_empty() {
        vec![required(
            &path.child("persistentVolumeClaim").child("claimName"),
            "",
        )]
    } else {
        ErrorList::new()
    }
}

/// The `rbd` source.
fn rbd_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(r) = &v.rbd else { return ErrorList::new() };
    let p = path.child("rbd");
    let mut e = ErrorList::new();
    if r.monitors.is_empty() {
        e.push(required(&p.child("monitors"), ""));
    }
    if r.image.is_empty() {
        e.push(required(&p.child("image"), ""));
    }
    e
}

/// The `cinder` source.
fn cinder_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(c) = &v.cinder else {
        return ErrorList::new();
    };
    let p = path.child("cinder");
    let mut e = ErrorList::new();
    if c.volume_id.is_empty() {
        e.push(required(&p.child("volumeID"), ""));
    }
    if c.secret_ref.as_ref().is_some_and(|r| r.name.is_empty()) {
        e.push(required(&p.child("secretRef").child("name"), ""));
    }
    e
}

/// The `cephFS` source.
fn cephfs_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(c) = &v.cephfs else {
        return ErrorList::new();
    };
    if c.monitors.is_empty() {
        vec![required(&path.child("cephfs").child("monitors"), "")]
    } else {
        ErrorList::new()
    }
}

/// The `quobyte` source.
fn quobyte_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(q) = &v.quobyte else {
        return ErrorList::new();
    };
    let p = path.child("quobyte");
    let mut e = ErrorList::new();
    if q.registry.is_empty() {
        e.push(required(
            &p.child("registry"),
            "must be a host:port pair or multiple pairs separated by commas",
        ));
    } else if opt_str(&q.tenant).len() >= 65 {
        e.push(required(
            &p.child("tenant"),
            "must be a UUID and may not exceed a length of 64 characters",
        ));
    } else {
        for pair in q.registry.split(',') {
            if !pair.contains(':') {
                e.push(
                    FieldError::invalid(
                        &p.child("registry"),
                        q.registry.as_str(),
                        "must be a host:port pair or multiple pairs separated by commas",
                    )
                    .with_origin("volume/quobyte"),
                );
            }
        }
    }
    if q.volume.is_empty() {
        e.push(required(&p.child("volume"), ""));
    }
    e
}

/// The `downwarAPI` source.
fn downward_api_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(d) = &v.downward_api else {
        return ErrorList::new();
    };
    let p = path.child("downwardAPI");
    let mut e = file_mode(d.default_mode, &p.child("defaultMode"));
    for f in items(&d.items) {
        e.extend(validate_downward_api_file(f, &p));
    }
    e
}

/// The `fc` source.
fn fc_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(f) = &v.fc else { return ErrorList::new() };
    let p = path.child("fc");
    let (wwns, wwids) = (items(&f.target_wwns), items(&f.wwids));
    let mut e = ErrorList::new();
    if wwns.is_empty() && wwids.is_empty() {
        e.push(required(
            &p.child("targetWWNs"),
            "must specify either targetWWNs or wwids, but not both",
        ));
    }
    if !wwns.is_empty() && !wwids.is_empty() {
        e.push(
            FieldError::invalid(
                &p.child("targetWWNs"),
                BadValue::go(wwns, &podmut_model::gojson::layout::SLICE_STRING),
                "targetWWNs and wwids can not be specified simultaneously",
            )
            .with_origin("volume/fc"),
        );
    }
    if !wwns.is_empty() {
        match f.lun {
            None => e.push(required(
                &p.child("lun"),
                "lun is required if targetWWNs is specified",
            )),
            Some(l) if !(0..=255).contains(&l) => e.push(
                FieldError::invalid(&p.child("lun"), l, names::inclusive_range_error(0, 255))
                    .with_origin("volume/fc"),
            ),
            Some(_) => {}
        }
    }
    e
}

/// The `flexVolume` source.
fn flex_volume_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(f) = &v.flex_volume else {
        return ErrorList::new();
    };
    let p = path.child("flexVolume");
    let mut e = ErrorList::new();
    if f.driver.is_empty() {
        e.push(required(&p.child("driver"), ""));
    }
    for k in f.options.iter().flatten().map(|(k, _)| k) {
        let ns = k.split_once('/').map_or(k.as_str(), |(n, _)| n);
        let normalized = format!(".{}", ns.to_lowercase());
        if normalized.ends_with(".kubernetes.io") || normalized.ends_with(".k8s.io") {
            e.push(
                FieldError::invalid(
                    &p.child("options").key(k),
                    k.as_str(),
                    "kubernetes.io and k8s.io namespaces are reserved",
                )
                .with_origin("volume/flex-options"),
            );
        }
    }
    e
}

/// The `configMap` source.
fn config_map_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(c) = &v.config_map else {
        return ErrorList::new();
    };
    let p = path.child("configMap");
    let mut e = ErrorList::new();
    if c.name.is_empty() {
        e.push(required(&p.child("name"), ""));
    }
    e.extend(file_mode(c.default_mode, &p.child("defaultMode")));
    for (i, kp) in items(&c.items).iter().enumerate() {
        e.extend(validate_key_to_path(kp, &p.child("items").index(i)));
    }
    e
}

/// The `azureFile` source.
fn azure_file_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(a) = &v.azure_file else {
        return ErrorList::new();
    };
    let p = path.child("azureFile");
    let mut e = ErrorList::new();
    if a.secret_name.is_empty() {
        e.push(required(&p.child("secretName"), ""));
    }
    if a.share_name.is_empty() {
        e.push(required(&p.child("shareName"), ""));
    }
    e
}

/// The `vsphereVolume` source.
fn vsphere_volume_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(s) = &v.vsphere_volume else {
        return ErrorList::new();
    };
    if s.volume_path.is_empty() {
        vec![required(&path.child("vsphereVolume").child("volumePath"), "")]
    } else {
        ErrorList::new()
    }
}

/// The `photonPersistentDisk` source.
fn photon_persistent_disk_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(s) = &v.photon_persistent_disk else {
        return ErrorList::new();
    };
    if s.pd_id.is_empty() {
        vec![required(&path.child("photonPersistentDisk").child("pdID"), "")]
    } else {
        ErrorList::new()
    }
}

/// The `portworxVolume` source.
fn portworx_volume_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(s) = &v.portworx_volume else {
        return ErrorList::new();
    };
    if s.volume_id.is_empty() {
        vec![required(&path.child("portworxVolume").child("volumeID"), "")]
    } else {
        ErrorList::new()
    }
}

/// The `azureDisk` source.
fn azure_disk_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(a) = &v.azure_disk else {
        return ErrorList::new();
    };
    let p = path.child("azureDisk");
    let mut e = ErrorList::new();
    if a.disk_name.is_empty() {
        e.push(required(&p.child("diskName"), ""));
    }
    if a.disk_uri.is_empty() {
        e.push(required(&p.child("diskURI"), ""));
    }
    if let Some(m) = &a.caching_mode
        && !["None", "ReadOnly", "ReadWrite"].contains(&m.as_str())
    {
        e.push(
            FieldError::not_supported(
                &p.child("cachingMode"),
                m.as_str(),
                &["None", "ReadOnly", "ReadWrite"],
            )
            .with_origin("volume/azure-disk"),
        );
    }
    if let Some(k) = &a.kind {
        if !["Dedicated", "Managed", "Shared"].contains(&k.as_str()) {
            e.push(
                FieldError::not_supported(&p.child("kind"), k.as_str(), &["Dedicated", "Managed", "Shared"])
                    .with_origin("volume/azure-disk"),
            );
        }
        if k == "Managed" && !a.disk_uri.starts_with("/subscriptions/") {
            e.push(
                FieldError::not_supported(
                    &p.child("diskURI"),
                    a.disk_uri.as_str(),
                    &["/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}"],
                )
                .with_origin("volume/azure-disk"),
            );
        }
        if k != "Managed" && !a.disk_uri.starts_with("https://") {
            e.push(
                FieldError::not_supported(
                    &p.child("diskURI"),
                    a.disk_uri.as_str(),
                    &["https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"],
                )
                .with_origin("volume/azure-disk"),
            );
        }
    }
    e
}

/// The `storageos` source.
fn storageos_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(s) = &v.storageos else {
        return ErrorList::new();
    };
    let p = path.child("storageos");
    let mut e = ErrorList::new();
    let name = opt_str(&s.volume_name);
    if name.is_empty() {
        e.push(required(&p.child("volumeName"), ""));
    } else {
        e.extend(names::validate_dns1123_label(name, &p.child("volumeName")));
    }
    let ns = opt_str(&s.volume_namespace);
    if !ns.is_empty() {
        e.extend(names::validate_dns1123_label(ns, &p.child("volumeNamespace")));
    }
    if s.secret_ref.as_ref().is_some_and(|r| r.name.is_empty()) {
        e.push(required(&p.child("secretRef").child("name"), ""));
    }
    e
}

/// The `projected` source.
fn projected_source(v: &Volume, path: &Path, ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(p) = &v.projected else {
        return ErrorList::new();
    };
    validate_projected(p, &path.child("projected"), ctx)
}

/// The `scaleIO` source.
fn scale_io_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(s) = &v.scale_io else {
        return ErrorList::new();
    };
    let p = path.child("scaleIO");
    let mut e = ErrorList::new();
    if s.gateway.is_empty() {
        e.push(required(&p.child("gateway"), ""));
    }
    if s.system.is_empty() {
        e.push(required(&p.child("system"), ""));
    }
    if opt_str(&s.volume_name).is_empty() {
        e.push(required(&p.child("volumeName"), ""));
    }
    e
}

/// The `csi` source.
fn csi_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(c) = &v.csi else { return ErrorList::new() };
    let p = path.child("csi");
    let mut e = ErrorList::new();
    let dp = p.child("driver");
    if c.driver.is_empty() {
        e.push(required(&dp, ""));
    }
    if c.driver.len() > 63 {
        e.push(FieldError::too_long(&dp, 63).with_origin("volume/csi-driver"));
    }
    e.extend(invalid_each(
        &dp,
        &c.driver,
        names::is_dns1123_subdomain(&c.driver.to_lowercase()),
        "volume/csi-driver",
    ));
    if let Some(r) = &c.node_publish_secret_ref {
        if r.name.is_empty() {
            e.push(required(&p.child("nodePublishSecretRef").child("name"), ""));
        } else {
            e.extend(invalid_each(
                &p.child("name"),
                &r.name,
                names::name_is_dns_subdomain(&r.name, false),
                "volume/csi-secret",
            ));
        }
    }
    e
}

/// The `ephemeral` source.
fn ephemeral_source(v: &Volume, path: &Path, ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(eph) = &v.ephemeral else {
        return ErrorList::new();
    };
    let p = path.child("ephemeral");
    let mut e = ErrorList::new();
    match &eph.volume_claim_template {
        None => e.push(required(&p.child("volumeClaimTemplate"), "")),
        Some(t) => {
            if let Some(m) = &t.metadata {
                e.extend(validate_template_object_meta(
                    m,
                    &p.child("volumeClaimTemplate").child("metadata"),
                ));
            }
        }
    }
    if !ctx.pod_name.is_empty() && !v.name.is_empty() {
        let pvc = format!("{}-{}", ctx.pod_name, v.name);
        for msg in names::name_is_dns_subdomain(&pvc, false) {
            e.push(
                FieldError::invalid(
                    &path.child("name"),
                    v.name.as_str(),
                    format!("PVC name {}: {msg}", podmut_model::gojson::go_quote(&pvc)),
                )
                .with_origin("volume/ephemeral-pvc-name"),
            );
        }
    }
    e
}

/// The `image` source.
fn image_source(v: &Volume, path: &Path, _ctx: &VolumeContext<'_>) -> ErrorList {
    let Some(i) = &v.image else {
        return ErrorList::new();
    };
    let p = path.child("image");
    let mut e = ErrorList::new();
    if opt_str(&i.reference).is_empty() {
        e.push(required(&p.child("reference"), ""));
    }
    e.extend(crate::pod::images::validate_pull_policy(
        opt_str(&i.pull_policy),
        &p.child("pullPolicy"),
    ));
    e
}

/// `ValidateVolumes`: names are DNS labels and unique, each volume has exactly one valid source,
/// and a PVC volume may not name a claim that a generic ephemeral volume of this Pod creates.
/// Returns the volumes that validated (what volume mounts may refer to) and the errors.
pub(crate) fn validate_volumes<'a>(
    volumes: &'a [Volume],
    ctx: &VolumeContext<'_>,
    path: &Path,
) -> (VolumeMap<'a>, ErrorList) {
    let pod_name = ctx.pod_name;
    let mut errs = ErrorList::new();
    let mut created_pvcs = BTreeSet::new();
    if !pod_name.is_empty() {
        for v in volumes.iter().filter(|v| v.ephemeral.is_some()) {
            created_pvcs.insert(format!("{pod_name}-{}", v.name));
        }
    }
    let mut valid = VolumeMap::new();
    let mut names_seen = BTreeSet::new();
    for (i, v) in volumes.iter().enumerate() {
        let p = path.index(i);
        let name_path = p.child("name");
        let mut el = validate_volume_source(v, &p, ctx);
        if v.name.is_empty() {
            el.push(required(&name_path, ""));
        } else {
            el.extend(names::validate_dns1123_label(&v.name, &name_path));
        }
        if names_seen.contains(v.name.as_str()) {
            el.push(FieldError::duplicate(&name_path, v.name.as_str()).with_origin("volume/duplicate-name"));
        }
        if el.is_empty() {
            names_seen.insert(v.name.as_str());
            valid.insert(v.name.as_str(), v);
        } else {
            errs.extend(el);
        }
        if let Some(c) = &v.persistent_volume_claim
            && created_pvcs.contains(&c.claim_name)
        {
            errs.push(
                FieldError::invalid(
                    &p.child("persistentVolumeClaim").child("claimName"),
                    c.claim_name.as_str(),
                    "must not reference a PVC that gets created for an ephemeral volume",
                )
                .with_origin("volume/pvc-ephemeral-conflict"),
            );
        }
    }
    (valid, errs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pod::util::{Want, summary, wanted};
    use podmut_model::field::ErrorType;

    fn vols(yaml: &str) -> Vec<Volume> {
        serde_yaml_ng::from_str(yaml).unwrap()
    }

    #[test]
    fn volume_cases() {
        let p = Path::new("spec").child("volumes");
        let cases: &[(&str, &str, &[Want])] = &[
            ("valid emptyDir", "[{name: a, emptyDir: {}}]", &[]),
            (
                "no source",
                "[{name: a}]",
                &[(ErrorType::Required, "spec.volumes[0]", "volume/required")],
            ),
            (
                "two sources",
                "[{name: a, emptyDir: {}, secret: {secretName: s}}]",
                &[(
                    ErrorType::Forbidden,
                    "spec.volumes[0].secret",
                    "volume/one-source",
                )],
            ),
            (
                "duplicate names",
                "[{name: a, emptyDir: {}}, {name: a, emptyDir: {}}]",
                &[(
                    ErrorType::Duplicate,
                    "spec.volumes[1].name",
                    "volume/duplicate-name",
                )],
            ),
            (
                "bad name",
                "[{name: A, emptyDir: {}}]",
                &[(ErrorType::Invalid, "spec.volumes[0].name", "format/dns-label")],
            ),
            (
                "hostPath backsteps",
                "[{name: a, hostPath: {path: /a/../b}}]",
                &[(
                    ErrorType::Invalid,
                    "spec.volumes[0].hostPath.path",
                    "volume/path-backsteps",
                )],
            ),
            (
                "secret mode",
                "[{name: a, secret: {secretName: s, defaultMode: 1000}}]",
                &[(
                    ErrorType::Invalid,
                    "spec.volumes[0].secret.defaultMode",
                    "volume/file-mode",
                )],
            ),
            (
                "negative emptyDir size",
                "[{name: a, emptyDir: {sizeLimit: '-1'}}]",
                &[(
                    ErrorType::Forbidden,
                    "spec.volumes[0].emptyDir.sizeLimit",
                    "volume/empty-dir-size",
                )],
            ),
            (
                "pvc needs claim name",
                "[{name: a, persistentVolumeClaim: {claimName: ''}}]",
                &[(
                    ErrorType::Required,
                    "spec.volumes[0].persistentVolumeClaim.claimName",
                    "volume/required",
                )],
            ),
            (
                "downward api with unsupported field",
                "[{name: a, downwardAPI: {items: [{path: x, fieldRef: {apiVersion: v1, fieldPath: spec.nodeName}}]}}]",
                &[(
                    ErrorType::NotSupported,
                    "spec.volumes[0].downwardAPI.fieldRef.fieldPath",
                    "volume/field-selector",
                )],
            ),
        ];
        for (name, yaml, want) in cases {
            let v = vols(yaml);
            let opts = PodValidationOptions::default();
            let ctx = VolumeContext {
                pod_name: "pod",
                opts: &opts,
            };
            let (_, errs) = validate_volumes(&v, &ctx, &p);
            let got = summary(&errs);
            let want = wanted(want);
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn paths() {
        let p = Path::new("x");
        assert!(validate_local_non_reserved_path("a/b", &p).is_empty());
        assert_eq!(validate_local_non_reserved_path("/a", &p).len(), 1);
        assert_eq!(validate_local_non_reserved_path("..a", &p).len(), 1);
        assert_eq!(validate_local_non_reserved_path("../a", &p).len(), 1);
    }
}
