//! The suite format of `podmut test` (docs/testing.md): a YAML or JSON document of kind `Test`
//! holding cases, each a Pod (or workload) change and what it must get. The files a suite names
//! are read relative to the suite's own file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::cli::inputs::{yaml_value, yaml_values};
use crate::cli::{Failure, read_input};

/// The `apiVersion` of a suite.
pub(crate) const API_VERSION: &str = "podmut.io/v1alpha1";
/// The `kind` of a suite.
pub(crate) const KIND: &str = "Test";

/// What a suite sets for all its cases and a case may set for itself (the case's value wins).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Context {
    /// A settings profile: a file (relative to the suite) or the mapping itself.
    pub(crate) settings: Option<Value>,
    /// The release to judge as (`1.35`, `1.36`, `1.37`, `preview`).
    pub(crate) kubernetes_version: Option<String>,
    /// Feature gates, added to the settings' own.
    pub(crate) feature_gates: Option<BTreeMap<String, bool>>,
    /// The cluster's Nodes: files or the objects themselves.
    pub(crate) nodes: Option<Vec<Value>>,
    /// ValidatingAdmissionPolicies and their bindings: files or the objects themselves.
    pub(crate) policies: Option<Vec<Value>>,
    /// The namespace's labels, for the policies' namespace selectors.
    pub(crate) namespace_labels: Option<BTreeMap<String, String>>,
    /// The requesting user's name, for the policies' `request.userInfo.username`.
    pub(crate) user: Option<String>,
}

impl Context {
    /// This context with `over`'s values where it sets them.
    fn overlaid(&self, over: &Context) -> Context {
        Context {
            settings: over.settings.clone().or_else(|| self.settings.clone()),
            kubernetes_version: over
                .kubernetes_version
                .clone()
                .or_else(|| self.kubernetes_version.clone()),
            feature_gates: match (&self.feature_gates, &over.feature_gates) {
                (Some(a), Some(b)) => Some(a.iter().chain(b).map(|(k, v)| (k.clone(), *v)).collect()),
                (a, b) => b.clone().or_else(|| a.clone()),
            },
            nodes: over.nodes.clone().or_else(|| self.nodes.clone()),
            policies: over.policies.clone().or_else(|| self.policies.clone()),
            namespace_labels: over
                .namespace_labels
                .clone()
                .or_else(|| self.namespace_labels.clone()),
            user: over.user.clone().or_else(|| self.user.clone()),
        }
    }
}

/// A suite document. The context keys are `Context`'s, flattened: serde still refuses a key
/// neither knows.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SuiteDoc {
    /// Checked before decoding ([`is_suite`]).
    #[serde(rename = "apiVersion")]
    _api_version: String,
    /// Checked before decoding ([`is_suite`]).
    #[serde(rename = "kind")]
    _kind: String,
    metadata: Option<Metadata>,
    #[serde(flatten)]
    context: Context,
    cases: Vec<CaseDoc>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Metadata {
    name: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CaseDoc {
    name: String,
    old: Option<Value>,
    new: Option<Value>,
    patch: Option<Value>,
    #[serde(default)]
    patch_type: PatchType,
    #[serde(default)]
    subresource: String,
    #[serde(flatten)]
    context: Context,
    expect: Expect,
}

/// A patch's type, as `kubectl patch --type` names it.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub(crate) enum PatchType {
    /// Strategic merge patch.
    #[default]
    Strategic,
    /// JSON merge patch (RFC 7386).
    Merge,
    /// JSON patch (RFC 6902).
    Json,
}

/// What a case must get. Only what is given is compared.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Expect {
    /// The API server's verdict (podmut's rules and, with `policies`, the policies').
    pub(crate) allowed: bool,
    /// Exactly these (type, field) pairs, in any order (an `origin` is compared when given).
    pub(crate) errors: Option<Vec<ExpectedError>>,
    /// The API server's message for a denial, exactly.
    pub(crate) message: Option<String>,
    /// The QoS class of the new Pod (or of the Pods the new workload makes).
    pub(crate) qos_class: Option<String>,
    /// Exactly these warnings, in any order (podmut's and the policies' `Warn`).
    pub(crate) warnings: Option<Vec<String>>,
    /// The policies' answer.
    pub(crate) vap: Option<ExpectedVap>,
}

/// One expected error.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ExpectedError {
    /// The `metav1.CauseType` (`FieldValueForbidden`, ...).
    #[serde(rename = "type")]
    pub(crate) type_: String,
    /// The field, as the API server prints it.
    pub(crate) field: String,
    /// podmut's rule id, when the case pins it.
    pub(crate) origin: Option<String>,
}

/// The expected answer of the policies.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ExpectedVap {
    /// No `Deny` decision.
    pub(crate) allowed: Option<bool>,
    /// Exactly these decisions, in any order (each compares the keys it gives).
    pub(crate) decisions: Option<Vec<ExpectedDecision>>,
}

