//! podmut settings: feature gates and the documented policy knobs (see `policies/default.yaml`).
//!
//! Settings arrive as a JSON or YAML document; unknown keys and unknown feature gates are errors so a
//! typo never silently changes a verdict.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::document::{self, InputError};

mod guards;
mod versions;

pub use guards::{BREAK_GLASS_LABEL, Ceiling, DebugContainers, MAX_STEP, ResizeLimits};
pub use versions::KubernetesVersion;

/// A Kubernetes feature gate podmut knows about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Gate {
    /// KEP-5972: the `pods/dynamic` subresource and atomic allocation of container adds/removes.
    DynamicContainers,
    /// KEP-6318: probes may be changed on a running Pod.
    MutableContainerProbes,
    /// KEP-1287: in-place cpu/memory resize (`pods/resize`).
    InPlacePodVerticalScaling,
    /// KEP-753: restartable init containers (`restartPolicy: Always`).
    SidecarContainers,
    /// KEP-2837: pod-level `spec.resources`.
    PodLevelResources,
    /// In-place resize of pod-level resources (alpha in 1.35).
    InPlacePodLevelResourcesVerticalScaling,
    /// In-place resize of Guaranteed Pods under the static CPU manager.
    InPlacePodVerticalScalingExclusiveCPUs,
    /// In-place resize of Guaranteed Pods under the static Memory manager.
    InPlacePodVerticalScalingExclusiveMemory,
    /// In-place resize of ordinary (non-restartable) init containers.
    InPlacePodVerticalScalingInitContainers,
    /// Per-container restart rules (`restartPolicyRules`; alpha in 1.34, beta in 1.35).
    ContainerRestartRules,
    /// Any printable ASCII except `=` in env var names (beta, on since 1.32); off: the strict
    /// grammar, unless the old Pod already uses the name.
    RelaxedEnvironmentVariableValidation,
    /// `.` and `_` in `dnsConfig.searches` (beta, on since 1.33); off: DNS subdomains only, unless
    /// the old Pod already has such a search.
    RelaxedDNSSearchValidation,
    /// A lifecycle `sleep` of 0 seconds (beta, on since 1.33); off: at least 1 second, unless the
    /// old Pod already sleeps 0.
    PodLifecycleSleepActionAllowZero,
    /// `seLinuxChangePolicy: MountOption` (beta, off in 1.33); off: only `Recursive`, unless the
    /// old Pod already sets a policy.
    SELinuxMount,
    /// `controller.kubernetes.io/pod-deletion-cost` must be a 32-bit integer (beta, on since 1.22);
    /// off: any value.
    PodDeletionCost,
    /// `clusterTrustBundle` projected volume sources (beta, off in 1.33 to 1.35); off: the API
    /// server drops them from a new Pod unless the old Pod already has one.
    ClusterTrustBundleProjection,
    /// `pods/status` may not set `nominatedNodeName` on a Pod already bound to a node (alpha in
    /// 1.34, beta in 1.35).
    ClearingNominatedNodeNameAfterBinding,
    /// Container statuses' `allocatedResourcesStatus` (alpha); off: `pods/status` drops it.
    ResourceHealthStatus,
    /// `status.observedGeneration` and conditions' `observedGeneration` (alpha in 1.33, GA in 1.35);
    /// off: `pods/status` drops them unless the stored status already has one.
    PodObservedGenerationTracking,
    /// Nodes declare the features they support (alpha in 1.35). podmut judges no rule by it; it is
    /// here because `InPlacePodLevelResourcesVerticalScaling` depends on it.
    NodeDeclaredFeatures,
    /// The `ClusterTrustBundle` API (GA from 1.37). podmut judges no rule by it; it is here because
    /// `ClusterTrustBundleProjection` depends on it.
    ClusterTrustBundle,
    /// The `RestartAllContainers` restart-rule action and restart rules on sidecars (alpha in
    /// 1.35, beta and on from 1.36); off: only when the old Pod already uses them.
    RestartAllContainersOnContainerExits,
    /// Pod-level resources are defaulted when the API server prepares a create or a resize (not
    /// at decoding), pod-level limits too, and a dropped `spec.resources` is kept (beta, on from
    /// 1.37).
    PodLevelResourcesFixDefaulting,
    /// The QoS class follows pod-level resources only when they set cpu, memory or hugepages
    /// (beta, on from 1.37); off: any `spec.resources` does.
    PodLevelResourcesFixKubeletQOSClass,
    /// IP addresses of legacy fields (DNS nameservers, host aliases, pod and host IPs) may not have
    /// leading zeros or be IPv4-mapped IPv6 (beta, on from 1.36); off: Go's sloppy parsing.
    StrictIPCIDRValidation,
}

