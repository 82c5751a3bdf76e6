//! From a conformance fixture to what the oracle sends: which control plane judges it, which
//! request path, and the podmut settings that describe that same server.
//!
//! The server is always a stock one of a pinned release, started with the fixture's feature gates
//! and `--allow-privileged`. podmut is asked with the fixture's settings made to describe that
//! server: `kubernetesVersion` set to the release, `applyDefaults` on (a server always defaults
//! what it decodes). A fixture whose settings no server can have (a gate no release has turned
//! on, an emulated older rule, the `pods/dynamic` path) is not replayed; the reason is one of
//! [`Skip`]'s, and each must be listed in the known-differences file.

use serde_json::{Map, Value};

use crate::api::PodPath;
use crate::control_plane::Config;
use crate::releases::{Pins, Release};

/// Gates that exist in no pinned release: podmut's KEP work (alpha from 1.38 upstream).
pub const PREVIEW_GATES: [&str; 2] = ["DynamicContainers", "MutableContainerProbes"];

/// Why a fixture is not replayed against a server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Skip {
    /// `pods/dynamic` is served by no release.
    PodsDynamic,
    /// The fixture turns on a gate no release has.
    PreviewGate,
    /// The fixture names a release that is not pinned (no server to ask).
    ReleaseNotPinned,
    /// The fixture sets a podmut-only emulation (`memoryLimitDecrease` other than the release's).
    Emulation,
    /// The fixture sets a podmut-only policy (`securityContextEscalation: forbid`, a guard).
    PodmutPolicy,
    /// The fixture is about podmut's own input handling (an unreadable or wrong document).
    PodmutInput,
    /// The fixture's `nodes` describe a Node other than the one the oracle creates for a bound Pod
    /// (`crate::api::oracle_node`).
    OtherNode,
}

impl Skip {
    /// The id the known-differences file lists it under.
    pub fn id(self) -> &'static str {
        match self {
            Skip::PodsDynamic => "pods-dynamic",
            Skip::PreviewGate => "preview-gate",
            Skip::ReleaseNotPinned => "release-not-pinned",
            Skip::Emulation => "podmut-emulation",
            Skip::PodmutPolicy => "podmut-policy",
            Skip::PodmutInput => "podmut-input",
            Skip::OtherNode => "other-node",
        }
    }
}

/// Whether the settings turn on a podmut-only policy (the strict profile or a guard), as podmut's
/// own settings model names them; settings podmut cannot read turn on none.
fn podmut_policy(s: &Map<String, Value>) -> bool {
    podmut_core::Settings::from_value(&Value::Object(s.clone()))
        .is_ok_and(|settings| !settings.podmut_policies().is_empty())
}

/// What the oracle does with one `check` fixture.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The control plane that judges it.
    pub config: Config,
    /// podmut's settings describing that control plane.
    pub settings: Value,
    /// The request path.
    pub path: PodPath,
    /// The Pod before (an update), as the fixture has it.
    pub old: Option<Value>,
    /// The Pod after, as the fixture has it.
    pub new: Value,
    /// Extra query parameters of the write (`fieldValidation=...`).
    pub query: String,
}

/// The fixture's release: its `kubernetesVersion`, else the newest pinned release podmut's
/// default follows.
fn release_of(settings: &Map<String, Value>, pins: &Pins, default: Release) -> Result<Release, Skip> {
    let Some(v) = settings.get("kubernetesVersion").and_then(Value::as_str) else {
        return Ok(default);
    };
    let minor = v
        .trim_start_matches('v')
        .strip_prefix("1.")
        .and_then(|r| r.split('.').next())
        .and_then(|m| m.parse::<u8>().ok());
    minor.and_then(|m| pins.release(m)).ok_or(Skip::ReleaseNotPinned)
}

/// podmut's `memoryLimitDecrease` default of a release (`forbid` up to 1.33).
fn memory_limit_decrease(release: Release) -> &'static str {
    if release.minor <= 33 { "forbid" } else { "allow" }
}

