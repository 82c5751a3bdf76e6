//! The rule-origin table: every `origin` a check error can carry, the request paths whose
//! pipeline runs the rule, the upstream source it follows and one line saying what it asks.
//!
//! `podmut rules` and `podmut explain ORIGIN` print this table; the unit test below keeps it equal
//! to the origins the code emits (a new origin without a row, or a row whose origin no code emits,
//! fails it), and the conformance suite fails when an origin has no fixture.
//!
//! Upstream sources are the supported Kubernetes releases (see [`UPSTREAM`]; a rule a release
//! added names it): `pkg/apis/core/validation.X` is `X` in `pkg/apis/core/validation/validation.go`,
//! `k8s.io/apimachinery/...` the staging package of that name. Rules of request paths that have
//! no upstream code yet name their KEP.

use podmut_model::request_path::RequestPath;

mod fixture_counts;

/// The Kubernetes releases the upstream sources refer to.
pub const UPSTREAM: &str =
    "Kubernetes v1.35.4, v1.36.3 and v1.37.2 (k8s.io/kubernetes from the Go module proxy)";

/// One rule origin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The stable id errors carry (`FieldError::origin`), `area/name`.
    pub origin: &'static str,
    /// The request paths whose pipeline runs the rule.
    pub paths: &'static [RequestPath],
    /// The upstream function (or KEP) the rule follows.
    pub source: &'static str,
    /// What the rule asks, in one line.
    pub text: &'static str,
}

impl Rule {
    /// The area, the origin's part before `/` (`container`, `meta`, `dynamic`, ...).
    pub fn area(&self) -> &'static str {
        self.origin.split_once('/').map_or(self.origin, |(area, _)| area)
    }

    /// How many conformance fixtures (`tests/cases/`) expect this origin among their errors.
    /// Generated into `rules/fixture_counts.rs` by the conformance trial `rules/fixture-counts`,
    /// which fails when the file is stale (`cargo xtask bless -- rules/` rewrites it).
    pub fn fixtures(&self) -> u32 {
        fixture_counts::COUNTS
            .binary_search_by(|(origin, _)| origin.cmp(&self.origin))
            .ok()
            .and_then(|i| fixture_counts::COUNTS.get(i))
            .map_or(0, |(_, n)| *n)
    }
}

/// Every rule, sorted by origin.
pub fn rules() -> &'static [Rule] {
    RULES
}

/// The rule of `origin`, if there is one.
pub fn rule(origin: &str) -> Option<&'static Rule> {
    RULES
        .binary_search_by(|r| r.origin.cmp(origin))
        .ok()
        .and_then(|i| RULES.get(i))
}

use RequestPath::{Create, Dynamic, EphemeralContainers, Resize, Status, Update};

/// The shared validation of metadata and spec (`validatePodMetadataAndSpec`), which every path but
/// `pods/status` runs on the Pod it would store.
const SPEC: &[RequestPath] = &[Create, Update, Dynamic, EphemeralContainers, Resize];
/// The Pod-specific annotation rules: the shared validation, and `pods/status`, which runs the
/// whole Pod-annotation validation.
const SPEC_AND_STATUS: &[RequestPath] = &[Create, Update, Dynamic, EphemeralContainers, Resize, Status];
/// `ValidateObjectMetaUpdate`: every update.
const EVERY_UPDATE: &[RequestPath] = &[Update, Dynamic, EphemeralContainers, Resize, Status];
/// `ValidatePodSpecificAnnotationUpdates`: the paths that run it.
const ANNOTATION_UPDATE: &[RequestPath] = &[Update, Dynamic, EphemeralContainers, Status];
const CREATE: &[RequestPath] = &[Create];
const UPDATE: &[RequestPath] = &[Update];
/// A workload's create and update (the main resource of the workload's kind).
const CREATE_AND_UPDATE: &[RequestPath] = &[Create, Update];
/// The spec-update step of `ValidatePodUpdate`, which `pods/dynamic` shares.
const UPDATE_AND_DYNAMIC: &[RequestPath] = &[Update, Dynamic];
const DYNAMIC: &[RequestPath] = &[Dynamic];
const EPHEMERAL: &[RequestPath] = &[EphemeralContainers];
const RESIZE: &[RequestPath] = &[Resize];
const STATUS: &[RequestPath] = &[Status];

