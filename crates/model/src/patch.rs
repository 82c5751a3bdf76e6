//! Pod changes written as patches, the three types `kubectl patch --type` sends: a strategic
//! merge patch (the default; [`strategic`]), a JSON merge patch (RFC 7386) and a JSON patch
//! (RFC 6902). The last two come from the `json-patch` crate (already in the tree through
//! kube-core); the strategic one is podmut's own, because no Rust library knows the Pod's patch
//! strategies.
//!
//! The patch is applied to the old Pod the way the API server applies it before admission; the
//! patched Pod is then judged like any new Pod (`podmut check --old F --patch P`).

use std::fmt;
use std::str::FromStr;

use serde_json::Value;

use crate::document::{self, InputError};

pub(crate) mod schema;
mod strategic;

/// The input name patch errors are reported under (the CLI maps it to `--patch`/`--patch-file`).
pub(crate) const PATCH_INPUT: &str = "patch";

/// A patch type, as `kubectl patch --type` names it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PatchType {
    /// `strategic`: a strategic merge patch (Pod patch strategies and merge keys, `$patch`, ...).
    #[default]
    Strategic,
    /// `merge`: a JSON merge patch (RFC 7386): objects merge, lists are replaced, `null` deletes.
    Merge,
    /// `json`: a JSON patch (RFC 6902): a list of `add`/`remove`/`replace`/`move`/`copy`/`test`.
    Json,
}

impl PatchType {
    /// Every type, in `kubectl patch --type` order.
    pub const ALL: [PatchType; 3] = [PatchType::Json, PatchType::Merge, PatchType::Strategic];

    /// The name `--type` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            PatchType::Strategic => "strategic",
            PatchType::Merge => "merge",
            PatchType::Json => "json",
        }
    }
}

impl fmt::Display for PatchType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for PatchType {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "strategic" => Ok(PatchType::Strategic),
            "merge" => Ok(PatchType::Merge),
            "json" => Ok(PatchType::Json),
            // kubectl's own wording.
            other => Err(format!(
                "--type must be one of [json merge strategic], not {other:?}"
            )),
        }
    }
}

/// Apply `patch` (JSON or YAML text, like `kubectl patch -p`) of type `patch_type` to the Pod
/// document `old` (JSON or YAML), returning the patched Pod as a JSON value.
///
/// Errors name their input: `old-pod` for an unreadable Pod, `patch` for an unreadable patch or
/// one that does not apply (with upstream's message, e.g. `map: map[image:x] does not contain
/// declared merge key: name`).
///
/// ```
/// use podmut_model::patch::{PatchType, apply_patch};
/// let old = "kind: Pod\napiVersion: v1\nmetadata: {name: web}\nspec:\n  containers:\n  - {name: app, image: nginx:1.25}\n";
/// let new = apply_patch(old, r#"{"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}"#, PatchType::Strategic, 1 << 20).unwrap();
/// assert_eq!(new["spec"]["containers"][0]["image"], "nginx:1.27");
/// ```
pub fn apply_patch(
    old: &str,
    patch: &str,
    patch_type: PatchType,
    max_bytes: u64,
) -> Result<Value, InputError> {
    let original = document::parse_text(old, "old-pod", max_bytes)?;
    document::expect_kind(&original, "old-pod", "v1", "Pod")?;
    if patch.trim().is_empty() {
        return Err(InputError::malformed(PATCH_INPUT, "the patch is empty"));
    }
    let patch_value = document::parse_text(patch, PATCH_INPUT, max_bytes)?;
    apply_patch_value(original, patch_value, patch_type)
}

/// [`apply_patch`] on parsed documents.
pub(crate) fn apply_patch_value(
    original: Value,
    patch: Value,
    patch_type: PatchType,
) -> Result<Value, InputError> {
    match patch_type {
        PatchType::Strategic => {
            let (Value::Object(o), Value::Object(p)) = (original, patch) else {
                return Err(InputError::malformed(
                    PATCH_INPUT,
                    "json: cannot unmarshal a non-object into Go value of type map[string]interface {} \
                     (a strategic merge patch is a JSON object)",
                ));
            };
            strategic::apply(o, p, &schema::POD)
                .map(Value::Object)
                .map_err(|e| InputError::malformed(PATCH_INPUT, e.0))
        }
        PatchType::Merge => {
            let mut doc = original;
            json_patch::merge(&mut doc, &patch);
            Ok(doc)
        }
        PatchType::Json => {
            let ops: json_patch::Patch = serde_json::from_value(patch).map_err(|e| {
                InputError::malformed(PATCH_INPUT, format!("a JSON patch is a list of operations: {e}"))
            })?;
            let mut doc = original;
            json_patch::patch(&mut doc, &ops)
                .map_err(|e| InputError::malformed(PATCH_INPUT, e.to_string()))?;
            Ok(doc)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: web, labels: {app: web}}\nspec:\n  containers:\n  - {name: app, image: nginx:1.25, env: [{name: A, value: '1'}]}\n";

    #[test]
    fn three_types() {
        let s = apply_patch(
            OLD,
            "spec:\n  containers:\n  - {name: app, env: [{name: B, value: '2'}]}\n",
            PatchType::Strategic,
            1 << 20,
        )
        .unwrap();
        assert_eq!(s["spec"]["containers"][0]["env"].as_array().unwrap().len(), 2);
        let m = apply_patch(
            OLD,
            r#"{"spec":{"containers":[{"name":"app","image":"x"}]},"metadata":{"labels":null}}"#,
            PatchType::Merge,
            1 << 20,
        )
        .unwrap();
        assert_eq!(
            m["spec"]["containers"],
            serde_json::json!([{"name": "app", "image": "x"}])
        );
        assert!(m["metadata"].get("labels").is_none());
        let j = apply_patch(
            OLD,
            r#"[{"op":"replace","path":"/spec/containers/0/image","value":"nginx:1.27"}]"#,
            PatchType::Json,
            1 << 20,
        )
        .unwrap();
        assert_eq!(j["spec"]["containers"][0]["image"], "nginx:1.27");
    }

    #[test]
    fn errors_name_the_patch() {
        let e = apply_patch(
            OLD,
            r#"[{"op":"replace","path":"/spec/nope/0","value":1}]"#,
            PatchType::Json,
            1 << 20,
        )
        .unwrap_err();
        assert_eq!(e.input(), PATCH_INPUT, "{e}");
        let e = apply_patch(OLD, "[1, 2]", PatchType::Strategic, 1 << 20).unwrap_err();
        assert_eq!(e.input(), PATCH_INPUT);
        let e = apply_patch(OLD, "{not json", PatchType::Merge, 1 << 20).unwrap_err();
        assert_eq!(e.input(), PATCH_INPUT);
        let e = apply_patch("kind: Node", "{}", PatchType::Merge, 1 << 20).unwrap_err();
        assert_eq!(e.input(), "old-pod");
        assert!(
            "bogus"
                .parse::<PatchType>()
                .unwrap_err()
                .contains("[json merge strategic]")
        );
    }
}
