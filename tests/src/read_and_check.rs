//! `documents.read-and-check` (podmut-core's `read_and_check`) against its definition:
//! `read-documents` of each input, then `check` of the pair when each holds one object without an
//! error. On every `check` case (its Pods as JSON, alone as a create and as the update) and every
//! Pod text of the `fields` cases, at each validation level, natively and through the component:
//! the one call and the two calls give the same answer, and the component's answer is core's.

use serde_json::{Value, json};

use crate::check::{native_verdict, wasm_verdict};
use crate::{LoadedCase, component_error, json_text, native_input_error, runtime, settings_text};

/// One pair of inputs to read and judge.
struct Input {
    /// The case it comes from.
    name: String,
    old: Option<String>,
    new: String,
    sub: String,
    settings: String,
}

/// The inputs of every case that has Pods to judge.
fn inputs(cases: &[LoadedCase]) -> Vec<Input> {
    let mut out = Vec::new();
    for c in cases {
        let input = |old: Option<String>, new: String| Input {
            name: c.name.clone(),
            old,
            new,
            sub: c.case.subresource.clone(),
            settings: settings_text(&c.case),
        };
        if c.area == "fields" {
            let request = c.case.request.as_ref();
            let text = request.and_then(|r| r.get("text")).and_then(Value::as_str);
            let kind = request.and_then(|r| r.get("kind")).and_then(Value::as_str);
            if let (Some(text), None | Some("pod")) = (text, kind) {
                out.push(input(None, text.to_owned()));
                out.push(input(Some(text.to_owned()), text.to_owned()));
            }
        } else if crate::is_check_area(&c.area)
            && let Some(new) = json_text(c.case.new.as_ref())
        {
            out.push(input(None, new.clone()));
            out.push(input(json_text(c.case.old.as_ref()), new));
        }
    }
    out
}

/// One document as the comparison sees it.
fn doc(
    index: u32,
    namespace: &str,
    name: &str,
    json: &str,
    warnings: &[String],
    error: Option<&String>,
) -> Value {
    json!({"index": index, "namespace": namespace, "name": name, "json": json, "warnings": warnings, "error": error})
}

/// What was read, and the verdict's answer when the pair was judged.
struct Checked<D> {
    old: Vec<D>,
    new: Vec<D>,
    verdict: Option<Value>,
}

/// podmut-core or the component, at one validation level.
trait Backend {
    /// Its document type.
    type Doc;
    /// A document as compared.
    fn view(d: &Self::Doc) -> Value;
    /// Its JSON, and whether it cannot be judged.
    fn json(d: &Self::Doc) -> (&str, bool);
    /// `read-documents` of `text` as Pods; an error as its answer.
    fn read(&self, text: &str, input: &str) -> Result<Vec<Self::Doc>, Value>;
    /// `check` of the pair, as its answer.
    fn check(&self, i: &Input, old: Option<&str>, new: &str) -> Value;
    /// `read-and-check`: the documents and the verdict's answer; an error as its answer.
    fn read_and_check(&self, i: &Input) -> Result<Checked<Self::Doc>, Value>;
}

/// [`Backend::view`] and [`Backend::json`] of a document type with `read-documents`' fields (core's
/// `Document` and the WIT one).
macro_rules! document_fields {
    () => {
        fn view(d: &Self::Doc) -> Value {
            doc(
                d.index,
                &d.namespace,
                &d.name,
                &d.json,
                &d.warnings,
                d.error.as_ref(),
            )
        }
        fn json(d: &Self::Doc) -> (&str, bool) {
            (&d.json, d.error.is_some())
        }
    };
}

/// podmut-core.
struct Native(podmut_core::FieldValidation);

impl Backend for Native {
    type Doc = podmut_core::Document;
    document_fields!();
    fn read(&self, text: &str, input: &str) -> Result<Vec<Self::Doc>, Value> {
        let limit = podmut_core::Settings::default().max_input_bytes;
        podmut_core::read_documents(text, input, podmut_core::DocumentKind::Pod, self.0, limit)
            .map_err(|e| native_input_error(&e))
    }
    fn check(&self, i: &Input, old: Option<&str>, new: &str) -> Value {
        match i.sub.parse() {
            Ok(sub) => podmut_core::check_documents(old, new, sub, &i.settings)
                .map_or_else(|e| native_input_error(&e), |v| native_verdict(&v)),
            Err(e) => json!({ "caseError": e }),
        }
    }
    fn read_and_check(&self, i: &Input) -> Result<Checked<Self::Doc>, Value> {
        let sub = i.sub.parse().map_err(|e| json!({ "caseError": e }))?;
        let limit = podmut_core::Settings::default().max_input_bytes;
        let c = podmut_core::read_and_check(i.old.as_deref(), &i.new, self.0, sub, &i.settings, limit)
            .map_err(|e| native_input_error(&e))?;
        let verdict = c
            .verdict
            .map(|v| v.map_or_else(|e| native_input_error(&e), |v| native_verdict(&v)));
        Ok(Checked {
            old: c.old,
            new: c.new,
            verdict,
        })
    }
}

