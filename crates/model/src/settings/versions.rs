//! Kubernetes version profiles (`kubernetesVersion`): each supported release's feature-gate defaults
//! and its version-dependent rules.
//!
//! The gate history is upstream's: `pkg/features/kube_features.go`, `defaultVersionedKubernetesFeatureGates`
//! (each gate's `VersionedSpecs`: from which release it has which default, stage and lock), as of
//! release-1.35. A gate with no spec at or before a release does not exist there: it is off, and
//! naming it in `featureGates` is an error, as kube-apiserver's `--feature-gates` refuses an
//! unrecognized gate. A gate locked to its default (`LockToDefault`, GA) may not be set to the other
//! value, as kube-apiserver refuses that too.
//!
//! Supported releases are those whose validation podmut follows (1.33 to 1.35). Adding one: add its
//! minor to [`KubernetesVersion::SUPPORTED`], each gate's new stage to [`GATE_HISTORY`], and any
//! rule that changed to [`KubernetesVersion`]'s methods; then docs/kubernetes-versions.md.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{Gate, MemoryLimitDecrease};

/// A feature's maturity (`featuregate.PreRelease`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    /// Alpha: off by default.
    Alpha,
    /// Beta.
    Beta,
    /// GA (stable).
    Ga,
    /// Removed: the gate no longer exists (naming it is an error), and its feature is always on.
    Removed,
}

impl Stage {
    fn as_str(self) -> &'static str {
        match self {
            Stage::Alpha => "alpha",
            Stage::Beta => "beta",
            Stage::Ga => "GA",
            Stage::Removed => "removed",
        }
    }
}

/// One `featuregate.FeatureSpec` of a gate's `VersionedSpecs`: from Kubernetes `1.<since>` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GateSpec {
    /// The first minor release (of 1.x) the spec applies to.
    pub(crate) since: u8,
    /// The default.
    pub(crate) default: bool,
    /// The stage.
    pub(crate) stage: Stage,
    /// `LockToDefault`: the gate may not be set to anything else.
    pub(crate) locked: bool,
}

const fn spec(since: u8, default: bool, stage: Stage, locked: bool) -> GateSpec {
    GateSpec {
        since,
        default,
        stage,
        locked,
    }
}