impl Gate {
    /// Every gate with its default: the newest supported release's (see [`KubernetesVersion`]).
    /// The KEP gates podmut exists for (`DynamicContainers`, `MutableContainerProbes`) are off as in
    /// every released server; the `preview` profile turns them on.
    pub const ALL: [(Gate, bool); 25] = [
        (Gate::DynamicContainers, false),
        (Gate::MutableContainerProbes, false),
        (Gate::InPlacePodVerticalScaling, true),
        (Gate::SidecarContainers, true),
        (Gate::PodLevelResources, true),
        (Gate::InPlacePodLevelResourcesVerticalScaling, true),
        (Gate::InPlacePodVerticalScalingExclusiveCPUs, false),
        (Gate::InPlacePodVerticalScalingExclusiveMemory, false),
        (Gate::InPlacePodVerticalScalingInitContainers, true),
        (Gate::ContainerRestartRules, true),
        (Gate::RelaxedEnvironmentVariableValidation, true),
        (Gate::RelaxedDNSSearchValidation, true),
        (Gate::PodLifecycleSleepActionAllowZero, true),
        (Gate::SELinuxMount, true),
        (Gate::PodDeletionCost, true),
        (Gate::ClusterTrustBundleProjection, true),
        (Gate::ClearingNominatedNodeNameAfterBinding, true),
        (Gate::ResourceHealthStatus, true),
        (Gate::PodObservedGenerationTracking, true),
        (Gate::NodeDeclaredFeatures, true),
        (Gate::ClusterTrustBundle, true),
        (Gate::RestartAllContainersOnContainerExits, true),
        (Gate::PodLevelResourcesFixDefaulting, true),
        (Gate::PodLevelResourcesFixKubeletQOSClass, true),
        (Gate::StrictIPCIDRValidation, true),
    ];

    /// The upstream gate name.
    pub fn name(self) -> &'static str {
        match self {
            Gate::DynamicContainers => "DynamicContainers",
            Gate::MutableContainerProbes => "MutableContainerProbes",
            Gate::InPlacePodVerticalScaling => "InPlacePodVerticalScaling",
            Gate::SidecarContainers => "SidecarContainers",
            Gate::PodLevelResources => "PodLevelResources",
            Gate::InPlacePodLevelResourcesVerticalScaling => "InPlacePodLevelResourcesVerticalScaling",
            Gate::InPlacePodVerticalScalingExclusiveCPUs => "InPlacePodVerticalScalingExclusiveCPUs",
            Gate::InPlacePodVerticalScalingExclusiveMemory => "InPlacePodVerticalScalingExclusiveMemory",
            Gate::InPlacePodVerticalScalingInitContainers => "InPlacePodVerticalScalingInitContainers",
            Gate::ContainerRestartRules => "ContainerRestartRules",
            Gate::RelaxedEnvironmentVariableValidation => "RelaxedEnvironmentVariableValidation",
            Gate::RelaxedDNSSearchValidation => "RelaxedDNSSearchValidation",
            Gate::PodLifecycleSleepActionAllowZero => "PodLifecycleSleepActionAllowZero",
            Gate::SELinuxMount => "SELinuxMount",
            Gate::PodDeletionCost => "PodDeletionCost",
            Gate::ClusterTrustBundleProjection => "ClusterTrustBundleProjection",
            Gate::ClearingNominatedNodeNameAfterBinding => "ClearingNominatedNodeNameAfterBinding",
            Gate::ResourceHealthStatus => "ResourceHealthStatus",
            Gate::PodObservedGenerationTracking => "PodObservedGenerationTracking",
            Gate::NodeDeclaredFeatures => "NodeDeclaredFeatures",
            Gate::ClusterTrustBundle => "ClusterTrustBundle",
            Gate::RestartAllContainersOnContainerExits => "RestartAllContainersOnContainerExits",
            Gate::PodLevelResourcesFixDefaulting => "PodLevelResourcesFixDefaulting",
            Gate::PodLevelResourcesFixKubeletQOSClass => "PodLevelResourcesFixKubeletQOSClass",
            Gate::StrictIPCIDRValidation => "StrictIPCIDRValidation",
        }
    }

    /// Look a gate up by its upstream name.
    pub fn from_name(name: &str) -> Option<Gate> {
        Self::ALL.iter().map(|(g, _)| *g).find(|g| g.name() == name)
    }
}

