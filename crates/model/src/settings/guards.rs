//! The guards: podmut's own policy knobs beyond the API server's rules, each a need operators keep
//! raising and each also expressible as a ValidatingAdmissionPolicy (`podmut vap generate`).
//! The rules that read them are `podmut_validation::guards`.

use serde::{Deserialize, Serialize};

use crate::quantity::Quantity;

/// The largest `resizeLimits.maxStep`: a generated policy spells the product out as a sum.
pub const MAX_STEP: u32 = 10;

/// `resizeLimits`: ceilings for cpu and memory on `pods/resize`, and the largest factor one
/// resize may multiply a container's request or limit by. Unset keys are not checked.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResizeLimits {
    /// No container's cpu request or limit may be above it after a resize.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cpu: Option<Ceiling>,
    /// No container's memory request or limit may be above it after a resize.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_memory: Option<Ceiling>,
    /// A resize may multiply a container's cpu or memory request or limit by at most this whole
    /// number (1 to [`MAX_STEP`]).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "step")]
    pub max_step: Option<u32>,
}

impl ResizeLimits {
    /// The ceiling of `resource` (`cpu` or `memory`), if one is set.
    pub fn ceiling(&self, resource: &str) -> Option<&Ceiling> {
        match resource {
            "cpu" => self.max_cpu.as_ref(),
            "memory" => self.max_memory.as_ref(),
            _ => None,
        }
    }
}

fn step<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    let n = u32::deserialize(d)?;
    if (1..=MAX_STEP).contains(&n) {
        Ok(Some(n))
    } else {
        Err(serde::de::Error::custom(format!(
            "maxStep must be a whole number from 1 to {MAX_STEP}, not {n}"
        )))
    }
}

/// A positive Kubernetes quantity, kept as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ceiling {
    text: String,
    quantity: Quantity,
}

impl Ceiling {
    /// Read `text` as a positive quantity.
    pub fn parse(text: &str) -> Result<Self, String> {
        match Quantity::parse(text) {
            Ok(quantity) if quantity.sign() > 0 => Ok(Self {
                text: text.to_owned(),
                quantity,
            }),
            Ok(_) => Err(format!("{text:?} is not a positive quantity")),
            Err(e) => Err(format!("{text:?} is not a quantity: {e}")),
        }
    }

    /// The quantity as written (`8Gi`).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Its value.
    pub fn quantity(&self) -> &Quantity {
        &self.quantity
    }
}

impl Serialize for Ceiling {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for Ceiling {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Text {
            Number(u64),
            Text(String),
        }
        let text = match Text::deserialize(d)? {
            Text::Number(n) => n.to_string(),
            Text::Text(t) => t,
        };
        Ceiling::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// The Pod label that lets a debug container escalate, unless settings name another.
pub const BREAK_GLASS_LABEL: &str = "podmut.io/break-glass";

/// `debugContainers`: what ephemeral containers added through `pods/ephemeralcontainers`
/// (`kubectl debug`) may ask for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct DebugContainers {
    /// Refuse an added debug container that is privileged or adds capabilities (`kubectl debug
    /// --profile sysadmin` asks for both), unless the Pod carries the break-glass label.
    pub forbid_escalation: bool,
    /// The Pod label whose value `true` lets debug containers escalate.
    pub break_glass_label: String,
}

impl Default for DebugContainers {
    fn default() -> Self {
        Self {
            forbid_escalation: false,
            break_glass_label: BREAK_GLASS_LABEL.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceilings_are_positive_quantities_kept_as_written() {
        let c: Ceiling = serde_json::from_str("\"8Gi\"").unwrap();
        assert_eq!(c.text(), "8Gi");
        assert_eq!(c.quantity(), &Quantity::parse("8192Mi").unwrap());
        let n: Ceiling = serde_json::from_str("4").unwrap();
        assert_eq!(n.text(), "4");
        for bad in ["\"0\"", "\"-1\"", "\"lots\""] {
            let e = serde_json::from_str::<Ceiling>(bad).unwrap_err().to_string();
            assert!(e.contains("quantity"), "{bad}: {e}");
        }
    }

    #[test]
    fn the_step_is_a_small_whole_number() {
        let l: ResizeLimits = serde_json::from_str(r#"{"maxStep": 2}"#).unwrap();
        assert_eq!(l.max_step, Some(2));
        for bad in [r#"{"maxStep": 0}"#, r#"{"maxStep": 11}"#, r#"{"maxStep": 1.5}"#] {
            assert!(serde_json::from_str::<ResizeLimits>(bad).is_err(), "{bad}");
        }
        assert!(serde_json::from_str::<ResizeLimits>(r#"{"maxCPU": "1"}"#).is_err());
    }
}