/// One expected policy decision.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ExpectedDecision {
    /// The policy's name.
    pub(crate) policy: String,
    /// `Deny`, `Warn` or `Audit`.
    pub(crate) action: String,
    /// The binding's name.
    pub(crate) binding: Option<String>,
    /// The validation's message.
    pub(crate) message: Option<String>,
}

/// One case, its files read.
#[derive(Clone, Debug)]
pub(crate) struct Case {
    /// The suite's name (its `metadata.name`, else its file's stem).
    pub(crate) suite: String,
    /// The suite's file.
    pub(crate) file: String,
    /// The case's name.
    pub(crate) name: String,
    /// The old object (JSON), absent for a create.
    pub(crate) old: Option<Value>,
    /// The new object, or how to make it from the old one.
    pub(crate) change: Change,
    /// The request path (`""`: the main resource).
    pub(crate) subresource: String,
    /// The settings document (JSON), without Nodes.
    pub(crate) settings: Map<String, Value>,
    /// The cluster's Nodes.
    pub(crate) nodes: Vec<Value>,
    /// The policy texts (JSON streams), each named by its source.
    pub(crate) policies: Vec<(String, String)>,
    /// The namespace's labels.
    pub(crate) namespace_labels: Vec<(String, String)>,
    /// The requesting user.
    pub(crate) user: Option<String>,
    /// What the case must get.
    pub(crate) expect: Expect,
}

/// The new object of a case.
#[derive(Clone, Debug)]
pub(crate) enum Change {
    /// Given whole.
    New(Value),
    /// A patch of the old object (its text as `kubectl patch -p` takes it).
    Patch(String, PatchType),
}

/// Whether a document is a suite (its `apiVersion` and `kind`).
fn is_suite(doc: &Value) -> bool {
    doc.get("apiVersion").and_then(Value::as_str) == Some(API_VERSION)
        && doc.get("kind").and_then(Value::as_str) == Some(KIND)
}

/// One suite file's cases (a file may hold several suites, as a YAML stream). A file found in a
/// directory (`named` false) that holds no suite is not one (a Pod the suites use, say): no cases.
pub(crate) fn read(path: &Path, named: bool) -> Result<Vec<Case>, Failure> {
    let file = path.display().to_string();
    let text = read_input(path, "suite")?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let docs = match yaml_values(&text, &file) {
        Ok(docs) => docs,
        Err(_) if !named => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    if !named && !docs.iter().any(is_suite) {
        return Ok(Vec::new());
    }
    if docs.is_empty() {
        return Err(Failure::input(format!("{file}: no suite in it")));
    }
    let mut cases = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        let at = if docs.len() > 1 {
            format!("{file}: document {}", i + 1)
        } else {
            file.clone()
        };
        if !is_suite(doc) {
            let text = |k: &str| doc.get(k).and_then(Value::as_str).unwrap_or("(none)").to_owned();
            return Err(Failure::input(format!(
                "{at}: not a podmut test suite (apiVersion {API_VERSION}, kind {KIND}); found {} {}",
                text("apiVersion"),
                text("kind")
            )));
        }
        let suite: SuiteDoc =
            serde_path_to_error::deserialize(doc).map_err(|e| match e.path().to_string().as_str() {
                "." => Failure::input(format!("{at}: {}", e.inner())),
                path => Failure::input(format!("{at}: {path}: {}", e.inner())),
            })?;
        let name = suite
            .metadata
            .as_ref()
            .and_then(|m| m.name.clone())
            .unwrap_or_else(|| stem(path));
        let context = suite.context;
        let reader = Reader {
            base: &base,
            file: &file,
            suite: &name,
        };
        for (j, c) in suite.cases.into_iter().enumerate() {
            cases.push(reader.case(&context, c, j)?);
        }
    }
    Ok(cases)
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "suite".into())
}

/// Reads the objects one suite names.
struct Reader<'a> {
    base: &'a Path,
    file: &'a str,
    suite: &'a str,
}