impl fmt::Display for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The state of every known feature gate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeatureGates {
    enabled: BTreeMap<Gate, bool>,
}

impl Default for FeatureGates {
    fn default() -> Self {
        Self {
            enabled: crate::order::map_from(Gate::ALL),
        }
    }
}

impl FeatureGates {
    /// Whether `gate` is on.
    pub fn enabled(&self, gate: Gate) -> bool {
        self.enabled.get(&gate).copied().unwrap_or(false)
    }

    /// Turn a gate on or off.
    pub fn set(&mut self, gate: Gate, on: bool) {
        self.enabled.insert(gate, on);
    }

    /// Apply `Name=bool,Name=bool` (the kube-apiserver `--feature-gates` syntax).
    pub fn apply_flag(&mut self, spec: &str) -> Result<(), String> {
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| format!("missing bool value for feature gate {item:?}"))?;
            let gate = Gate::from_name(name.trim()).ok_or_else(|| unknown_gate(name.trim()))?;
            let on = match value.trim() {
                "true" | "True" | "TRUE" | "1" => true,
                "false" | "False" | "FALSE" | "0" => false,
                other => {
                    return Err(format!(
                        "invalid value of {name}={other}, err: expected true or false"
                    ));
                }
            };
            self.set(gate, on);
        }
        Ok(())
    }

    /// Every gate and its state, in a stable order.
    pub fn iter(&self) -> impl Iterator<Item = (Gate, bool)> + '_ {
        self.enabled.iter().map(|(g, on)| (*g, *on))
    }
}

fn unknown_gate(name: &str) -> String {
    let known: Vec<&str> = Gate::ALL.iter().map(|(g, _)| g.name()).collect();
    format!("unrecognized feature gate: {name} (known: {})", known.join(", "))
}

impl Serialize for FeatureGates {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let map: BTreeMap<&str, bool> =
            crate::order::map_from(self.enabled.iter().map(|(g, on)| (g.name(), *on)));
        map.serialize(s)
    }
}

impl<'de> Deserialize<'de> for FeatureGates {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = BTreeMap::<String, bool>::deserialize(d)?;
        let mut gates = FeatureGates::default();
        for (name, on) in map {
            let gate = Gate::from_name(&name).ok_or_else(|| serde::de::Error::custom(unknown_gate(&name)))?;
            gates.set(gate, on);
        }
        Ok(gates)
    }
}

/// How a memory-limit decrease with a `NotRequired` resize policy is judged on `pods/resize`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum MemoryLimitDecrease {
    /// Kubernetes 1.34 and later (KEP-1287 update): allowed; the kubelet does a best-effort usage check.
    #[default]
    Allow,
    /// Kubernetes 1.33 and earlier: `Forbidden ...resources.limits[memory]` unless the memory resize
    /// policy is `RestartContainer`.
    Forbid,
}

/// What the webhook does with a request on a subresource podmut does not judge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum UnknownSubresource {
    /// Allow it, with a warning naming the subresource.
    #[default]
    Allow,
    /// Deny it.
    Deny,
}

/// Whether containers added through `pods/dynamic` may escalate the Pod's SecurityContext.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SecurityContextEscalation {
    /// KEP-5972's own rules: only privileged containers and host ports are refused.
    #[default]
    Allow,
    /// The strict profile: KEP-5972's "No SecurityContext escalations" (`podmut_validation::strict`).
    Forbid,
}

/// What the admission review does with a request podmut's rules would deny.
///
/// Like Gatekeeper's `enforcementAction` and Kubewarden's `monitor` mode, for rolling a webhook
/// out gradually: `audit` first (nothing changes for users; the would-be denials are counted and
/// logged), then `warn` (users see them), then `deny`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Enforcement {
    /// Deny the request (`allowed: false`, the API server's `Status`).
    #[default]
    Deny,
    /// Allow it; every error that would have denied it becomes an AdmissionReview warning
    /// (`podmut would deny: <field>: <message>`), and the audit annotation `would-deny` holds the
    /// denial message.
    Warn,
    /// Allow it without warnings; only the audit annotation `would-deny` records it (and the
    /// webhook logs and counts it).
    Audit,
}