/// Plan a `check` fixture: `subresource` is its path, `settings` its settings document.
pub fn plan(
    area: &str,
    subresource: &str,
    settings: Option<&Value>,
    old: Option<&Value>,
    new: Option<&Value>,
    pins: &Pins,
    default: Release,
) -> Result<Plan, Skip> {
    if area == "input" {
        return Err(Skip::PodmutInput);
    }
    let path = match (subresource, old.is_some()) {
        ("dynamic", _) => return Err(Skip::PodsDynamic),
        ("none", false) => PodPath::Create,
        ("none", true) => PodPath::Update,
        ("ephemeralcontainers", _) => PodPath::EphemeralContainers,
        ("resize", _) => PodPath::Resize,
        ("status", _) => PodPath::Status,
        _ => return Err(Skip::PodmutInput),
    };
    let Some(new) = new.filter(|n| n.is_object()) else {
        return Err(Skip::PodmutInput);
    };
    if old.is_some_and(|o| !o.is_object()) {
        return Err(Skip::PodmutInput);
    }
    let mut s = settings.and_then(Value::as_object).cloned().unwrap_or_default();
    let release = release_of(&s, pins, default)?;
    if let Some(nodes) = s.remove("nodes") {
        // The oracle gives podmut the Node it created (`fixtures::with_nodes`); a fixture about
        // another Node cannot be replayed against it.
        let oracle = |n: &Value| {
            let name = n
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let ours = crate::api::oracle_node(name);
            n.pointer("/metadata/labels").is_none()
                && n.pointer("/status/declaredFeatures").is_none()
                && n.pointer("/status/allocatable") == ours.pointer("/status/allocatable")
        };
        if !nodes
            .as_array()
            .is_some_and(|ns| ns.len() == 1 && ns.iter().all(oracle))
        {
            return Err(Skip::OtherNode);
        }
    }
    let mut config = Config::stock(release);
    if let Some(gates) = s.remove("featureGates").and_then(|g| g.as_object().cloned()) {
        let mut kept = Map::new();
        for (name, value) in gates {
            let on = value.as_bool().unwrap_or(false);
            if PREVIEW_GATES.contains(&name.as_str()) {
                if on {
                    return Err(Skip::PreviewGate);
                }
                continue;
            }
            config.feature_gates.insert(name.clone(), on);
            kept.insert(name, Value::Bool(on));
        }
        if !kept.is_empty() {
            s.insert("featureGates".into(), Value::Object(kept));
        }
    }
    if let Some(m) = s.get("memoryLimitDecrease").and_then(Value::as_str) {
        if m != memory_limit_decrease(release) {
            return Err(Skip::Emulation);
        }
        s.remove("memoryLimitDecrease");
    }
    if podmut_policy(&s) {
        return Err(Skip::PodmutPolicy);
    }
    if let Some(p) = s.get("allowPrivileged").and_then(Value::as_bool) {
        config.allow_privileged = p;
    }
    let query = match s
        .get("fieldValidation")
        .and_then(Value::as_str)
        .unwrap_or("ignore")
    {
        "strict" => "fieldValidation=Strict",
        "warn" => "fieldValidation=Warn",
        _ => "fieldValidation=Ignore",
    };
    s.insert("applyDefaults".into(), Value::Bool(true));
    s.insert("kubernetesVersion".into(), Value::String(release.minor_name()));
    Ok(Plan {
        config,
        settings: Value::Object(s),
        path,
        old: old.cloned(),
        new: new.clone(),
        query: query.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pins() -> Pins {
        Pins::parse("kubernetes v1.35.4\nkubernetes v1.37.2\netcd v3.6.17\n")
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn settings_describe_the_server() {
        let pins = pins();
        let pod = json!({"kind": "Pod"});
        let p = plan(
            "resize",
            "resize",
            Some(
                &json!({"applyDefaults": false, "featureGates": {"MutableContainerProbes": false, "InPlacePodVerticalScalingExclusiveCPUs": true}}),
            ),
            Some(&pod),
            Some(&pod),
            &pins,
            pins.newest(),
        );
        let p = p.unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(p.path, PodPath::Resize);
        assert_eq!(
            p.config.gates_arg(),
            "InPlacePodVerticalScalingExclusiveCPUs=true"
        );
        assert_eq!(
            p.settings,
            json!({"applyDefaults": true, "kubernetesVersion": "1.37", "featureGates": {"InPlacePodVerticalScalingExclusiveCPUs": true}})
        );
    }

    #[test]
    fn what_no_server_has_is_skipped() {
        let pins = pins();
        let pod = json!({"kind": "Pod"});
        let skip = |sub: &str, s: Value| {
            plan(
                "update",
                sub,
                Some(&s),
                Some(&pod),
                Some(&pod),
                &pins,
                pins.newest(),
            )
            .err()
        };
        assert_eq!(skip("dynamic", json!({})), Some(Skip::PodsDynamic));
        assert_eq!(
            skip("none", json!({"featureGates": {"MutableContainerProbes": true}})),
            Some(Skip::PreviewGate)
        );
        assert_eq!(
            skip("none", json!({"kubernetesVersion": "1.33"})),
            Some(Skip::ReleaseNotPinned)
        );
        assert_eq!(
            skip("resize", json!({"memoryLimitDecrease": "forbid"})),
            Some(Skip::Emulation)
        );
        assert_eq!(skip("resize", json!({"memoryLimitDecrease": "allow"})), None);
        for guard in [
            json!({"resizeLimits": {"maxStep": 2}}),
            json!({"debugContainers": {"forbidEscalation": true}}),
            json!({"freezeRunningPodMetadata": true}),
            json!({"securityContextEscalation": "forbid"}),
        ] {
            assert_eq!(skip("none", guard.clone()), Some(Skip::PodmutPolicy), "{guard}");
        }
        assert_eq!(
            skip("none", json!({"debugContainers": {"breakGlassLabel": "x"}})),
            None,
            "the label alone turns nothing on"
        );
    }
}