static RULES: &[Rule] = &[
    Rule {
        origin: "admission/node-capacity",
        paths: RESIZE,
        source: "plugin/pkg/admission/podresize (PodResizeValidator, 1.36)",
        text: "a resize of a bound Pod whose cpu or memory requests exceed its Node's allocatable is Forbidden (cause NodeCapacity)",
    },
    Rule {
        origin: "admission/unsupported-platform",
        paths: RESIZE,
        source: "plugin/pkg/admission/podresize (PodResizeValidator, 1.36)",
        text: "a resize of a Pod bound to a Node that is not Linux is Forbidden (cause UnsupportedPlatform)",
    },
    Rule {
        origin: "container/env-from-name",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateEnvFrom",
        text: "an envFrom configMapRef/secretRef name must be a valid object name",
    },
    Rule {
        origin: "container/env-from-prefix",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateEnvFrom",
        text: "an envFrom prefix must be a valid environment variable name prefix",
    },
    Rule {
        origin: "container/env-from-source",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateEnvFrom",
        text: "an envFrom entry names exactly one of configMapRef or secretRef",
    },
    Rule {
        origin: "container/env-key-selector",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateEnvVarValueFrom",
        text: "a configMapKeyRef/secretKeyRef needs a valid object name and key",
    },
    Rule {
        origin: "container/env-name",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateEnv",
        text: "an env variable name is required and must be a valid variable name",
    },
    Rule {
        origin: "container/env-value-from",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateEnvVarValueFrom",
        text: "valueFrom names exactly one source and is not combined with value",
    },
    Rule {
        origin: "container/host-port-duplicate",
        paths: SPEC,
        source: "pkg/apis/core/validation.AccumulateUniqueHostPorts",
        text: "no two containers may claim the same hostPort/protocol/hostIP",
    },
    Rule {
        origin: "container/image-required",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateContainerCommon",
        text: "a container (other than an ephemeral one) needs an image",
    },
    Rule {
        origin: "container/image-whitespace",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateContainerOnlyForPod",
        text: "a container image may not have leading or trailing whitespace",
    },
    Rule {
        origin: "container/init-probes-forbidden",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateInitContainers",
        text: "a non-sidecar init container may not set lifecycle or probes",
    },
    Rule {
        origin: "container/init-resize-policy",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateInitContainers",
        text: "a non-sidecar init container may not set resizePolicy",
    },
    Rule {
        origin: "container/init-resize-policy-restart-container",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateInitContainers (1.36)",
        text: "a non-sidecar init container may not have a RestartContainer resize policy, unless the stored Pod already has one",
    },
    Rule {
        origin: "container/init-restart-policy",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateInitContainerRestartPolicy",
        text: "without ContainerRestartRules an init container's restartPolicy may only be Always (a sidecar)",
    },
    Rule {
        origin: "container/mount-propagation",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateMountPropagation",
        text: "mountPropagation must be a known mode; Bidirectional needs a privileged container",
    },
    Rule {
        origin: "container/name-duplicate",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateContainers",
        text: "container names are unique across containers, init and ephemeral containers",
    },
    Rule {
        origin: "container/name-format",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateContainerCommon",
        text: "a container name must be a DNS-1123 label",
    },
    Rule {
        origin: "container/name-required",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateContainerCommon",
        text: "a container name is required",
    },
    Rule {
        origin: "container/port-name",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateContainerPorts",
        text: "a container port name must be an IANA service name and unique in the container",
    },
    Rule {
        origin: "container/port-number",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateContainerPorts",
        text: "containerPort and hostPort must be valid port numbers",
    },
    Rule {
        origin: "container/port-protocol",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateContainerPorts",
        text: "a port protocol must be TCP, UDP or SCTP",
    },
    Rule {
        origin: "container/pull-policy",
        paths: SPEC,
        source: "pkg/apis/core/validation.validatePullPolicy",
        text: "imagePullPolicy must be Always, IfNotPresent or Never",
    },
    Rule {
        origin: "container/recursive-read-only",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateVolumeMounts",
        text: "recursiveReadOnly must be a known mode and needs readOnly and no propagation",
    },
    Rule {
        origin: "container/restart-policy",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateContainerRestartPolicy",
        text: "with ContainerRestartRules a container's restartPolicy is Always, Never or OnFailure, and required with rules",
    },
    Rule {
        origin: "container/restart-policy-forbidden",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateContainers",
        text: "without ContainerRestartRules a regular container may not set restartPolicy",
    },
    Rule {
        origin: "container/restart-policy-rules",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateContainerRestartPolicy",
        text: "restartPolicyRules: at most 20, each a Restart action on exitCodes (In or NotIn, at most 255 values); none on a sidecar",
    },
    Rule {
        origin: "container/termination-message-policy",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateContainerCommon",
        text: "terminationMessagePolicy must be File or FallbackToLogsOnError",
    },
    Rule {
        origin: "container/volume-device",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateVolumeDevices",
        text: "a volumeDevice needs a name and devicePath, unique and not also mounted",
    },
    Rule {
        origin: "container/volume-device-not-found",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateVolumeDevices",
        text: "a volumeDevice must name a block-capable (PVC or ephemeral) volume of the Pod",
    },
    Rule {
        origin: "container/volume-mount",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateVolumeMounts",
        text: "a volumeMount needs a name and a unique mountPath; subPath is local and descending",
    },
    Rule {
        origin: "container/volume-mount-not-found",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateVolumeMounts",
        text: "a volumeMount must name a volume of the Pod",
    },
    Rule {
        origin: "create/apparmor-annotation-match",
        paths: CREATE,
        source: "pkg/apis/core/validation.validateAppArmorAnnotationsAndFieldsMatchOnCreate",
        text: "on create an AppArmor annotation must agree with the appArmorProfile field",
    },
    Rule {
        origin: "create/no-ephemeral-containers",
        paths: CREATE,
        source: "pkg/apis/core/validation.ValidatePodCreate",
        text: "a Pod may not be created with ephemeral containers",
    },
    Rule {
        origin: "create/node-name-gated",
        paths: CREATE,
        source: "pkg/apis/core/validation.ValidatePodCreate",
        text: "a Pod with scheduling gates may not be created with nodeName set",
    },
    Rule {
        origin: "create/seccomp-annotation-match",
        paths: CREATE,
        source: "pkg/apis/core/validation.validateSeccompAnnotationsAndFieldsMatch",
        text: "on create a seccomp annotation must agree with the seccompProfile field",
    },
    Rule {
        origin: "dynamic/container-mutation",
        paths: DYNAMIC,
        source: "KEP-5972 pods/dynamic (no upstream code yet)",
        text: "an existing container may change only its image, resources and probes on pods/dynamic",
    },
    Rule {
        origin: "dynamic/deletion-timestamp",
        paths: DYNAMIC,
        source: "KEP-5972 pods/dynamic (no upstream code yet)",
        text: "containers may not be added or removed once the Pod is being deleted",
    },
    Rule {
        origin: "dynamic/existing-claims",
        paths: DYNAMIC,
        source: "KEP-5972 pods/dynamic (no upstream code yet)",
        text: "an added container may only use resource claims the Pod already has",
    },
    Rule {
        origin: "dynamic/existing-volumes",
        paths: DYNAMIC,
        source: "KEP-5972 pods/dynamic (no upstream code yet)",
        text: "an added container may only mount volumes the Pod already has",
    },
    Rule {
        origin: "dynamic/gate-disabled",
        paths: DYNAMIC,
        source: "KEP-5972 pods/dynamic (no upstream code yet)",
        text: "pods/dynamic is not served while the DynamicContainers gate is off",
    },
    Rule {
        origin: "dynamic/init-containers",
        paths: DYNAMIC,
        source: "KEP-5972 pods/dynamic (no upstream code yet)",
        text: "init containers may not be added or removed on pods/dynamic",
    },
    Rule {
        origin: "dynamic/name-in-status",
        paths: DYNAMIC,
        source: "KEP-5972 pods/dynamic (no upstream code yet)",
        text: "an added container may not reuse a name still present in the Pod's status",
    },
    Rule {
        origin: "dynamic/no-host-ports",
        paths: DYNAMIC,
        source: "KEP-5972 pods/dynamic (no upstream code yet)",
        text: "an added container may not use host ports",
    },
    Rule {
        origin: "dynamic/no-privileged",
        paths: DYNAMIC,
        source: "KEP-5972 pods/dynamic (no upstream code yet)",
        text: "an added container may not be privileged",
    },
    Rule {
        origin: "dynamic/node-support",
        paths: DYNAMIC,
        source: "KEP-5972 pods/dynamic (no upstream code yet)",
        text: "a resize through pods/dynamic needs a node that supports in-place resize",
    },
    Rule {
        origin: "dynamic/pod-initialized",
        paths: DYNAMIC,
        source: "KEP-5972 pods/dynamic (no upstream code yet)",
        text: "containers may only be added or removed once the Pod is initialized",
    },
    Rule {
        origin: "dynamic/pod-level-resources",
        paths: DYNAMIC,
        source: "KEP-5972 pods/dynamic (no upstream code yet)",
        text: "a Pod with pod-level resources cannot be resized through pods/dynamic",
    },
    Rule {
        origin: "dynamic/pod-running",
        paths: DYNAMIC,
        source: "KEP-5972 pods/dynamic (no upstream code yet)",
        text: "containers may only be added or removed while the Pod is Running",
    },
    Rule {
        origin: "dynamic/probes-terminating",
        paths: DYNAMIC,
        source: "KEP-6318 mutable container probes",
        text: "probes may not change on a Pod being deleted or in a terminal phase",
    },
    Rule {
        origin: "dynamic/qos-class",
        paths: DYNAMIC,
        source: "KEP-5972 pods/dynamic (no upstream code yet)",
        text: "adding, removing or resizing containers may not change the QoS class",
    },
    Rule {
        origin: "dynamic/resize-limits-removed",
        paths: DYNAMIC,
        source: "pkg/apis/core/validation.ValidatePodResize",
        text: "a container's resource limits may not be removed by a resize on pods/dynamic",
    },
    Rule {
        origin: "dynamic/resize-memory-limit-decrease",
        paths: DYNAMIC,
        source: "pkg/apis/core/validation.ValidatePodResize",
        text: "a memory limit decrease follows the memoryLimitDecrease setting on pods/dynamic",
    },
    Rule {
        origin: "dynamic/resize-pod-level-removed",
        paths: DYNAMIC,
        source: "pkg/apis/core/validation.validatePodLevelResourcesResize",
        text: "pod-level resources, requests or limits may not be removed by a resize on pods/dynamic",
    },
    Rule {
        origin: "dynamic/resize-requests-removed",
        paths: DYNAMIC,
        source: "pkg/apis/core/validation.ValidatePodResize",
        text: "a container's resource requests may not be removed by a resize on pods/dynamic",
    },
    Rule {
        origin: "dynamic/resources-supported",
        paths: DYNAMIC,
        source: "KEP-5972 pods/dynamic (no upstream code yet)",
        text: "an added container may set only cpu and memory resources (what in-place resize supports)",
    },
    Rule {
        origin: "dynamic/static-pod",
        paths: DYNAMIC,
        source: "KEP-5972 pods/dynamic (no upstream code yet)",
        text: "static (mirror) Pods do not support dynamic containers or resize",
    },
    Rule {
        origin: "dynamic/windows",
        paths: DYNAMIC,
        source: "KEP-5972 pods/dynamic (no upstream code yet)",
        text: "Windows Pods do not support dynamic containers or resize",
    },
    Rule {
        origin: "ephemeral/disallowed-field",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateEphemeralContainers",
        text: "an ephemeral container may not set ports, probes, lifecycle, resources or resizePolicy",
    },
    Rule {
        origin: "ephemeral/duplicate-name",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateEphemeralContainers",
        text: "ephemeral container names are unique across all containers of the Pod",
    },
    Rule {
        origin: "ephemeral/no-change",
        paths: EPHEMERAL,
        source: "pkg/apis/core/validation.ValidatePodEphemeralContainersUpdate",
        text: "an existing ephemeral container may not be changed",
    },
    Rule {
        origin: "ephemeral/no-removal",
        paths: EPHEMERAL,
        source: "pkg/apis/core/validation.ValidatePodEphemeralContainersUpdate",
        text: "an existing ephemeral container may not be removed",
    },
    Rule {
        origin: "ephemeral/no-subpath",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateEphemeralContainers",
        text: "an ephemeral container's volume mounts may not use subPath or subPathExpr",
    },
    Rule {
        origin: "ephemeral/static-pod",
        paths: EPHEMERAL,
        source: "pkg/apis/core/validation.ValidatePodEphemeralContainersUpdate",
        text: "static (mirror) Pods do not support ephemeral containers",
    },
    Rule {
        origin: "ephemeral/target-not-found",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateEphemeralContainers",
        text: "targetContainerName must name a regular or init container of the Pod",
    },
    Rule {
        origin: "format/annotation-key",
        paths: SPEC,
        source: "k8s.io/apimachinery/pkg/api/validation.ValidateAnnotations",
        text: "an annotation key must be a qualified name (lowercased)",
    },
    Rule {
        origin: "format/dns-label",
        paths: SPEC,
        source: "k8s.io/apimachinery/pkg/util/validation.IsDNS1123Label",
        text: "a value that must be a DNS-1123 label",
    },
    Rule {
        origin: "format/dns-subdomain",
        paths: SPEC,
        source: "k8s.io/apimachinery/pkg/util/validation.IsDNS1123Subdomain",
        text: "a value that must be a DNS-1123 subdomain",
    },
    Rule {
        origin: "format/ip",
        paths: SPEC,
        source: "k8s.io/apimachinery/pkg/util/validation.IsValidIP",
        text: "a value that must be an IP address",
    },
    Rule {
        origin: "format/label-key",
        paths: SPEC,
        source: "k8s.io/apimachinery/pkg/apis/meta/v1/validation.ValidateLabelName",
        text: "a label key must be a qualified name",
    },
    Rule {
        origin: "format/label-value",
        paths: SPEC,
        source: "k8s.io/apimachinery/pkg/apis/meta/v1/validation.ValidateLabels",
        text: "a label value must be a valid label value",
    },
    Rule {
        origin: "format/qualified-name",
        paths: SPEC,
        source: "k8s.io/apimachinery/pkg/util/validation.IsQualifiedName",
        text: "a value that must be a qualified name",
    },
    Rule {
        origin: "guard/debug-capabilities",
        paths: EPHEMERAL,
        source: "podmut setting debugContainers.forbidEscalation (policies/library/ephemeral-break-glass)",
        text: "an added debug container adds no capabilities unless the Pod has the break-glass label",
    },
    Rule {
        origin: "guard/debug-privileged",
        paths: EPHEMERAL,
        source: "podmut setting debugContainers.forbidEscalation (policies/library/ephemeral-break-glass)",
        text: "an added debug container is not privileged unless the Pod has the break-glass label",
    },
    Rule {
        origin: "guard/frozen-annotations",
        paths: UPDATE,
        source: "podmut setting freezeRunningPodMetadata (policies/library/freeze-metadata)",
        text: "an update of a running Pod keeps its annotations",
    },
    Rule {
        origin: "guard/frozen-labels",
        paths: UPDATE,
        source: "podmut setting freezeRunningPodMetadata (policies/library/freeze-metadata)",
        text: "an update of a running Pod keeps its labels",
    },
    Rule {
        origin: "guard/resize-ceiling",
        paths: RESIZE,
        source: "podmut setting resizeLimits.maxCpu, maxMemory (policies/library/resize-limits)",
        text: "a resize sets no container's cpu or memory above the ceiling",
    },
    Rule {
        origin: "guard/resize-step",
        paths: RESIZE,
        source: "podmut setting resizeLimits.maxStep (policies/library/resize-limits)",
        text: "a resize multiplies a container's cpu or memory by at most the step",
    },
    Rule {
        origin: "meta/annotations-size",
        paths: SPEC,
        source: "k8s.io/apimachinery/pkg/api/validation.ValidateAnnotations",
        text: "annotations may total at most 256 KiB",
    },
    Rule {
        origin: "meta/apparmor-annotation",
        paths: SPEC_AND_STATUS,
        source: "pkg/apis/core/validation.ValidatePodSpecificAnnotations",
        text: "an AppArmor annotation must name a container of the Pod and a valid profile",
    },
    Rule {
        origin: "meta/apparmor-annotation-update",
        paths: ANNOTATION_UPDATE,
        source: "pkg/apis/core/validation.ValidatePodSpecificAnnotationUpdates",
        text: "AppArmor annotations may not be added, removed or changed on an existing Pod",
    },
    Rule {
        origin: "meta/finalizer-conflict",
        paths: SPEC,
        source: "k8s.io/apimachinery/pkg/api/validation.ValidateFinalizers",
        text: "the orphan and foregroundDeletion finalizers may not both be set",
    },
    Rule {
        origin: "meta/finalizer-name",
        paths: SPEC,
        source: "k8s.io/apimachinery/pkg/api/validation.ValidateFinalizers",
        text: "a finalizer must be a qualified name (kubernetes.io ones must be known)",
    },
    Rule {
        origin: "meta/generate-name",
        paths: SPEC,
        source: "k8s.io/apimachinery/pkg/api/validation.ValidateObjectMeta",
        text: "generateName must be a valid Pod name prefix",
    },
    Rule {
        origin: "meta/generation",
        paths: SPEC,
        source: "k8s.io/apimachinery/pkg/api/validation.ValidateObjectMeta",
        text: "metadata.generation may not be negative",
    },
    Rule {
        origin: "meta/generation-decrement",
        paths: EVERY_UPDATE,
        source: "k8s.io/apimachinery/pkg/api/validation.ValidateObjectMetaUpdate",
        text: "metadata.generation may not be decremented",
    },
    Rule {
        origin: "meta/immutable",
        paths: EVERY_UPDATE,
        source: "k8s.io/apimachinery/pkg/api/validation.ValidateObjectMetaUpdate",
        text: "name, namespace, uid, creationTimestamp and deletion fields are immutable",
    },
    Rule {
        origin: "meta/managed-fields",
        paths: SPEC,
        source: "k8s.io/apimachinery/pkg/apis/meta/v1/validation.ValidateManagedFields",
        text: "managedFields entries need a known operation and a fieldsType of FieldsV1",
    },
    Rule {
        origin: "meta/mirror-annotation-update",
        paths: ANNOTATION_UPDATE,
        source: "pkg/apis/core/validation.ValidatePodSpecificAnnotationUpdates",
        text: "the mirror-Pod annotation may not be added, removed or changed",
    },
    Rule {
        origin: "meta/mirror-needs-node",
        paths: SPEC_AND_STATUS,
        source: "pkg/apis/core/validation.ValidatePodSpecificAnnotations",
        text: "a mirror Pod must set spec.nodeName",
    },
    Rule {
        origin: "meta/name-format",
        paths: SPEC,
        source: "k8s.io/apimachinery/pkg/api/validation.ValidateObjectMeta",
        text: "a Pod name must be a DNS-1123 subdomain",
    },
    Rule {
        origin: "meta/name-required",
        paths: SPEC,
        source: "k8s.io/apimachinery/pkg/api/validation.ValidateObjectMeta",
        text: "name or generateName is required",
    },
    Rule {
        origin: "meta/namespace-format",
        paths: SPEC,
        source: "k8s.io/apimachinery/pkg/api/validation.ValidateObjectMeta",
        text: "the namespace must be a DNS-1123 label",
    },
    Rule {
        origin: "meta/namespace-required",
        paths: SPEC,
        source: "k8s.io/apimachinery/pkg/api/validation.ValidateObjectMeta",
        text: "a Pod is namespaced: the namespace is required",
    },
    Rule {
        origin: "meta/no-new-finalizers",
        paths: EVERY_UPDATE,
        source: "k8s.io/apimachinery/pkg/api/validation.ValidateNoNewFinalizers",
        text: "a Pod being deleted may not gain finalizers",
    },
    Rule {
        origin: "meta/owner-reference",
        paths: SPEC,
        source: "k8s.io/apimachinery/pkg/api/validation.ValidateOwnerReferences",
        text: "owner references need apiVersion, kind, name and uid; at most one controller",
    },
    Rule {
        origin: "meta/pod-deletion-cost",
        paths: SPEC_AND_STATUS,
        source: "pkg/apis/core/validation.ValidatePodSpecificAnnotations",
        text: "the pod-deletion-cost annotation must be a 32-bit integer",
    },
    Rule {
        origin: "meta/resource-version",
        paths: EVERY_UPDATE,
        source: "k8s.io/apimachinery/pkg/api/validation.ValidateObjectMetaUpdate",
        text: "an update must carry a resourceVersion",
    },
    Rule {
        origin: "meta/seccomp-annotation",
        paths: SPEC_AND_STATUS,
        source: "pkg/apis/core/validation.ValidatePodSpecificAnnotations",
        text: "a seccomp annotation must name a valid profile",
    },
    Rule {
        origin: "meta/tolerations-annotation",
        paths: SPEC_AND_STATUS,
        source: "pkg/apis/core/validation.ValidatePodSpecificAnnotations",
        text: "the tolerations annotation must hold valid tolerations",
    },
    Rule {
        origin: "probe/exec-command",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateExecAction",
        text: "an exec handler needs a command",
    },
    Rule {
        origin: "probe/grace-period-positive",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateProbe",
        text: "a probe's terminationGracePeriodSeconds must be positive",
    },
    Rule {
        origin: "probe/handler-required",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateHandler",
        text: "a probe or lifecycle hook must specify a handler",
    },
    Rule {
        origin: "probe/http-header",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateHTTPGetAction",
        text: "an httpGet header name must be a valid HTTP header name",
    },
    Rule {
        origin: "probe/http-path",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateHTTPGetAction",
        text: "an httpGet handler needs a path",
    },
    Rule {
        origin: "probe/http-scheme",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateHTTPGetAction",
        text: "an httpGet scheme must be HTTP or HTTPS",
    },
    Rule {
        origin: "probe/non-negative",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateProbe",
        text: "probe delays, periods, timeouts and thresholds may not be negative",
    },
    Rule {
        origin: "probe/one-handler",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateHandler",
        text: "a probe or lifecycle hook may specify only one handler",
    },
    Rule {
        origin: "probe/port",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidatePortNumOrName",
        text: "a handler port must be a valid port number or IANA service name",
    },
    Rule {
        origin: "probe/readiness-no-grace-period",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateReadinessProbe",
        text: "a readiness probe may not set terminationGracePeriodSeconds",
    },
    Rule {
        origin: "probe/sleep-seconds",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateSleepAction",
        text: "a sleep hook's seconds must be positive and below the grace period",
    },
    Rule {
        origin: "probe/success-threshold-one",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateLivenessProbe",
        text: "liveness and startup probes need successThreshold 1",
    },
    Rule {
        origin: "resize/container-list",
        paths: RESIZE,
        source: "pkg/apis/core/validation.ValidatePodResize",
        text: "pods/resize may not add or remove containers",
    },
    Rule {
        origin: "resize/gate-disabled",
        paths: RESIZE,
        source: "pkg/apis/core/validation.ValidatePodResize",
        text: "pods/resize is not served while the InPlacePodVerticalScaling gate is off",
    },
    Rule {
        origin: "resize/init-immutable",
        paths: RESIZE,
        source: "pkg/apis/core/validation.ValidatePodResize",
        text: "a non-sidecar init container's resources may not be resized",
    },
    Rule {
        origin: "resize/init-restart-container",
        paths: RESIZE,
        source: "pkg/apis/core/validation.ValidatePodResize (1.36)",
        text: "a non-sidecar init container with a RestartContainer resize policy cannot be resized",
    },
    Rule {
        origin: "resize/limits-removed",
        paths: RESIZE,
        source: "pkg/apis/core/validation.ValidatePodResize",
        text: "a container's resource limits may not be removed by a resize",
    },
    Rule {
        origin: "resize/memory-limit-decrease",
        paths: RESIZE,
        source: "pkg/apis/core/validation.ValidatePodResize",
        text: "a memory limit decrease follows the memoryLimitDecrease setting",
    },
    Rule {
        origin: "resize/node-support",
        paths: RESIZE,
        source: "pkg/apis/core/validation.ValidatePodResize",
        text: "a resize needs a node that supports in-place resize",
    },
    Rule {
        origin: "resize/only-cpu-memory",
        paths: RESIZE,
        source: "pkg/apis/core/validation.ValidatePodResize",
        text: "only a container's cpu and memory resources and resizePolicy may change",
    },
    Rule {
        origin: "resize/pod-level-only-cpu-memory",
        paths: RESIZE,
        source: "pkg/apis/core/validation.validatePodLevelResourcesResize",
        text: "only cpu and memory may change at pod level",
    },
    Rule {
        origin: "resize/pod-level-removed",
        paths: RESIZE,
        source: "pkg/apis/core/validation.validatePodLevelResourcesResize",
        text: "pod-level resources, requests or limits may not be removed by a resize",
    },
    Rule {
        origin: "resize/pod-level-resources",
        paths: RESIZE,
        source: "pkg/apis/core/validation.ValidatePodResize",
        text: "a Pod with pod-level resources cannot be resized (without the gate)",
    },
    Rule {
        origin: "resize/qos-class",
        paths: RESIZE,
        source: "pkg/apis/core/validation.ValidatePodResize",
        text: "a resize may not change the QoS class",
    },
    Rule {
        origin: "resize/requests-removed",
        paths: RESIZE,
        source: "pkg/apis/core/validation.ValidatePodResize",
        text: "a container's resource requests may not be removed by a resize",
    },
    Rule {
        origin: "resize/sidecar-only-cpu-memory",
        paths: RESIZE,
        source: "pkg/apis/core/validation.ValidatePodResize",
        text: "only a sidecar's cpu and memory resources may change",
    },
    Rule {
        origin: "resize/static-pod",
        paths: RESIZE,
        source: "pkg/apis/core/validation.ValidatePodResize",
        text: "static (mirror) Pods cannot be resized",
    },
    Rule {
        origin: "resize/windows",
        paths: RESIZE,
        source: "pkg/apis/core/validation.ValidatePodResize",
        text: "Windows Pods cannot be resized",
    },
    Rule {
        origin: "resources/claim-duplicate",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateResourceClaimNames",
        text: "a container may name a resource claim (and request) only once",
    },
    Rule {
        origin: "resources/claim-name",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateResourceClaimNames",
        text: "a container's resource claim name is required",
    },
    Rule {
        origin: "resources/claim-not-found",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateResourceClaimNames",
        text: "a container's resource claim must name an entry of spec.resourceClaims",
    },
    Rule {
        origin: "resources/hugepages-multiple",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateResourceRequirements",
        text: "a hugepages quantity must be a multiple of the page size",
    },
    Rule {
        origin: "resources/hugepages-need-cpu-memory",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateResourceRequirements",
        text: "hugepages need a cpu or memory request or limit",
    },
    Rule {
        origin: "resources/integer",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateResourceQuantityValue",
        text: "integer resources (and extended resources) must be whole numbers",
    },
    Rule {
        origin: "resources/limit-required",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateResourceRequirements",
        text: "non-overcommitable resources need a limit",
    },
    Rule {
        origin: "resources/name",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateResourceName",
        text: "a resource name must be a standard or fully qualified resource name",
    },
    Rule {
        origin: "resources/non-negative",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateResourceQuantityValue",
        text: "a resource quantity may not be negative",
    },
    Rule {
        origin: "resources/pod-claim",
        paths: SPEC,
        source: "pkg/apis/core/validation.validatePodResourceClaims",
        text: "a Pod resource claim needs a unique name and exactly one source",
    },
    Rule {
        origin: "resources/pod-level-claims",
        paths: SPEC,
        source: "pkg/apis/core/validation.validatePodResources",
        text: "pod-level resources may not list resource claims",
    },
    Rule {
        origin: "resources/pod-level-limits",
        paths: SPEC,
        source: "pkg/apis/core/validation.validatePodResources",
        text: "pod-level limits must be at least the containers' aggregate limits",
    },
    Rule {
        origin: "resources/pod-level-name",
        paths: SPEC,
        source: "pkg/apis/core/validation.validatePodResourceName",
        text: "pod-level resources support only cpu, memory and hugepages",
    },
    Rule {
        origin: "resources/pod-level-requests",
        paths: SPEC,
        source: "pkg/apis/core/validation.validatePodResources",
        text: "pod-level requests must be at least the containers' aggregate requests",
    },
    Rule {
        origin: "resources/pod-level-windows",
        paths: SPEC,
        source: "pkg/apis/core/validation.validatePodResources",
        text: "a Windows Pod may not set pod-level resources (nothing else about them is checked then)",
    },
    Rule {
        origin: "resources/quantity-format",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateResourceRequirements",
        text: "a resource quantity must parse as a Kubernetes quantity",
    },
    Rule {
        origin: "resources/request-equals-limit",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateResourceRequirements",
        text: "non-overcommitable resources need the request equal to the limit",
    },
    Rule {
        origin: "resources/request-le-limit",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateResourceRequirements",
        text: "a request may not exceed its limit",
    },
    Rule {
        origin: "resources/resize-policy",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateResizePolicy",
        text: "resizePolicy names cpu or memory once each, NotRequired or RestartContainer",
    },
    Rule {
        origin: "resources/resize-policy-restart-never",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateResizePolicy",
        text: "with restartPolicy Never a resize policy must be NotRequired",
    },
    Rule {
        origin: "scheduling/gate-duplicate",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateSchedulingGates",
        text: "scheduling gate names are unique",
    },
    Rule {
        origin: "scheduling/gate-name",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateSchedulingGates",
        text: "a scheduling gate name must be a qualified name",
    },
    Rule {
        origin: "scheduling/label-selector",
        paths: SPEC,
        source: "k8s.io/apimachinery/pkg/apis/meta/v1/validation.ValidateLabelSelector",
        text: "a label selector needs valid keys, operators and values",
    },
    Rule {
        origin: "scheduling/match-label-keys",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateLabelKeys",
        text: "matchLabelKeys/mismatchLabelKeys need a labelSelector, valid and not overlapping it",
    },
    Rule {
        origin: "scheduling/node-field-selector",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateNodeFieldSelectorRequirement",
        text: "a node field selector supports only metadata.name with one value",
    },
    Rule {
        origin: "scheduling/node-selector",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateNodeSelectorRequirement",
        text: "a node selector requirement needs a valid key, operator and values",
    },
    Rule {
        origin: "scheduling/pod-affinity-namespace",
        paths: SPEC,
        source: "pkg/apis/core/validation.validatePodAffinityTerm",
        text: "a pod affinity term's namespaces must be DNS-1123 labels",
    },
    Rule {
        origin: "scheduling/toleration-effect",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateTaintEffect",
        text: "a toleration effect must be NoSchedule, PreferNoSchedule or NoExecute",
    },
    Rule {
        origin: "scheduling/toleration-operator",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateTolerations",
        text: "a toleration operator must be Equal or Exists (Exists without a value)",
    },
    Rule {
        origin: "scheduling/toleration-seconds",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateTolerations",
        text: "tolerationSeconds needs the NoExecute effect",
    },
    Rule {
        origin: "scheduling/toleration-value",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateTolerations",
        text: "a toleration value must be a valid label value",
    },
    Rule {
        origin: "scheduling/topology-key",
        paths: SPEC,
        source: "pkg/apis/core/validation.validatePodAffinityTerm",
        text: "a pod affinity term needs a topologyKey that is a qualified name",
    },
    Rule {
        origin: "scheduling/topology-spread",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateTopologySpreadConstraints",
        text: "topology spread constraints need a valid maxSkew, key, whenUnsatisfiable and policies",
    },
    Rule {
        origin: "scheduling/weight",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidatePreferredSchedulingTerms",
        text: "a preferred scheduling term's weight must be 1-100",
    },
    Rule {
        origin: "security/apparmor",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateAppArmorProfileField",
        text: "an appArmorProfile needs a known type; Localhost needs a profile name",
    },
    Rule {
        origin: "security/fs-group-change-policy",
        paths: SPEC,
        source: "pkg/apis/core/validation.validatePodSpecSecurityContext",
        text: "fsGroupChangePolicy must be OnRootMismatch or Always",
    },
    Rule {
        origin: "security/host-process-all",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateWindowsHostProcessPod",
        text: "if one container is a HostProcess container, all must be",
    },
    Rule {
        origin: "security/host-process-disallowed",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateWindowsHostProcessPod",
        text: "HostProcess containers are disallowed by cluster policy",
    },
    Rule {
        origin: "security/host-process-host-network",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateWindowsHostProcessPod",
        text: "a Pod with HostProcess containers needs hostNetwork",
    },
    Rule {
        origin: "security/host-process-identical",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateWindowsHostProcessPod",
        text: "pod and container hostProcess values must agree",
    },
    Rule {
        origin: "security/host-users",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateHostUsers",
        text: "a Pod with hostUsers false may not share host namespaces",
    },
    Rule {
        origin: "security/id-range",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateSecurityContext",
        text: "runAsUser, runAsGroup, fsGroup and supplemental groups must be valid IDs",
    },
    Rule {
        origin: "security/privilege-escalation",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateSecurityContext",
        text: "allowPrivilegeEscalation false cannot go with privileged or CAP_SYS_ADMIN",
    },
    Rule {
        origin: "security/privileged-disallowed",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateSecurityContext",
        text: "privileged containers are disallowed by cluster policy",
    },
    Rule {
        origin: "security/proc-mount",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateSecurityContext",
        text: "procMount must be Default or Unmasked",
    },
    Rule {
        origin: "security/proc-mount-unmasked",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateSecurityContext",
        text: "procMount Unmasked needs hostUsers false",
    },
    Rule {
        origin: "security/seccomp",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateSeccompProfileField",
        text: "a seccompProfile needs a known type; Localhost needs a profile",
    },
    Rule {
        origin: "security/selinux-change-policy",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateSELinuxChangePolicy",
        text: "seLinuxChangePolicy must be Recursive or MountOption (only Recursive without SELinuxMount)",
    },
    Rule {
        origin: "security/share-process-namespace",
        paths: SPEC,
        source: "pkg/apis/core/validation.validatePodSpecSecurityContext",
        text: "shareProcessNamespace and hostPID cannot both be set",
    },
    Rule {
        origin: "security/supplemental-groups-policy",
        paths: SPEC,
        source: "pkg/apis/core/validation.validatePodSpecSecurityContext",
        text: "supplementalGroupsPolicy must be Merge or Strict",
    },
    Rule {
        origin: "security/sysctl",
        paths: SPEC,
        source: "pkg/apis/core/validation.validatePodSpecSecurityContext",
        text: "sysctl names are required, valid and unique",
    },
    Rule {
        origin: "security/sysctl-host-namespace",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateHostSysctl",
        text: "a namespaced sysctl cannot be set when the Pod shares that host namespace",
    },
    Rule {
        origin: "security/windows-options",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateWindowsSecurityContextOptions",
        text: "windowsOptions names and credential specs must be valid",
    },
    Rule {
        origin: "spec/active-deadline-range",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidatePodSpec",
        text: "activeDeadlineSeconds must be between 1 and 2^31-1",
    },
    Rule {
        origin: "spec/containers-required",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateContainers",
        text: "a Pod needs at least one container",
    },
    Rule {
        origin: "spec/dns-config",
        paths: SPEC,
        source: "pkg/apis/core/validation.validatePodDNSConfig",
        text: "dnsConfig nameservers, searches and options must be valid (and present with None)",
    },
    Rule {
        origin: "spec/dns-policy",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateDNSPolicy",
        text: "dnsPolicy must be ClusterFirstWithHostNet, ClusterFirst, Default or None",
    },
    Rule {
        origin: "spec/grace-period-required",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidatePodSpec",
        text: "terminationGracePeriodSeconds is required",
    },
    Rule {
        origin: "spec/host-network-ports",
        paths: SPEC,
        source: "pkg/apis/core/validation.validatePodHostNetworkDeps",
        text: "with hostNetwork a container's hostPort must equal its containerPort",
    },
    Rule {
        origin: "spec/name-format",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidatePodSpec",
        text: "serviceAccountName, nodeName, hostname, subdomain, priorityClassName and similar names must be well formed",
    },
    Rule {
        origin: "spec/os-linux",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateLinux",
        text: "a Linux Pod may not set Windows-only fields",
    },
    Rule {
        origin: "spec/os-name",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateOS",
        text: "os.name is required and must be linux or windows",
    },
    Rule {
        origin: "spec/os-windows",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateWindows",
        text: "a Windows Pod may not set Linux-only fields",
    },
    Rule {
        origin: "spec/preemption-policy",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidatePreemptionPolicy",
        text: "preemptionPolicy must be PreemptLowerPriority or Never",
    },
    Rule {
        origin: "spec/restart-policy",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateRestartPolicy",
        text: "restartPolicy must be Always, OnFailure or Never",
    },
    Rule {
        origin: "status/allocated-resources-status",
        paths: STATUS,
        source: "pkg/apis/core/validation.ValidatePodStatusUpdate",
        text: "allocatedResourcesStatus is set only where the gates allow and for allocated resources",
    },
    Rule {
        origin: "status/condition-type",
        paths: STATUS,
        source: "pkg/apis/core/validation.validatePodConditions",
        text: "a custom Pod condition type must be a qualified name",
    },
    Rule {
        origin: "status/container-user",
        paths: STATUS,
        source: "pkg/apis/core/validation.validateContainerStatusUsers",
        text: "a container status's user must carry valid IDs (and nothing for Windows)",
    },
    Rule {
        origin: "status/host-ips",
        paths: STATUS,
        source: "pkg/apis/core/validation.validateHostIPs",
        text: "hostIPs must be valid, unique, dual-stack at most, and start with hostIP",
    },
    Rule {
        origin: "status/node-name",
        paths: STATUS,
        source: "pkg/apis/core/validation.ValidatePodStatusUpdate",
        text: "spec.nodeName may not be changed through pods/status",
    },
    Rule {
        origin: "status/nominated-node-bound",
        paths: STATUS,
        source: "pkg/apis/core/validation.ValidatePodStatusUpdate",
        text: "nominatedNodeName may not be set on a Pod already bound to a node (ClearingNominatedNodeNameAfterBinding)",
    },
    Rule {
        origin: "status/nominated-node-name",
        paths: STATUS,
        source: "pkg/apis/core/validation.ValidatePodStatusUpdate",
        text: "nominatedNodeName must be a valid node name",
    },
    Rule {
        origin: "status/observed-generation",
        paths: STATUS,
        source: "pkg/apis/core/validation.ValidatePodStatusUpdate",
        text: "status and condition observedGeneration may not be negative",
    },
    Rule {
        origin: "status/pod-ips",
        paths: STATUS,
        source: "pkg/apis/core/validation.validatePodIPs",
        text: "podIPs must be valid, unique, dual-stack at most, and start with podIP",
    },
    Rule {
        origin: "status/qos-class-immutable",
        paths: STATUS,
        source: "pkg/apis/core/validation.ValidatePodStatusUpdate",
        text: "status.qosClass may not change",
    },
    Rule {
        origin: "status/resource-claim-statuses",
        paths: STATUS,
        source: "pkg/apis/core/validation.validatePodResourceClaimStatuses",
        text: "resource claim statuses must name entries of spec.resourceClaims, once each",
    },
    Rule {
        origin: "status/state-transition",
        paths: STATUS,
        source: "pkg/apis/core/validation.validateContainerStateTransition",
        text: "a terminated container may not restart when its restart policy forbids it",
    },
    Rule {
        origin: "strict/allow-privilege-escalation",
        paths: DYNAMIC,
        source: "KEP-5972 \"No SecurityContext escalations\" (strict profile)",
        text: "an added container disables allowPrivilegeEscalation when all existing containers do",
    },
    Rule {
        origin: "strict/app-armor-profile",
        paths: DYNAMIC,
        source: "KEP-5972 \"No SecurityContext escalations\" (strict profile)",
        text: "an added container's appArmorProfile is one an existing container or the Pod uses",
    },
    Rule {
        origin: "strict/capabilities-add",
        paths: DYNAMIC,
        source: "KEP-5972 \"No SecurityContext escalations\" (strict profile)",
        text: "an added container adds only capabilities an existing container adds",
    },
    Rule {
        origin: "strict/capabilities-drop",
        paths: DYNAMIC,
        source: "KEP-5972 \"No SecurityContext escalations\" (strict profile)",
        text: "an added container drops every capability all existing containers drop",
    },
    Rule {
        origin: "strict/proc-mount",
        paths: DYNAMIC,
        source: "KEP-5972 \"No SecurityContext escalations\" (strict profile)",
        text: "an added container's procMount is Unmasked only if an existing container's is",
    },
    Rule {
        origin: "strict/read-only-root-filesystem",
        paths: DYNAMIC,
        source: "KEP-5972 \"No SecurityContext escalations\" (strict profile)",
        text: "an added container sets readOnlyRootFilesystem when all existing containers do",
    },
    Rule {
        origin: "strict/run-as-group",
        paths: DYNAMIC,
        source: "KEP-5972 \"No SecurityContext escalations\" (strict profile)",
        text: "an added container's runAsGroup is one an existing container or the Pod uses",
    },
    Rule {
        origin: "strict/run-as-non-root",
        paths: DYNAMIC,
        source: "KEP-5972 \"No SecurityContext escalations\" (strict profile)",
        text: "an added container sets runAsNonRoot when all existing containers do",
    },
    Rule {
        origin: "strict/run-as-user",
        paths: DYNAMIC,
        source: "KEP-5972 \"No SecurityContext escalations\" (strict profile)",
        text: "an added container's runAsUser is one an existing container or the Pod uses",
    },
    Rule {
        origin: "strict/se-linux-options",
        paths: DYNAMIC,
        source: "KEP-5972 \"No SecurityContext escalations\" (strict profile)",
        text: "an added container's seLinuxOptions are ones an existing container or the Pod uses",
    },
    Rule {
        origin: "strict/seccomp-profile",
        paths: DYNAMIC,
        source: "KEP-5972 \"No SecurityContext escalations\" (strict profile)",
        text: "an added container's seccompProfile is one an existing container or the Pod uses",
    },
    Rule {
        origin: "update/active-deadline-increase",
        paths: UPDATE_AND_DYNAMIC,
        source: "pkg/apis/core/validation.ValidatePodUpdate",
        text: "activeDeadlineSeconds may only decrease",
    },
    Rule {
        origin: "update/active-deadline-range",
        paths: UPDATE_AND_DYNAMIC,
        source: "pkg/apis/core/validation.ValidatePodUpdate",
        text: "an updated activeDeadlineSeconds must be between 0 and 2^31-1",
    },
    Rule {
        origin: "update/active-deadline-unset",
        paths: UPDATE_AND_DYNAMIC,
        source: "pkg/apis/core/validation.ValidatePodUpdate",
        text: "activeDeadlineSeconds may not be removed once set",
    },
    Rule {
        origin: "update/container-list",
        paths: UPDATE,
        source: "pkg/apis/core/validation.ValidateContainerUpdates",
        text: "containers and init containers may not be added or removed by a plain update",
    },
    Rule {
        origin: "update/gated-node-affinity",
        paths: UPDATE_AND_DYNAMIC,
        source: "pkg/apis/core/validation.validateNodeAffinityMutation",
        text: "a gated Pod's required node affinity may only be narrowed",
    },
    Rule {
        origin: "update/gated-node-selector",
        paths: UPDATE_AND_DYNAMIC,
        source: "pkg/apis/core/validation.validateNodeSelectorMutation",
        text: "a gated Pod's nodeSelector may only gain entries",
    },
    Rule {
        origin: "update/image-required",
        paths: UPDATE,
        source: "pkg/apis/core/validation.ValidateContainerUpdates",
        text: "an updated container image may not be empty",
    },
    Rule {
        origin: "update/image-whitespace",
        paths: UPDATE,
        source: "pkg/apis/core/validation.ValidateContainerUpdates",
        text: "an updated container image may not have surrounding whitespace",
    },
    Rule {
        origin: "update/immutable-spec",
        paths: UPDATE_AND_DYNAMIC,
        source: "pkg/apis/core/validation.ValidatePodUpdate",
        text: "any other spec change is forbidden (the catch-all Forbidden spec)",
    },
    Rule {
        origin: "update/probes-terminal",
        paths: UPDATE_AND_DYNAMIC,
        source: "KEP-6318 mutable container probes",
        text: "probes may not change on a Pod being deleted or in a terminal phase",
    },
    Rule {
        origin: "update/scheduling-gates-only-deleted",
        paths: UPDATE_AND_DYNAMIC,
        source: "pkg/apis/core/validation.validateOnlyDeletedSchedulingGates",
        text: "scheduling gates may only be removed",
    },
    Rule {
        origin: "update/tolerations-only-added",
        paths: UPDATE_AND_DYNAMIC,
        source: "pkg/apis/core/validation.validateOnlyAddedTolerations",
        text: "tolerations may only be added (tolerationSeconds of NoExecute may decrease)",
    },
    Rule {
        origin: "volume/azure-disk",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateAzureDisk",
        text: "an azureDisk needs a known caching mode and kind, and a name and URI",
    },
    Rule {
        origin: "volume/claim-template-meta",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateTemplateObjectMeta",
        text: "an ephemeral volume's claim template may set only labels and annotations",
    },
    Rule {
        origin: "volume/cluster-trust-bundle",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateProjectionSources",
        text: "a clusterTrustBundle projection names exactly one of name or signerName, and a path",
    },
    Rule {
        origin: "volume/csi-driver",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateCSIDriverName",
        text: "a csi driver name is required, at most 63 characters, a DNS-1123 subdomain",
    },
    Rule {
        origin: "volume/csi-secret",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateCSIVolumeSource",
        text: "a csi nodePublishSecretRef needs a valid name",
    },
    Rule {
        origin: "volume/downward-api",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateDownwardAPIVolumeFile",
        text: "a downwardAPI item sets exactly one of fieldRef or resourceFieldRef",
    },
    Rule {
        origin: "volume/duplicate-name",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateVolumes",
        text: "volume names are DNS-1123 labels and unique",
    },
    Rule {
        origin: "volume/empty-dir-size",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateVolumeSource",
        text: "an emptyDir sizeLimit must be positive",
    },
    Rule {
        origin: "volume/ephemeral-pvc-name",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateEphemeralVolumeSource",
        text: "a generic ephemeral volume's PVC name (pod-volume) must be a valid name",
    },
    Rule {
        origin: "volume/fc",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateFCVolumeSource",
        text: "an fc volume names targetWWNs with a lun, or wwids, not both",
    },
    Rule {
        origin: "volume/field-selector",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateObjectFieldSelector",
        text: "a fieldRef names a supported field path with a supported apiVersion",
    },
    Rule {
        origin: "volume/file-mode",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateSecretVolumeSource",
        text: "a volume file mode (defaultMode, an item mode) must be between 0 and 0777",
    },
    Rule {
        origin: "volume/flex-options",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateFlexVolumeSource",
        text: "flexVolume options may not use the reserved kubernetes.io/ prefix",
    },
    Rule {
        origin: "volume/flocker",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateFlockerVolumeSource",
        text: "a flocker volume names exactly one of datasetName or datasetUUID",
    },
    Rule {
        origin: "volume/host-path-type",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateHostPathType",
        text: "a hostPath type must be a known type",
    },
    Rule {
        origin: "volume/iscsi",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateISCSIVolumeSource",
        text: "an iscsi volume needs a valid target portal, IQN, lun and CHAP settings",
    },
    Rule {
        origin: "volume/nfs-path",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateNFSVolumeSource",
        text: "an nfs path must be absolute",
    },
    Rule {
        origin: "volume/one-source",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateVolumes",
        text: "a volume (and each projection) has exactly one source",
    },
    Rule {
        origin: "volume/partition",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateGCEPersistentDiskVolumeSource",
        text: "a disk partition must be between 1 and 255",
    },
    Rule {
        origin: "volume/path-backsteps",
        paths: SPEC,
        source: "pkg/apis/core/validation.validatePathNoBacksteps",
        text: "a path may not contain '..'",
    },
    Rule {
        origin: "volume/path-relative",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateLocalDescendingPath",
        text: "a path must be relative and may not contain '..'",
    },
    Rule {
        origin: "volume/path-reserved",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateLocalNonReservedPath",
        text: "a path may not start with '..'",
    },
    Rule {
        origin: "volume/projected-paths",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateProjectionSources",
        text: "projected volume paths must be unique",
    },
    Rule {
        origin: "volume/pvc-ephemeral-conflict",
        paths: SPEC,
        source: "pkg/apis/core/validation.ValidateVolumes",
        text: "a persistentVolumeClaim may not name the PVC of a generic ephemeral volume",
    },
    Rule {
        origin: "volume/quobyte",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateQuobyteVolumeSource",
        text: "a quobyte volume needs registry host:port pairs or a tenant, and a volume",
    },
    Rule {
        origin: "volume/required",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateVolumeSource",
        text: "a required field of a volume source is missing",
    },
    Rule {
        origin: "volume/resource-field-selector",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateContainerResourceFieldSelector",
        text: "a resourceFieldRef names a container and a supported resource",
    },
    Rule {
        origin: "volume/token-expiration",
        paths: SPEC,
        source: "pkg/apis/core/validation.validateProjectionSources",
        text: "a serviceAccountToken expiration must be at least 10 minutes and at most 2^32 seconds",
    },
    Rule {
        origin: "volume/token-needs-service-account",
        paths: SPEC,
        source: "pkg/apis/core/validation.validatePodMetadataAndSpec",
        text: "a serviceAccountToken projection needs a serviceAccountName",
    },
    Rule {
        origin: "workload/active-deadline",
        paths: CREATE_AND_UPDATE,
        source: "pkg/apis/apps/validation.ValidatePodTemplateSpecForReplicaSet",
        text: "a Deployment's, ReplicaSet's, StatefulSet's, DaemonSet's or ReplicationController's template may not set activeDeadlineSeconds",
    },
    Rule {
        origin: "workload/cron-job",
        paths: CREATE_AND_UPDATE,
        source: "pkg/apis/batch/validation.validateCronJobSpec",
        text: "a CronJob needs a schedule without TZ, a known concurrencyPolicy, a name of at most 52 characters and a job template without selector",
    },
    Rule {
        origin: "workload/immutable-selector",
        paths: UPDATE,
        source: "pkg/apis/apps/validation.ValidateDeploymentUpdate",
        text: "a Deployment's, ReplicaSet's, StatefulSet's or DaemonSet's spec.selector may not change",
    },
    Rule {
        origin: "workload/job-completions",
        paths: CREATE_AND_UPDATE,
        source: "pkg/apis/batch/validation.validateJobSpec",
        text: "a Job's completionMode is NonIndexed or Indexed, and Indexed needs completions",
    },
    Rule {
        origin: "workload/non-negative",
        paths: CREATE_AND_UPDATE,
        source: "pkg/apis/core/validation.ValidateNonnegativeField",
        text: "a workload's counts (replicas, minReadySeconds, parallelism, completions, backoffLimit, ...) may not be negative",
    },
    Rule {
        origin: "workload/progress-deadline",
        paths: CREATE_AND_UPDATE,
        source: "pkg/apis/apps/validation.ValidateDeploymentSpec",
        text: "a Deployment's progressDeadlineSeconds must exceed minReadySeconds",
    },
    Rule {
        origin: "workload/restart-policy",
        paths: CREATE_AND_UPDATE,
        source: "pkg/apis/apps/validation.ValidatePodTemplateSpecForReplicaSet",
        text: "a template's restartPolicy is Always, or OnFailure/Never for a Job's and a CronJob's",
    },
    Rule {
        origin: "workload/selector-empty",
        paths: CREATE_AND_UPDATE,
        source: "pkg/apis/apps/validation.ValidateDeploymentSpec",
        text: "an apps/v1 workload's selector may not be empty",
    },
    Rule {
        origin: "workload/selector-invalid",
        paths: CREATE_AND_UPDATE,
        source: "pkg/apis/apps/validation.ValidateDeploymentSpec",
        text: "a selector that does not convert to a label selector",
    },
    Rule {
        origin: "workload/selector-match",
        paths: CREATE_AND_UPDATE,
        source: "pkg/apis/apps/validation.ValidatePodTemplateSpecForReplicaSet",
        text: "the workload's selector must select its template's labels",
    },
    Rule {
        origin: "workload/selector-required",
        paths: CREATE_AND_UPDATE,
        source: "pkg/apis/apps/validation.ValidateDeploymentSpec",
        text: "a workload's selector is required (a Job's is generated)",
    },
    Rule {
        origin: "workload/strategy",
        paths: CREATE_AND_UPDATE,
        source: "pkg/apis/apps/validation.ValidateDeploymentStrategy",
        text: "a workload's update strategy and pod management policy are known values",
    },
    Rule {
        origin: "workload/template-ephemeral-containers",
        paths: CREATE_AND_UPDATE,
        source: "pkg/apis/core/validation.ValidatePodTemplateSpec",
        text: "a Pod template may not have ephemeral containers",
    },
    Rule {
        origin: "workload/template-required",
        paths: CREATE_AND_UPDATE,
        source: "pkg/apis/core/validation.ValidatePodTemplateSpecForRC",
        text: "a ReplicationController needs a template",
    },
];

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use super::*;

    /// Every `"area/name"` literal of a known area, and every literal passed to `with_origin`,
    /// in the rule crates' source (`crates/`; this file and its generated fixture counts aside).
    fn emitted_origins() -> BTreeSet<String> {
        let areas: BTreeSet<&str> = RULES.iter().map(Rule::area).chain(["strict"]).collect();
        let mut found = BTreeSet::new();
        let mut stack = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("..")];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs")
                    && !path.ends_with("src/rules.rs")
                    && !path.ends_with("src/rules/fixture_counts.rs")
                {
                    let text = std::fs::read_to_string(&path).unwrap();
                    found.extend(origin_literals(&text, &areas));
                }
            }
        }
        found
    }

    /// The string literals of `text` that look like an origin: `"area/name"` with a known area, or
    /// any `area/name` literal right after `with_origin(`.
    fn origin_literals(text: &str, areas: &BTreeSet<&str>) -> Vec<String> {
        let token = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '.' | '/');
        let mut out = Vec::new();
        for (at, _) in text.match_indices('"') {
            let rest = &text[at + 1..];
            let len = rest.find(|c: char| !token(c)).unwrap_or(rest.len());
            let (literal, after) = rest.split_at(len);
            let Some((area, name)) = literal.split_once('/') else {
                continue;
            };
            let known = areas.contains(area) || text[..at].ends_with("with_origin(");
            if after.starts_with('"') && known && !area.is_empty() && !name.is_empty() && !name.contains('/')
            {
                out.push(literal.to_string());
            }
        }
        out
    }

    #[test]
    fn the_table_is_sorted_and_each_origin_is_listed_once() {
        for pair in RULES.windows(2) {
            assert!(
                pair[0].origin < pair[1].origin,
                "{} before {}",
                pair[0].origin,
                pair[1].origin
            );
        }
    }

    #[test]
    fn the_table_lists_exactly_the_origins_the_code_emits() {
        let emitted = emitted_origins();
        let listed: BTreeSet<String> = RULES.iter().map(|r| r.origin.to_string()).collect();
        let missing: Vec<&String> = emitted.difference(&listed).collect();
        let stale: Vec<&String> = listed.difference(&emitted).collect();
        assert!(
            missing.is_empty(),
            "origins without a row in crates/validation/src/rules.rs: {missing:?}"
        );
        assert!(stale.is_empty(), "rows whose origin no code emits: {stale:?}");
    }

    #[test]
    fn every_rule_runs_somewhere_and_says_what_it_asks() {
        for r in RULES {
            assert!(!r.paths.is_empty(), "{}", r.origin);
            assert!(!r.source.is_empty() && !r.text.is_empty(), "{}", r.origin);
            assert!(
                r.paths.windows(2).all(|p| p[0] < p[1]),
                "{}: paths out of order",
                r.origin
            );
        }
    }

    #[test]
    fn lookup_by_origin() {
        let r = rule("security/sysctl").unwrap();
        assert_eq!(r.area(), "security");
        assert!(r.paths.contains(&RequestPath::Create));
        assert!(rule("security/no-such-rule").is_none());
        for p in RequestPath::ALL {
            match p {
                RequestPath::Create | RequestPath::Update => {
                    assert_eq!(p.subresource(), podmut_model::request_path::Subresource::None);
                }
                other => assert_eq!(other.subresource().as_str(), other.as_str()),
            }
        }
    }
}