/// All podmut settings. Every field has a default; the document form is camelCase.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Settings {
    /// The cluster's Kubernetes release: its feature-gate defaults and version-dependent rules
    /// (`memoryLimitDecrease`). Explicit `featureGates` and settings still win. Unset: the newest
    /// supported release's gate defaults; any known gate may be set, the KEP-5972 and KEP-6318
    /// gates included (and `pods/dynamic` turns `DynamicContainers` on unless `featureGates` names
    /// it). A named release checks gates as its kube-apiserver does. `preview`: the newest release
    /// with both KEP gates on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kubernetes_version: Option<KubernetesVersion>,
    /// Feature gates (`{"DynamicContainers": true, ...}`); unnamed gates keep their defaults.
    pub feature_gates: FeatureGates,
    /// Apply Kubernetes defaulting (`SetDefaults_*`) to Pods before validating, like the API server.
    pub apply_defaults: bool,
    /// The cluster's `AllowPrivileged` capability (kube-apiserver `--allow-privileged`).
    pub allow_privileged: bool,
    /// Memory-limit decreases on resize: `allow` (1.34+) or `forbid` (1.33 and earlier).
    pub memory_limit_decrease: MemoryLimitDecrease,
    /// Webhook handling of subresources podmut does not judge.
    pub unknown_subresource: UnknownSubresource,
    /// What an AdmissionReview answer does with a request the rules would deny.
    pub enforcement: Enforcement,
    /// `forbid`: the strict profile (`policies/strict.yaml`) for containers added through `pods/dynamic`.
    pub security_context_escalation: SecurityContextEscalation,
    /// KEP-5972: how many removed-container statuses the kubelet keeps (alpha: 10).
    pub removed_status_limit: u32,
    /// Largest accepted input document, in bytes (the API server's own request limit is 3 MiB): a
    /// number or a Kubernetes quantity (`3Mi`).
    #[serde(deserialize_with = "bytes_or_quantity")]
    pub max_input_bytes: u64,
    /// Unknown and duplicate fields in the Pods and AdmissionReviews `check` and `review` read:
    /// `ignore` (the default: the API server sends clean objects), `warn` or `strict`.
    pub field_validation: crate::field_validation::FieldValidation,
    /// The cluster's Nodes, for the stock admission plugins that read the Pod's Node from 1.36
    /// (`NodeDeclaredFeatureValidator`, `PodResizeValidator`; see `docs/node.md`). Unset: those
    /// plugins are not emulated; a list without the Pod's node: `node "n" not found`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<k8s_openapi::api::core::v1::Node>>,
    /// Ceilings and the largest step of in-place resizes (`pods/resize`); unset: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resize_limits: Option<ResizeLimits>,
    /// What debug containers (`pods/ephemeralcontainers`) may ask for.
    pub debug_containers: DebugContainers,
    /// Updates of a running Pod (status.phase `Running`) may not change its labels or annotations.
    pub freeze_running_pod_metadata: bool,
    /// Whether a `pods/dynamic` request turns `DynamicContainers` on: no release is named and
    /// `featureGates` does not name the gate.
    #[serde(skip)]
    pub(crate) dynamic_implied: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            kubernetes_version: None,
            feature_gates: FeatureGates::default(),
            apply_defaults: true,
            allow_privileged: true,
            memory_limit_decrease: MemoryLimitDecrease::Allow,
            unknown_subresource: UnknownSubresource::Allow,
            enforcement: Enforcement::Deny,
            security_context_escalation: SecurityContextEscalation::Allow,
            removed_status_limit: 10,
            max_input_bytes: 3 * 1024 * 1024,
            field_validation: crate::field_validation::FieldValidation::Ignore,
            nodes: None,
            resize_limits: None,
            debug_containers: DebugContainers::default(),
            freeze_running_pod_metadata: false,
            dynamic_implied: true,
        }
    }
}