/// Every gate podmut knows, with upstream's versioned specs (`kube_features.go`), oldest first.
///
/// `DynamicContainers` (KEP-5972) and `MutableContainerProbes` (KEP-6318) are alpha from 1.38 (the
/// KEPs' milestones; the website's feature-gate page for `MutableContainerProbes`), after every
/// supported release. `InPlacePodVerticalScalingInitContainers` has no spec in release-1.35's
/// `kube_features.go`.
pub(crate) const GATE_HISTORY: [(Gate, &[GateSpec]); 25] = [
    (Gate::DynamicContainers, &[spec(38, false, Stage::Alpha, false)]),
    (
        Gate::MutableContainerProbes,
        &[spec(38, false, Stage::Alpha, false)],
    ),
    (
        Gate::InPlacePodVerticalScaling,
        &[
            spec(27, false, Stage::Alpha, false),
            spec(33, true, Stage::Beta, false),
            spec(35, true, Stage::Ga, true),
        ],
    ),
    (
        Gate::SidecarContainers,
        &[
            spec(28, false, Stage::Alpha, false),
            spec(29, true, Stage::Beta, false),
            spec(33, true, Stage::Ga, true),
            spec(37, true, Stage::Removed, true),
        ],
    ),
    (
        Gate::PodLevelResources,
        &[
            spec(32, false, Stage::Alpha, false),
            spec(34, true, Stage::Beta, false),
        ],
    ),
    (
        Gate::InPlacePodLevelResourcesVerticalScaling,
        &[
            spec(35, false, Stage::Alpha, false),
            spec(36, true, Stage::Beta, false),
        ],
    ),
    (
        Gate::InPlacePodVerticalScalingExclusiveCPUs,
        &[spec(32, false, Stage::Alpha, false)],
    ),
    (
        Gate::InPlacePodVerticalScalingExclusiveMemory,
        &[spec(34, false, Stage::Alpha, false)],
    ),
    (
        Gate::InPlacePodVerticalScalingInitContainers,
        &[
            spec(36, true, Stage::Beta, false),
            spec(37, true, Stage::Ga, true),
        ],
    ),
    (
        Gate::ContainerRestartRules,
        &[
            spec(34, false, Stage::Alpha, false),
            spec(35, true, Stage::Beta, false),
        ],
    ),
    (
        Gate::RelaxedEnvironmentVariableValidation,
        &[
            spec(30, false, Stage::Alpha, false),
            spec(32, true, Stage::Beta, false),
            spec(34, true, Stage::Ga, true),
        ],
    ),
    (
        Gate::RelaxedDNSSearchValidation,
        &[
            spec(32, false, Stage::Alpha, false),
            spec(33, true, Stage::Beta, false),
            spec(34, true, Stage::Ga, true),
            spec(37, true, Stage::Removed, true),
        ],
    ),
    (
        Gate::PodLifecycleSleepActionAllowZero,
        &[
            spec(32, false, Stage::Alpha, false),
            spec(33, true, Stage::Beta, false),
            spec(34, true, Stage::Ga, true),
            spec(37, true, Stage::Removed, true),
        ],
    ),
    (
        Gate::SELinuxMount,
        &[
            spec(30, false, Stage::Alpha, false),
            spec(33, false, Stage::Beta, false),
            spec(37, true, Stage::Ga, false),
        ],
    ),
    (
        Gate::PodDeletionCost,
        &[
            spec(21, false, Stage::Alpha, false),
            spec(22, true, Stage::Beta, false),
        ],
    ),
    (
        Gate::ClusterTrustBundleProjection,
        &[
            spec(29, false, Stage::Alpha, false),
            spec(33, false, Stage::Beta, false),
            spec(37, true, Stage::Ga, false),
        ],
    ),
    (
        Gate::ClearingNominatedNodeNameAfterBinding,
        &[
            spec(34, false, Stage::Alpha, false),
            spec(35, true, Stage::Beta, false),
        ],
    ),
    (
        Gate::ResourceHealthStatus,
        &[
            spec(31, false, Stage::Alpha, false),
            spec(36, true, Stage::Beta, false),
        ],
    ),
    (
        Gate::PodObservedGenerationTracking,
        &[
            spec(33, false, Stage::Alpha, false),
            spec(34, true, Stage::Beta, false),
            spec(35, true, Stage::Ga, true),
        ],
    ),
    (
        Gate::NodeDeclaredFeatures,
        &[
            spec(35, false, Stage::Alpha, false),
            spec(36, true, Stage::Beta, false),
            spec(37, true, Stage::Ga, true),
        ],
    ),
    (
        Gate::ClusterTrustBundle,
        &[
            spec(27, false, Stage::Alpha, false),
            spec(33, false, Stage::Beta, false),
            spec(37, true, Stage::Ga, false),
        ],
    ),
    (
        Gate::RestartAllContainersOnContainerExits,
        &[
            spec(35, false, Stage::Alpha, false),
            spec(36, true, Stage::Beta, false),
        ],
    ),
    (
        Gate::PodLevelResourcesFixDefaulting,
        &[spec(37, true, Stage::Beta, false)],
    ),
    (
        Gate::PodLevelResourcesFixKubeletQOSClass,
        &[spec(37, true, Stage::Beta, false)],
    ),
    (
        Gate::StrictIPCIDRValidation,
        &[
            spec(33, false, Stage::Alpha, false),
            spec(36, true, Stage::Beta, false),
        ],
    ),
];

/// Upstream's gate dependencies among the gates podmut knows
/// (`defaultKubernetesFeatureGateDependencies` in `kube_features.go`, each list sorted as upstream
/// sorts it; every supported release checks them). Dependencies on gates podmut does not know
/// (`MemoryManager`, `DynamicResourceAllocation`, `PodLifecycleSleepAction`) are left out: each is
/// GA and locked on (or removed) in every supported release, so it can never be off. A gate only
/// depends where it exists, so the one list serves every release.
const GATE_DEPENDENCIES: [(Gate, &[Gate]); 8] = [
    (
        Gate::InPlacePodLevelResourcesVerticalScaling,
        &[
            Gate::InPlacePodVerticalScaling,
            Gate::NodeDeclaredFeatures,
            Gate::PodLevelResources,
        ],
    ),
    (
        Gate::InPlacePodVerticalScalingExclusiveCPUs,
        &[Gate::InPlacePodVerticalScaling],
    ),
    (
        Gate::InPlacePodVerticalScalingExclusiveMemory,
        &[Gate::InPlacePodVerticalScaling],
    ),
    (
        Gate::InPlacePodVerticalScalingInitContainers,
        &[Gate::InPlacePodVerticalScaling, Gate::NodeDeclaredFeatures],
    ),
    (Gate::ClusterTrustBundleProjection, &[Gate::ClusterTrustBundle]),
    (
        Gate::RestartAllContainersOnContainerExits,
        &[Gate::ContainerRestartRules, Gate::NodeDeclaredFeatures],
    ),
    (Gate::PodLevelResourcesFixDefaulting, &[Gate::PodLevelResources]),
    (
        Gate::PodLevelResourcesFixKubeletQOSClass,
        &[Gate::PodLevelResources],
    ),
];

