//! Reading the files a command is given through the component's `inputs.read-documents`: several
//! Pods per file, field validation (`--validate`), errors and warnings that name the file.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::{Failure, read_input};
use crate::runtime::Runtime;
use crate::types::{Document, DocumentKind, FieldValidation};

/// `--validate`, like kubectl's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum Validate {
    /// Unknown or duplicate fields are an error (exit 2), in the API server's words.
    #[default]
    Strict,
    /// Unknown or duplicate fields are reported as warnings.
    Warn,
    /// Unknown and duplicate fields are dropped silently.
    Ignore,
    /// kubectl's spelling of strict.
    #[value(name = "true", hide = true)]
    True,
    /// kubectl's spelling of ignore.
    #[value(name = "false", hide = true)]
    False,
}

/// The `--validate` flag every command that reads Pods, Nodes or AdmissionReviews takes.
#[derive(Clone, Copy, Debug, Args)]
pub(crate) struct ValidateArgs {
    /// Unknown and duplicate fields: strict (an error, like kubectl's default), warn, or ignore.
    #[arg(long, value_enum, default_value_t, value_name = "MODE")]
    pub(crate) validate: Validate,
}

impl ValidateArgs {
    /// The component's level.
    pub(crate) fn level(self) -> FieldValidation {
        match self.validate {
            Validate::Strict | Validate::True => FieldValidation::Strict,
            Validate::Warn => FieldValidation::Warn,
            Validate::Ignore | Validate::False => FieldValidation::Ignore,
        }
    }
}

/// One file's objects, read and validated.
#[derive(Debug)]
pub(crate) struct ReadFile {
    /// The file as the user named it (`-` for stdin).
    pub(crate) file: String,
    /// Its objects.
    pub(crate) docs: Vec<Document>,
}

/// Read `path` (`flag` names it when it cannot be read) as `kind` through the component; `input`
/// is the component's name for the argument (`new-pod`, `node`, ...).
pub(crate) fn read_file(
    runtime: &Runtime,
    path: &Path,
    flag: &str,
    input: &str,
    kind: DocumentKind,
    validate: ValidateArgs,
) -> Result<ReadFile, Failure> {
    let text = read_input(path, flag)?;
    read_text(runtime, &text, &display(path, flag), input, kind, validate)
}

/// [`read_file`] on text already read; `file` names it in messages.
pub(crate) fn read_text(
    runtime: &Runtime,
    text: &str,
    file: &str,
    input: &str,
    kind: DocumentKind,
    validate: ValidateArgs,
) -> Result<ReadFile, Failure> {
    let docs = runtime
        .read_documents(text, input, kind, validate.level())
        .map_err(|e| Failure::from_call(e, &[(input, file)]))?;
    Ok(ReadFile {
        file: file.to_owned(),
        docs,
    })
}

/// How a file is named in messages: its path, or the flag for stdin.
pub(crate) fn display(path: &Path, flag: &str) -> String {
    if path == Path::new("-") {
        format!("{flag} (stdin)")
    } else {
        path.display().to_string()
    }
}

impl ReadFile {
    /// The one object of a file that must hold one: its problem is the command's error, its
    /// warnings are returned as `<file>: <warning>`.
    pub(crate) fn single(mut self) -> Result<(Document, Vec<String>), Failure> {
        if self.docs.len() != 1 {
            return Err(Failure::input(format!(
                "{}: expected one object, found {}",
                self.file,
                self.docs.len()
            )));
        }
        let doc = self.docs.remove(0);
        if let Some(e) = &doc.error {
            return Err(Failure::input(format!("{}: {e}", self.file)));
        }
        let warnings = self.warnings_of(&doc);
        Ok((doc, warnings))
    }

    /// A document's warnings, each naming the file (and the object when the file holds several).
    pub(crate) fn warnings_of(&self, doc: &Document) -> Vec<String> {
        let whose = if self.docs.len() > 1 {
            format!("{} ({})", self.file, object_name(doc))
        } else {
            self.file.clone()
        };
        doc.warnings.iter().map(|w| format!("{whose}: {w}")).collect()
    }
}

/// `namespace/name`, `name`, or `#index` for an unnamed object.
pub(crate) fn object_name(doc: &Document) -> String {
    match (doc.namespace.is_empty(), doc.name.is_empty()) {
        (_, true) => format!("#{}", doc.index),
        (true, false) => doc.name.clone(),
        (false, false) => format!("{}/{}", doc.namespace, doc.name),
    }
}

/// Print warnings on stderr, the way kubectl prints the API server's (`Warning: ...`).
pub(crate) fn print_warnings(warnings: &[String]) {
    for w in warnings {
        eprintln!("Warning: {w}");
    }
}

/// Read an optional single-object file of `kind`, returning its JSON and warnings.
pub(crate) fn read_optional(
    runtime: &Runtime,
    path: Option<&PathBuf>,
    flag: &str,
    input: &str,
    kind: DocumentKind,
    validate: ValidateArgs,
    warnings: &mut Vec<String>,
) -> Result<Option<String>, Failure> {
    let Some(path) = path else {
        return Ok(None);
    };
    let (doc, w) = read_file(runtime, path, flag, input, kind, validate)?.single()?;
    warnings.extend(w);
    Ok(Some(doc.json))
}

/// One JSON or YAML document (`name` in errors) read as kubectl reads it, the way the component
/// reads its inputs (YAML 1.1: `yes` is true, `0644` is octal); empty text is null.
pub(crate) fn yaml_value(text: &str, name: &str) -> Result<serde_json::Value, Failure> {
    podmut_model::document::parse_text(text, name, u64::MAX)
        .map_err(|e| Failure::input(format!("{name}: {}", e.message())))
}

/// The objects of a JSON or YAML stream (several documents, a JSON array or a `List`), read as
/// [`yaml_value`] reads one.
pub(crate) fn yaml_values(text: &str, name: &str) -> Result<Vec<serde_json::Value>, Failure> {
    podmut_model::document::parse_stream(text, name, u64::MAX)
        .map_err(|e| Failure::input(format!("{name}: {}", e.message())))
}