/// A byte count given as a number (`3145728`) or a Kubernetes quantity (`3Mi`, `3M`).
fn bytes_or_quantity<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Size {
        Bytes(u64),
        Quantity(String),
    }
    match Size::deserialize(d)? {
        Size::Bytes(b) => Ok(b),
        Size::Quantity(q) => crate::quantity::Quantity::parse(&q)
            .ok()
            .and_then(|q| u64::try_from(q.value()).ok())
            .filter(|b| *b > 0)
            .ok_or_else(|| {
                serde::de::Error::custom(format!("{q:?} is not a size (e.g. 3145728, 512Ki, 3Mi)"))
            }),
    }
}

impl Settings {
    /// The release minor these settings follow (unset: the newest supported): the release whose
    /// rules and bad-value layouts apply.
    pub fn release(&self) -> u8 {
        self.kubernetes_version
            .unwrap_or(KubernetesVersion::NEWEST)
            .minor()
    }

    /// Parse a settings document (JSON or YAML); an empty or blank string gives the defaults.
    pub fn parse(text: &str) -> Result<Self, InputError> {
        Self::read(text).map(|(settings, _)| settings)
    }

    /// [`Settings::parse`], returning the document read as well (`null` for a blank one), for a
    /// caller that composes another settings document from it ([`Settings::from_value`]).
    pub fn read(text: &str) -> Result<(Self, serde_json::Value), InputError> {
        if text.trim().is_empty() {
            return Ok((Self::default(), serde_json::Value::Null));
        }
        let value =
            document::parse_text(text, "settings", u64::MAX).map_err(|e| InputError::BadSettings {
                input: "settings".into(),
                message: e.message().to_owned(),
            })?;
        Ok((Self::from_value(&value)?, value))
    }

    /// The settings a document already read says: `Settings::parse(&value.to_string())` without
    /// the text (`null` gives the defaults).
    pub fn from_value(value: &serde_json::Value) -> Result<Self, InputError> {
        if value.is_null() {
            return Ok(Self::default());
        }
        let mut settings: Self =
            document::decode(value, "settings").map_err(|e| InputError::BadSettings {
                input: "settings".into(),
                message: e.message().to_owned(),
            })?;
        settings
            .apply_version(settings.kubernetes_version, value)
            .map_err(|message| InputError::BadSettings {
                input: "settings".into(),
                message,
            })?;
        Ok(settings)
    }

    /// Take the release's defaults for every gate and knob the document does not set, and refuse
    /// gates the release does not have or has locked. `None`: the newest release's defaults, and
    /// any known gate may be set (the preview gates, or an older release's choice podmut has no
    /// profile for).
    fn apply_version(
        &mut self,
        version: Option<KubernetesVersion>,
        doc: &serde_json::Value,
    ) -> Result<(), String> {
        let explicit = doc.get("featureGates").and_then(serde_json::Value::as_object);
        let named = |gate: Gate| {
            explicit
                .and_then(|m| m.get(gate.name()))
                .and_then(serde_json::Value::as_bool)
        };
        self.dynamic_implied = version.is_none() && named(Gate::DynamicContainers).is_none();
        let release = version.unwrap_or(KubernetesVersion::NEWEST);
        for (gate, _) in Gate::ALL {
            match named(gate) {
                Some(_) if version.is_none() => {}
                Some(on) => release
                    .check_gate(gate, on)
                    .map_err(|e| format!("featureGates.{gate}: {e}"))?,
                None => self.feature_gates.set(gate, release.gate_default(gate)),
            }
        }
        let version = release;
        if self.kubernetes_version.is_some() {
            version.check_dependencies(&self.feature_gates)?;
        }
        if doc.get("memoryLimitDecrease").is_none() {
            self.memory_limit_decrease = version.memory_limit_decrease();
        }
        Ok(())
    }

    /// The `preview` profile: the newest release with the KEP-5972 and KEP-6318 gates on.
    pub fn preview() -> Self {
        let mut s = Self {
            kubernetes_version: Some(KubernetesVersion::PREVIEW),
            dynamic_implied: false,
            ..Self::default()
        };
        for gate in KubernetesVersion::PREVIEW_GATES {
            s.feature_gates.set(gate, true);
        }
        s
    }

