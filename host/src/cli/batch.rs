//! Many resources at once, the way `kubectl apply -f` takes them: several files, directories (their
//! `.yaml`, `.yml` and `.json` files, in name order; with `-R` their subdirectories too), YAML
//! streams, JSON arrays and `List` objects, each object judged on its own with a line per object
//! and a summary.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::inputs::yaml_values;
use super::{Failure, read_input};

/// One object of the inputs.
#[derive(Clone, Debug)]
pub(crate) struct Object {
    /// The file it came from (as given, or found in a directory).
    pub(crate) file: String,
    /// Its position in that file (from 1).
    pub(crate) index: usize,
    /// `kind namespace/name` (or `kind name`, `kind #index`), what report lines start with.
    pub(crate) name: String,
    /// The object as JSON text.
    pub(crate) json: String,
    kind: String,
    namespace: String,
    object_name: String,
}

impl Object {
    fn new(file: &str, index: usize, value: &Value) -> Self {
        let at = |p: &str| {
            value
                .pointer(p)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let (kind, namespace, object_name) = (at("/kind"), at("/metadata/namespace"), at("/metadata/name"));
        let who = match (namespace.as_str(), object_name.as_str()) {
            (_, "") => format!("#{index} in {file}"),
            ("", n) => n.to_owned(),
            (ns, n) => format!("{ns}/{n}"),
        };
        let kind_word = if kind.is_empty() { "object" } else { kind.as_str() };
        Object {
            file: file.to_owned(),
            index,
            name: format!("{kind_word} {who}"),
            json: value.to_string(),
            kind,
            namespace,
            object_name,
        }
    }

    /// Add what names the object to its JSON item (`kind`, `namespace`, `name`, `file`, `index`).
    pub(crate) fn describe(&self, item: &mut Map<String, Value>) {
        item.insert("kind".into(), json!(self.kind));
        item.insert("namespace".into(), json!(self.namespace));
        item.insert("name".into(), json!(self.object_name));
        item.insert("file".into(), json!(self.file));
        item.insert("index".into(), json!(self.index));
    }
}

/// What one file holds: one object or several.
#[derive(Debug)]
pub(crate) enum Contents {
    /// Exactly one object: the file's text, or the item's JSON when the file is a `List` of one
    /// (kubectl reads such a List as its item).
    One(String),
    /// Several objects (or a `List` of several).
    Many(Vec<Object>),
}

/// The objects of one file whose text is `text`.
pub(crate) fn contents(path: &Path, text: &str) -> Result<Contents, Failure> {
    let file = path.display().to_string();
    let values = yaml_values(text, &file)?;
    match values.as_slice() {
        [] => Err(Failure::input(format!("{file}: no object in it"))),
        [one] if is_list(text, &file) => Ok(Contents::One(one.to_string())),
        [_] => Ok(Contents::One(text.to_owned())),
        _ => Ok(Contents::Many(of_values(&file, &values))),
    }
}

/// Whether the text is one `List` object (`kind: List`, `PodList`, ...), not the item itself.
fn is_list(text: &str, file: &str) -> bool {
    super::inputs::yaml_value(text, file)
        .ok()
        .and_then(|v| v.get("kind").and_then(Value::as_str).map(|k| k.ends_with("List")))
        .unwrap_or(false)
}

fn of_values(file: &str, values: &[Value]) -> Vec<Object> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| Object::new(file, i + 1, v))
        .collect()
}

/// The files `paths` name: files as given (`-` for stdin), directories as their manifest files.
pub(crate) fn files(paths: &[PathBuf], recursive: bool) -> Result<Vec<PathBuf>, Failure> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let before = files.len();
            walk(p, recursive, &mut files)?;
            if files.len() == before {
                return Err(Failure::input(format!(
                    "{}: no .yaml, .yml or .json file in the directory",
                    p.display()
                )));
            }
        } else {
            files.push(p.clone());
        }
    }
    Ok(files)
}

/// Every object of `paths` (files, `-` for stdin, directories), in order.
pub(crate) fn objects(paths: &[PathBuf], recursive: bool) -> Result<Vec<Object>, Failure> {
    let mut out = Vec::new();
    for f in files(paths, recursive)? {
        let text = read_input(&f, "--new")?;
        let file = f.display().to_string();
        out.extend(of_values(&file, &yaml_values(&text, &file)?));
    }
    if out.is_empty() {
        return Err(Failure::input("--new: no object in the files given"));
    }
    Ok(out)
}

/// The manifest files of a directory, in name order (subdirectories after the files, with `-R`).
fn walk(dir: &Path, recursive: bool, out: &mut Vec<PathBuf>) -> Result<(), Failure> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Failure::input(format!("{}: cannot read the directory: {e}", dir.display())))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    let manifest = |p: &Path| {
        p.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
    };
    let (dirs, files): (Vec<PathBuf>, Vec<PathBuf>) = paths.into_iter().partition(|p| p.is_dir());
    out.extend(files.into_iter().filter(|p| manifest(p)));
    if recursive {
        for d in dirs {
            walk(&d, true, out)?;
        }
    }
    Ok(())
}

/// How many objects were allowed, denied and could not be judged.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Tally {
    allowed: usize,
    denied: usize,
    errors: usize,
}

impl Tally {
    /// One object judged.
    pub(crate) fn judged(&mut self, allowed: bool) {
        if allowed {
            self.allowed += 1;
        } else {
            self.denied += 1;
        }
    }

    /// One object that could not be judged.
    pub(crate) fn failed(&mut self) {
        self.errors += 1;
    }

    /// `3 resources: 2 allowed, 1 denied, 0 errors`.
    pub(crate) fn line(&self) -> String {
        let total = self.allowed + self.denied + self.errors;
        format!(
            "{total} resources: {} allowed, {} denied, {} errors",
            self.allowed, self.denied, self.errors
        )
    }

    /// `{"resources", "allowed", "denied", "errors"}`.
    pub(crate) fn json(&self) -> Value {
        json!({
            "resources": self.allowed + self.denied + self.errors,
            "allowed": self.allowed,
            "denied": self.denied,
            "errors": self.errors,
        })
    }

    /// 1 when one was denied, else 2 when one could not be judged, else 0.
    pub(crate) fn exit_code(&self) -> u8 {
        if self.denied > 0 {
            1
        } else if self.errors > 0 {
            2
        } else {
            0
        }
    }
}