/// A Kubernetes release podmut has a profile for (`1.<minor>`), or `preview`: the newest release
/// with podmut's KEP gates ([`KubernetesVersion::PREVIEW_GATES`]) on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubernetesVersion {
    minor: u8,
    preview: bool,
}

impl KubernetesVersion {
    /// Every supported release, oldest first.
    pub const SUPPORTED: [KubernetesVersion; 3] = [Self::v1(35), Self::v1(36), Self::v1(37)];

    /// The newest supported release (what an unset `kubernetesVersion` follows).
    pub const NEWEST: KubernetesVersion = Self::SUPPORTED[Self::SUPPORTED.len() - 1];

    /// The gates of podmut's KEP work, which no supported release has: on in the `preview` profile,
    /// and allowed in `featureGates` when no release is named.
    pub const PREVIEW_GATES: [Gate; 2] = [Gate::DynamicContainers, Gate::MutableContainerProbes];

    /// The `preview` profile: the newest release, with `DynamicContainers` (KEP-5972) and
    /// `MutableContainerProbes` (KEP-6318) on, as upstream plans them for 1.38.
    pub const PREVIEW: KubernetesVersion = KubernetesVersion {
        minor: Self::NEWEST.minor,
        preview: true,
    };

    const fn v1(minor: u8) -> Self {
        Self {
            minor,
            preview: false,
        }
    }

    /// Whether this is the `preview` profile.
    pub fn is_preview(self) -> bool {
        self.preview
    }

    /// The minor version.
    pub fn minor(self) -> u8 {
        self.minor
    }

    /// Parse `1.33`, `v1.33` or `1.33.4` (the patch release does not matter); an unknown or
    /// unsupported release is an error that lists the supported ones.
    pub fn parse(text: &str) -> Result<Self, String> {
        let t = text.trim();
        if t == "preview" {
            return Ok(Self::PREVIEW);
        }
        let t = t.strip_prefix('v').unwrap_or(t);
        let mut parts = t.split('.');
        let (major, minor, patch) = (parts.next(), parts.next(), parts.next());
        let number =
            |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        let valid =
            number(major) && number(minor) && (patch.is_none() || number(patch)) && parts.next().is_none();
        if !valid {
            return Err(format!(
                "{text:?} is not a Kubernetes version (write MAJOR.MINOR, e.g. \"{}\"); supported: {}",
                Self::NEWEST,
                Self::supported_list()
            ));
        }
        let supported = Self::SUPPORTED
            .into_iter()
            .find(|v| major == Some("1") && minor.and_then(|m| m.parse::<u8>().ok()) == Some(v.minor));
        supported.ok_or_else(|| {
            format!(
                "Kubernetes {}.{} is not supported; supported: {}",
                major.unwrap_or_default(),
                minor.unwrap_or_default(),
                Self::supported_list()
            )
        })
    }

    /// `1.35, 1.36, 1.37 (or preview)`.
    pub fn supported_list() -> String {
        format!(
            "{} (or preview: {} with {})",
            Self::SUPPORTED.map(|v| v.to_string()).join(", "),
            Self::NEWEST,
            Self::PREVIEW_GATES.map(Gate::name).join(" and ")
        )
    }

    /// The spec of `gate` in this release, `None` when the gate does not exist in it.
    pub(crate) fn gate_spec(self, gate: Gate) -> Option<GateSpec> {
        if self.preview && Self::PREVIEW_GATES.contains(&gate) {
            return Some(spec(self.minor, true, Stage::Alpha, false));
        }
        GATE_HISTORY
            .iter()
            .find(|(g, _)| *g == gate)
            .and_then(|(_, specs)| specs.iter().rev().find(|s| s.since <= self.minor))
            .copied()
    }

    /// The default of `gate` in this release (off when it does not exist).
    pub(crate) fn gate_default(self, gate: Gate) -> bool {
        self.gate_spec(gate).is_some_and(|s| s.default)
    }