    /// The keys of the policy settings in force that no API server has (the guards and the strict
    /// profile): a server knows them only as the policies `podmut vap generate` writes.
    pub fn podmut_policies(&self) -> Vec<&'static str> {
        [
            ("resizeLimits", self.resize_limits.is_some()),
            ("debugContainers", self.debug_containers.forbid_escalation),
            ("freezeRunningPodMetadata", self.freeze_running_pod_metadata),
            (
                "securityContextEscalation",
                self.security_context_escalation == SecurityContextEscalation::Forbid,
            ),
        ]
        .into_iter()
        .filter_map(|(key, on)| on.then_some(key))
        .collect()
    }

    /// Whether a feature gate is on.
    pub fn gate(&self, gate: Gate) -> bool {
        self.feature_gates.enabled(gate)
    }

    /// The settings a request on `sub` is judged with: `pods/dynamic` turns `DynamicContainers`
    /// on when no release is named and `featureGates` leaves the gate alone (a path no release
    /// serves is a request for the KEP-5972 behaviour).
    pub fn for_subresource(&self, sub: crate::request_path::Subresource) -> std::borrow::Cow<'_, Settings> {
        if sub == crate::request_path::Subresource::Dynamic
            && self.dynamic_implied
            && !self.gate(Gate::DynamicContainers)
        {
            let mut s = self.clone();
            s.feature_gates.set(Gate::DynamicContainers, true);
            std::borrow::Cow::Owned(s)
        } else {
            std::borrow::Cow::Borrowed(self)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_contract() {
        let s = Settings::parse("").unwrap();
        for g in [
            Gate::InPlacePodVerticalScaling,
            Gate::SidecarContainers,
            Gate::PodLevelResources,
            Gate::InPlacePodLevelResourcesVerticalScaling,
        ] {
            assert!(s.gate(g), "{g} should default on");
        }
        for g in KubernetesVersion::PREVIEW_GATES {
            assert!(!s.gate(g), "{g} is on in no release");
        }
        assert!(s.apply_defaults);
        assert_eq!(s.removed_status_limit, 10);
        assert_eq!(s, Settings::default());
    }

    #[test]
    fn parses_yaml_and_json() {
        let s =
            Settings::parse("featureGates:\n  MutableContainerProbes: true\napplyDefaults: false\n").unwrap();
        assert!(!s.gate(Gate::DynamicContainers));
        assert!(s.gate(Gate::MutableContainerProbes));
        assert!(!s.apply_defaults);
        let s = Settings::parse(r#"{"memoryLimitDecrease": "forbid"}"#).unwrap();
        assert_eq!(s.memory_limit_decrease, MemoryLimitDecrease::Forbid);
        assert_eq!(Settings::parse("").unwrap().enforcement, Enforcement::Deny);
        assert_eq!(
            Settings::parse("enforcement: audit").unwrap().enforcement,
            Enforcement::Audit
        );
        let e = Settings::parse("enforcement: dryrun").unwrap_err();
        assert!(e.to_string().contains("enforcement"), "{e}");
    }

    #[test]
    fn rejects_unknown_keys_and_gates() {
        let e = Settings::parse("applyDefault: true").unwrap_err();
        assert!(e.to_string().contains("applyDefault"), "{e}");
        let e = Settings::parse("featureGates: {Nope: true}").unwrap_err();
        assert!(e.to_string().contains("unrecognized feature gate: Nope"), "{e}");
    }

    #[test]
    fn a_version_sets_its_defaults_and_explicit_settings_win() {
        let s = Settings::parse("kubernetesVersion: '1.35'").unwrap();
        assert_eq!(s.kubernetes_version, KubernetesVersion::parse("1.35").ok());
        assert!(!s.gate(Gate::DynamicContainers), "no pods/dynamic in 1.35");
        assert!(
            !s.gate(Gate::InPlacePodLevelResourcesVerticalScaling),
            "alpha in 1.35"
        );
        assert!(s.gate(Gate::ContainerRestartRules), "beta in 1.35");
        let s =
            Settings::parse("kubernetesVersion: '1.36'\nfeatureGates: {PodLevelResources: false, InPlacePodLevelResourcesVerticalScaling: false}").unwrap();
        assert!(!s.gate(Gate::PodLevelResources), "explicit gates win");
        let s = Settings::parse("kubernetesVersion: '1.36'\nmemoryLimitDecrease: forbid").unwrap();
        assert_eq!(
            s.memory_limit_decrease,
            MemoryLimitDecrease::Forbid,
            "explicit knobs win"
        );
        let e = Settings::parse("kubernetesVersion: '1.30'")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("kubernetesVersion") && e.contains("supported: 1.35, 1.36, 1.37"),
            "{e}"
        );
        let e = Settings::parse("kubernetesVersion: '1.37'\nfeatureGates: {DynamicContainers: true}")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("featureGates.DynamicContainers") && e.contains("1.38"),
            "{e}"
        );
        let s = Settings::parse("kubernetesVersion: preview").unwrap();
        assert!(s.gate(Gate::DynamicContainers) && s.gate(Gate::MutableContainerProbes));
        assert_eq!(s, Settings::preview());
    }

    #[test]
    fn the_unset_version_is_the_newest_and_allows_any_gate() {
        let unset = Settings::parse("").unwrap();
        let newest = KubernetesVersion::NEWEST;
        for (gate, _) in Gate::ALL {
            assert_eq!(unset.gate(gate), newest.gate_default(gate), "{gate}");
        }
        assert_eq!(unset.memory_limit_decrease, newest.memory_limit_decrease());
        let s =
            Settings::parse("featureGates: {MutableContainerProbes: true, DynamicContainers: true}").unwrap();
        assert!(s.gate(Gate::MutableContainerProbes) && s.gate(Gate::DynamicContainers));
        let s = Settings::parse("featureGates: {SidecarContainers: false}").unwrap();
        assert!(
            !s.gate(Gate::SidecarContainers),
            "no release named: any known gate may be set"
        );
        let e = Settings::parse("kubernetesVersion: '1.37'\nfeatureGates: {SidecarContainers: false}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("removed"), "a named release checks its gates: {e}");
    }

    #[test]
    fn pods_dynamic_implies_its_gate_unless_a_release_or_the_gate_is_named() {
        use crate::request_path::Subresource;
        let unset = Settings::parse("").unwrap();
        assert!(
            unset
                .for_subresource(Subresource::Dynamic)
                .gate(Gate::DynamicContainers)
        );
        assert!(
            !unset
                .for_subresource(Subresource::Resize)
                .gate(Gate::DynamicContainers)
        );
        let off = Settings::parse("featureGates: {DynamicContainers: false}").unwrap();
        assert!(
            !off.for_subresource(Subresource::Dynamic)
                .gate(Gate::DynamicContainers)
        );
        let named = Settings::parse("kubernetesVersion: '1.37'").unwrap();
        assert!(
            !named
                .for_subresource(Subresource::Dynamic)
                .gate(Gate::DynamicContainers)
        );
    }

    #[test]
    fn sizes_are_numbers_or_quantities() {
        assert_eq!(
            Settings::parse("maxInputBytes: 1Mi").unwrap().max_input_bytes,
            1 << 20
        );
        assert_eq!(
            Settings::parse("maxInputBytes: 2M").unwrap().max_input_bytes,
            2_000_000
        );
        assert_eq!(
            Settings::parse("maxInputBytes: 4096").unwrap().max_input_bytes,
            4096
        );
        let e = Settings::parse("maxInputBytes: lots").unwrap_err();
        assert!(e.to_string().contains("maxInputBytes"), "{e}");
        let s = Settings::parse("fieldValidation: strict").unwrap();
        assert_eq!(
            s.field_validation,
            crate::field_validation::FieldValidation::Strict
        );
    }

    #[test]
    fn podmut_only_policies_are_named() {
        assert!(Settings::default().podmut_policies().is_empty());
        let s = Settings::parse(
            "resizeLimits: {maxStep: 2}\nfreezeRunningPodMetadata: true\ndebugContainers: {forbidEscalation: true}",
        )
        .unwrap();
        assert_eq!(
            s.podmut_policies(),
            ["resizeLimits", "debugContainers", "freezeRunningPodMetadata"]
        );
        let s = Settings::parse("debugContainers: {breakGlassLabel: x}").unwrap();
        assert!(s.podmut_policies().is_empty(), "the label alone turns nothing on");
    }

    #[test]
    fn feature_gate_flag_syntax() {
        let mut g = FeatureGates::default();
        g.apply_flag("DynamicContainers=false, SidecarContainers=true")
            .unwrap();
        assert!(!g.enabled(Gate::DynamicContainers));
        assert!(g.apply_flag("Bogus=true").unwrap_err().contains("Bogus"));
        assert!(g.apply_flag("DynamicContainers").is_err());
        assert!(g.apply_flag("DynamicContainers=maybe").is_err());
    }
}