impl Reader<'_> {
    fn case(&self, suite: &Context, c: CaseDoc, index: usize) -> Result<Case, Failure> {
        let at = format!("{}: cases[{index}] ({:?})", self.file, c.name);
        let ctx = suite.overlaid(&c.context);
        let old = c
            .old
            .as_ref()
            .map(|v| self.object(v, &format!("{at}: old")))
            .transpose()?;
        let change = match (c.new, c.patch) {
            (Some(new), None) => Change::New(self.object(&new, &format!("{at}: new"))?),
            (None, Some(patch)) if old.is_some() => Change::Patch(patch_text(&patch), c.patch_type),
            (None, Some(_)) => return Err(Failure::input(format!("{at}: a patch needs old"))),
            (Some(_), Some(_)) => return Err(Failure::input(format!("{at}: give new or patch, not both"))),
            (None, None) => return Err(Failure::input(format!("{at}: give new (or old and patch)"))),
        };
        Ok(Case {
            suite: self.suite.to_owned(),
            file: self.file.to_owned(),
            name: c.name,
            old,
            change,
            subresource: c.subresource,
            settings: self.settings(&ctx, &at)?,
            nodes: self.nodes(ctx.nodes.as_deref().unwrap_or_default(), &at)?,
            policies: self.policies(ctx.policies.as_deref().unwrap_or_default(), &at)?,
            namespace_labels: ctx.namespace_labels.unwrap_or_default().into_iter().collect(),
            user: ctx.user,
            expect: c.expect,
        })
    }

    /// A file relative to the suite.
    fn path(&self, name: &str) -> PathBuf {
        self.base.join(name)
    }

    fn text(&self, name: &str, at: &str) -> Result<(String, String), Failure> {
        let path = self.path(name);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| Failure::input(format!("{at}: cannot read {}: {e}", path.display())))?;
        Ok((text, path.display().to_string()))
    }

    /// One object: a file holding exactly one, or the object itself.
    fn object(&self, v: &Value, at: &str) -> Result<Value, Failure> {
        match v {
            Value::String(name) => {
                let (text, file) = self.text(name, at)?;
                let mut objects = yaml_values(&text, &file)?;
                match objects.len() {
                    1 => Ok(objects.remove(0)),
                    n => Err(Failure::input(format!(
                        "{at}: {file} holds {n} objects; a case takes one"
                    ))),
                }
            }
            Value::Object(_) => Ok(v.clone()),
            _ => Err(Failure::input(format!("{at}: expected a file name or an object"))),
        }
    }

    fn objects(&self, v: &Value, at: &str) -> Result<Vec<Value>, Failure> {
        match v {
            Value::String(name) => {
                let (text, file) = self.text(name, at)?;
                yaml_values(&text, &file)
            }
            Value::Object(_) => Ok(vec![v.clone()]),
            _ => Err(Failure::input(format!("{at}: expected a file name or an object"))),
        }
    }

    fn nodes(&self, given: &[Value], at: &str) -> Result<Vec<Value>, Failure> {
        let mut out = Vec::new();
        for v in given {
            out.extend(self.objects(v, &format!("{at}: nodes"))?);
        }
        Ok(out)
    }

    fn policies(&self, given: &[Value], at: &str) -> Result<Vec<(String, String)>, Failure> {
        given
            .iter()
            .map(|v| {
                let objects = self.objects(v, &format!("{at}: policies"))?;
                let source = match v {
                    Value::String(name) => self.path(name).display().to_string(),
                    _ => format!("{at}: policies"),
                };
                Ok((source, Value::Array(objects).to_string()))
            })
            .collect()
    }

    /// The settings document: the profile, then the context's release and gates.
    fn settings(&self, ctx: &Context, at: &str) -> Result<Map<String, Value>, Failure> {
        let doc = match &ctx.settings {
            None => Value::Object(Map::new()),
            Some(Value::String(name)) => {
                let (text, file) = self.text(name, &format!("{at}: settings"))?;
                yaml_value(&text, &file)?
            }
            Some(v) => v.clone(),
        };
        let mut settings = match doc {
            Value::Object(m) => m,
            Value::Null => Map::new(),
            _ => {
                return Err(Failure::input(format!(
                    "{at}: settings: a settings profile is a mapping"
                )));
            }
        };
        if let Some(v) = &ctx.kubernetes_version {
            settings.insert("kubernetesVersion".into(), Value::String(v.clone()));
        }
        if let Some(gates) = &ctx.feature_gates {
            let entry = settings
                .entry("featureGates")
                .or_insert_with(|| Value::Object(Map::new()));
            let Value::Object(into) = entry else {
                return Err(Failure::input(format!(
                    "{at}: settings: featureGates must be a mapping"
                )));
            };
            for (k, v) in gates {
                into.insert(k.clone(), Value::Bool(*v));
            }
        }
        Ok(settings)
    }
}

/// A patch as the case gives it: a string as written, anything else as its JSON.
fn patch_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_case_s_values_win_and_gates_merge() {
        let suite = Context {
            kubernetes_version: Some("1.36".into()),
            feature_gates: Some([("A".to_owned(), true), ("B".to_owned(), true)].into()),
            user: Some("alice".into()),
            ..Context::default()
        };
        let case = Context {
            feature_gates: Some([("B".to_owned(), false)].into()),
            user: Some("bob".into()),
            ..Context::default()
        };
        let got = suite.overlaid(&case);
        assert_eq!(got.kubernetes_version.as_deref(), Some("1.36"));
        assert_eq!(got.user.as_deref(), Some("bob"));
        assert_eq!(
            got.feature_gates,
            Some([("A".to_owned(), true), ("B".to_owned(), false)].into())
        );
    }

    #[test]
    fn a_patch_keeps_its_text_and_a_mapping_becomes_json() {
        assert_eq!(patch_text(&json!("{\"a\": 1}")), "{\"a\": 1}");
        assert_eq!(patch_text(&json!({"a": 1})), "{\"a\":1}");
    }
}