    /// Why `gate` may not be set to `on` in this release, if it may not.
    pub(crate) fn check_gate(self, gate: Gate, on: bool) -> Result<(), String> {
        match self.gate_spec(gate) {
            Some(s) if s.stage == Stage::Removed => Err(format!(
                "unrecognized feature gate: {gate}: Kubernetes {self} removed it (always on since it went GA)"
            )),
            None => {
                let first = GATE_HISTORY
                    .iter()
                    .find(|(g, _)| *g == gate)
                    .and_then(|(_, specs)| specs.first());
                let when = first.map_or_else(
                    || " (podmut knows no release that has it)".to_owned(),
                    |s| format!(" ({} from 1.{})", s.stage.as_str(), s.since),
                );
                Err(format!(
                    "unrecognized feature gate: {gate}: Kubernetes {self} does not have it{when}"
                ))
            }
            Some(s) if s.locked && s.default != on => Err(format!(
                "cannot set feature gate {gate} to {on}, feature is locked to {} in Kubernetes {self} ({})",
                s.default,
                s.stage.as_str()
            )),
            Some(_) => Ok(()),
        }
    }

    /// Why `gates` cannot all be on together in this release, if they cannot: kube-apiserver refuses
    /// to start when a gate is on and one it depends on is off (`featureGate.unsafeSetFromMap`), with
    /// one error per such gate.
    pub(crate) fn check_dependencies(self, gates: &super::FeatureGates) -> Result<(), String> {
        let errors: Vec<String> = GATE_DEPENDENCIES
            .iter()
            .filter(|(gate, _)| gates.enabled(*gate))
            .filter_map(|(gate, deps)| {
                let off: Vec<&str> = deps
                    .iter()
                    .filter(|d| !gates.enabled(**d))
                    .map(|d| d.name())
                    .collect();
                (!off.is_empty()).then(|| {
                    format!(
                        "featureGates.{gate}: {gate} is enabled, but depends on features that are disabled: [{}] (Kubernetes {self})",
                        off.join(" ")
                    )
                })
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors.join("; "))
        }
    }

    /// `pods/resize` memory-limit decreases (with a `NotRequired` memory resize policy): allowed in
    /// every supported release (KEP-1287 "Memory Limit Decreases", kubernetes/kubernetes#133012:
    /// the kubelet checks usage instead); `memoryLimitDecrease: forbid` emulates 1.33 and earlier.
    pub(crate) fn memory_limit_decrease(self) -> MemoryLimitDecrease {
        MemoryLimitDecrease::Allow
    }
}

impl fmt::Display for KubernetesVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.preview {
            f.write_str("preview")
        } else {
            write!(f, "1.{}", self.minor)
        }
    }
}