/// The component.
struct Component(podmut::types::FieldValidation);

impl Backend for Component {
    type Doc = podmut::types::Document;
    document_fields!();
    fn read(&self, text: &str, input: &str) -> Result<Vec<Self::Doc>, Value> {
        runtime()
            .read_documents(text, input, podmut::types::DocumentKind::Pod, self.0)
            .map_err(|e| component_error(&e))
    }
    fn check(&self, i: &Input, old: Option<&str>, new: &str) -> Value {
        match podmut::output::parse_subresource(&i.sub) {
            Ok(sub) => runtime()
                .check(old, new, sub, &i.settings)
                .map_or_else(|e| component_error(&e), |v| wasm_verdict(&v)),
            Err(e) => json!({ "caseError": e }),
        }
    }
    fn read_and_check(&self, i: &Input) -> Result<Checked<Self::Doc>, Value> {
        let sub = podmut::output::parse_subresource(&i.sub).map_err(|e| json!({ "caseError": e }))?;
        let c = runtime()
            .read_and_check(i.old.as_deref(), &i.new, self.0, sub, &i.settings)
            .ok_or_else(|| json!({"componentFailure": "the component does not export documents"}))?
            .map_err(|e| component_error(&e))?;
        let verdict = c.verdict.map(|v| {
            v.map_or_else(
                |e| component_error(&podmut::CallError::Input(e)),
                |v| wasm_verdict(&v),
            )
        });
        Ok(Checked {
            old: c.old,
            new: c.new,
            verdict,
        })
    }
}

/// The answer: `{"old", "new", "verdict"}` (`verdict` null when not judged, else a verdict or an
/// input error); a judged object's documents carry no JSON (the caller has the text).
fn answer<B: Backend>(checked: Checked<B::Doc>) -> Value {
    let Checked { old, new, verdict } = checked;
    let judged = verdict.is_some();
    let docs = |docs: &[B::Doc]| -> Value {
        docs.iter()
            .map(|d| {
                let mut v = B::view(d);
                if judged {
                    v["json"] = json!("");
                }
                v
            })
            .collect()
    };
    let mut out = json!({"old": docs(&old), "new": docs(&new)});
    out["verdict"] = verdict.unwrap_or(Value::Null);
    out
}

/// `read-and-check`'s answer.
fn one_call<B: Backend>(b: &B, i: &Input) -> Value {
    match b.read_and_check(i) {
        Ok(checked) => answer::<B>(checked),
        Err(e) => e,
    }
}

/// The JSON of the one object of `docs`, when there is one and it can be judged.
fn judgeable<B: Backend>(docs: &[B::Doc]) -> Option<&str> {
    match docs {
        [d] => match B::json(d) {
            (json, false) => Some(json),
            (_, true) => None,
        },
        _ => None,
    }
}

/// The answer by definition: `read-documents` of each input, then `check` of one object each
/// without an error.
fn two_calls<B: Backend>(b: &B, i: &Input) -> Value {
    let old = match i.old.as_deref().map(|t| b.read(t, "old-pod")).transpose() {
        Ok(old) => old,
        Err(e) => return e,
    };
    let new = match b.read(&i.new, "new-pod") {
        Ok(new) => new,
        Err(e) => return e,
    };
    let verdict = match (old.as_deref().map(judgeable::<B>), judgeable::<B>(&new)) {
        (None, Some(new_json)) => Some(b.check(i, None, new_json)),
        (Some(Some(old_json)), Some(new_json)) => Some(b.check(i, Some(old_json), new_json)),
        _ => None,
    };
    answer::<B>(Checked {
        old: old.unwrap_or_default(),
        new,
        verdict,
    })
}

/// Every input at every level: one call = two calls, natively and through the component, and
/// the component = core. `Err` lists the disagreements.
pub fn check(cases: &[LoadedCase]) -> Result<(), String> {
    use podmut::types::FieldValidation as W;
    use podmut_core::FieldValidation as N;
    let levels = [(N::Strict, W::Strict), (N::Warn, W::Warn), (N::Ignore, W::Ignore)];
    let inputs = inputs(cases);
    let mut problems = Vec::new();
    let mut judged = 0;
    for i in &inputs {
        for (n, w) in levels {
            let (native, component) = (Native(n), Component(w));
            let answers = [
                one_call(&native, i),
                two_calls(&native, i),
                one_call(&component, i),
                two_calls(&component, i),
            ];
            judged += usize::from(!answers[0]["verdict"].is_null());
            if answers.iter().any(|a| *a != answers[0]) {
                problems.push(format!(
                    "{} ({n}, old: {}): read-and-check native {}\n  two calls native {}\n  read-and-check component {}\n  two calls component {}",
                    i.name,
                    i.old.is_some(),
                    answers[0],
                    answers[1],
                    answers[2],
                    answers[3]
                ));
            }
        }
    }
    if inputs.len() < 500 || judged < 1000 {
        problems.push(format!(
            "too few inputs compared: {} inputs, {judged} judged",
            inputs.len()
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}