impl Serialize for KubernetesVersion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for KubernetesVersion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Written {
            Text(String),
            // YAML reads an unquoted 1.33 as a number.
            Number(f64),
        }
        let text = match Written::deserialize(d)? {
            Written::Text(t) => t,
            Written::Number(n) => {
                let t = n.to_string();
                // 1.30 becomes 1.3: say so instead of guessing.
                if t.split('.').nth(1).is_some_and(|m| m.len() < 2) {
                    return Err(serde::de::Error::custom(format!(
                        "the number {t} is ambiguous (YAML reads 1.30 as 1.3): quote the version, e.g. \"1.{}0\"",
                        t.split('.').nth(1).unwrap_or_default()
                    )));
                }
                t
            }
        };
        Self::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_forms_kubectl_version_prints() {
        let v136 = KubernetesVersion::v1(36);
        for t in ["1.36", "v1.36", "1.36.3", "v1.36.10", " 1.36 "] {
            assert_eq!(KubernetesVersion::parse(t), Ok(v136), "{t}");
        }
        assert_eq!(
            KubernetesVersion::parse("preview"),
            Ok(KubernetesVersion::PREVIEW)
        );
        let e = KubernetesVersion::parse("1.34").unwrap_err();
        assert!(
            e.contains("1.34 is not supported") && e.contains("1.35, 1.36, 1.37 (or preview"),
            "{e}"
        );
        let e = KubernetesVersion::parse("2.37").unwrap_err();
        assert!(e.contains("not supported"), "{e}");
        for bad in ["", "1", "1.", "latest", "1.37.x", "1.37.1.1", "one.two"] {
            let e = KubernetesVersion::parse(bad).unwrap_err();
            assert!(e.contains("not a Kubernetes version"), "{bad}: {e}");
        }
    }

    #[test]
    fn gate_defaults_follow_the_versioned_specs() {
        let [v135, v136, v137] = KubernetesVersion::SUPPORTED;
        assert!(!v135.gate_default(Gate::InPlacePodLevelResourcesVerticalScaling));
        assert!(v136.gate_default(Gate::InPlacePodLevelResourcesVerticalScaling));
        assert!(
            v135.gate_spec(Gate::InPlacePodVerticalScalingInitContainers)
                .is_none()
        );
        assert_eq!(
            v137.gate_spec(Gate::InPlacePodVerticalScalingInitContainers)
                .map(|s| s.stage),
            Some(Stage::Ga)
        );
        assert!(!v136.gate_default(Gate::SELinuxMount) && v137.gate_default(Gate::SELinuxMount));
        assert!(!v135.gate_default(Gate::DynamicContainers));
        assert!(v137.gate_default(Gate::SidecarContainers), "removed, always on");
        assert!(KubernetesVersion::PREVIEW.gate_default(Gate::MutableContainerProbes));
        assert_eq!(KubernetesVersion::PREVIEW.minor(), 37);
        assert_eq!(KubernetesVersion::NEWEST, v137);
        // The unset profile's gates (Gate::ALL) are the newest release's.
        for (gate, on) in Gate::ALL {
            assert_eq!(v137.gate_default(gate), on, "{gate}");
        }
    }

    #[test]
    fn a_gate_whose_dependencies_are_off_is_refused() {
        let [v135, v136, _] = KubernetesVersion::SUPPORTED;
        let mut gates = super::super::FeatureGates::default();
        gates.set(Gate::ClusterTrustBundle, false);
        let e = v135.check_dependencies(&gates).unwrap_err();
        assert_eq!(
            e,
            "featureGates.ClusterTrustBundleProjection: ClusterTrustBundleProjection is enabled, but \
             depends on features that are disabled: [ClusterTrustBundle] (Kubernetes 1.35)"
        );
        gates.set(Gate::ClusterTrustBundle, true);
        gates.set(Gate::PodLevelResources, false);
        gates.set(Gate::NodeDeclaredFeatures, false);
        let e = v136.check_dependencies(&gates).unwrap_err();
        assert!(
            e.contains("InPlacePodLevelResourcesVerticalScaling is enabled, but depends on features that are disabled: [NodeDeclaredFeatures PodLevelResources] (Kubernetes 1.36)")
                && e.contains("InPlacePodVerticalScalingInitContainers is enabled, but depends on features that are disabled: [NodeDeclaredFeatures]"),
            "{e}"
        );
        gates.set(Gate::NodeDeclaredFeatures, true);
        gates.set(Gate::PodLevelResources, true);
        assert!(v136.check_dependencies(&gates).is_ok());
    }

    #[test]
    fn absent_removed_and_locked_gates_are_refused_like_kube_apiserver_does() {
        let [v135, v136, v137] = KubernetesVersion::SUPPORTED;
        let e = v137.check_gate(Gate::DynamicContainers, true).unwrap_err();
        assert!(
            e.contains("unrecognized feature gate: DynamicContainers") && e.contains("alpha from 1.38"),
            "{e}"
        );
        assert!(
            KubernetesVersion::PREVIEW
                .check_gate(Gate::DynamicContainers, false)
                .is_ok()
        );
        let e = v136.check_gate(Gate::SidecarContainers, false).unwrap_err();
        assert!(e.contains("locked to true in Kubernetes 1.36"), "{e}");
        let e = v137.check_gate(Gate::SidecarContainers, true).unwrap_err();
        assert!(
            e.contains("unrecognized feature gate: SidecarContainers") && e.contains("removed"),
            "{e}"
        );
        assert!(
            v136.check_gate(Gate::InPlacePodVerticalScalingInitContainers, false)
                .is_ok(),
            "beta in 1.36"
        );
        assert!(
            v137.check_gate(Gate::InPlacePodVerticalScalingInitContainers, false)
                .is_err(),
            "GA, locked in 1.37"
        );
        assert!(
            v135.check_gate(Gate::InPlacePodVerticalScalingInitContainers, true)
                .is_err(),
            "not in 1.35"
        );
        // Every gate podmut knows has a history entry.
        for (g, _) in Gate::ALL {
            assert!(GATE_HISTORY.iter().any(|(h, _)| *h == g), "{g}");
        }
    }

    #[test]
    fn deserializes_strings_and_unambiguous_numbers() {
        let v: KubernetesVersion = serde_json::from_str("\"1.36\"").unwrap();
        assert_eq!(v.minor(), 36);
        let v: KubernetesVersion = serde_json::from_str("1.36").unwrap();
        assert_eq!(v.minor(), 36);
        let e = serde_json::from_str::<KubernetesVersion>("1.3")
            .unwrap_err()
            .to_string();
        assert!(e.contains("quote the version"), "{e}");
        assert_eq!(serde_json::to_string(&v).unwrap(), "\"1.36\"");
        let p: KubernetesVersion = serde_json::from_str("\"preview\"").unwrap();
        assert_eq!(serde_json::to_string(&p).unwrap(), "\"preview\"");
    }
}
