//! Reading YAML exactly as kubectl reads it, into JSON values.
//!
//! kubectl (cli-runtime's `StreamVisitor`) splits a stream into documents with apimachinery's
//! `YAMLReader` (a line starting with `---` ends a document), reads each document with
//! `sigs.k8s.io/yaml` over goyaml.v2 — YAML 1.1 resolution of plain scalars: `0644` is octal,
//! `yes`/`on`/`y` are `true`, `~` is null, anchors, aliases and `<<` merge keys — and sends the
//! result as the JSON `encoding/json` writes. This module does the same steps in the same order:
//! [`split`] the stream, parse each document into a node tree ([`tree`], with `saphyr-parser`,
//! which keeps each scalar's style and tag), resolve plain scalars as goyaml.v2 does
//! ([`resolve`], by hand: no Rust library implements goyaml.v2's rules) and build the JSON value
//! ([`convert`]: keys as `sigs.k8s.io/yaml` turns them into strings, numbers as Go writes them).
//!
//! Every error names its line and column in the whole text, and the field path where known.

mod convert;
mod emit;
mod resolve;
mod split;
mod tree;

use serde_json::Value;

pub use emit::to_yaml;

use crate::field::Path;

/// The deepest nesting of lists and maps a document may have (as the JSON reader allows).
pub const MAX_DEPTH: usize = 128;

/// One document of a YAML stream, as kubectl would send it.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    /// The document's position in the stream (1 for the first).
    pub index: usize,
    /// The JSON value (the last of repeated keys wins, as in kubectl).
    pub value: Value,
    /// Every key written twice in one map, in document order (a key a merge `<<` brought in and
    /// the map then sets again is not one).
    pub duplicates: Vec<Path>,
}

/// What went wrong reading a YAML stream.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    /// The text is not YAML (the parser's message).
    #[error("{0}")]
    Syntax(String),
    /// A value kubectl cannot turn into JSON (a bad tag, key or number), or a bad merge.
    #[error("{0}")]
    Value(String),
    /// Lists and maps nest deeper than [`MAX_DEPTH`].
    #[error("document nests more than {MAX_DEPTH} lists and maps deep")]
    TooDeep,
    /// Aliases expand to far more than the document holds (a "billion laughs" document).
    #[error("document contains excessive aliasing")]
    Aliasing,
}

/// An error in a YAML stream, with its place.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct Error {
    /// The document (1 for the first); see [`Error::documents`].
    pub document: usize,
    /// How many documents the stream was split into.
    pub documents: usize,
    /// The line in the whole text (1 for the first).
    pub line: usize,
    /// The column (1 for the first character).
    pub column: usize,
    /// The field the error is about, when it is about one (`spec.containers[0]`), else empty.
    pub field: String,
    /// What went wrong.
    pub kind: ErrorKind,
}

impl Error {
    /// `line 3 column 7: spec.x: <what>`.
    fn describe(&self) -> String {
        let at = format!("line {} column {}", self.line, self.column);
        if self.field.is_empty() {
            format!("{at}: {}", self.kind)
        } else {
            format!("{at}: {}: {}", self.field, self.kind)
        }
    }
}

/// A place inside one document, before it is placed in the stream.
#[derive(Debug)]
pub(crate) struct LocalError {
    /// Line (1-based) in the document's text.
    line: usize,
    /// Column (0-based).
    col: usize,
    /// The field path, rendered.
    field: String,
    kind: ErrorKind,
}

/// Read a YAML stream into its documents, as kubectl reads `kubectl create -f`: documents that
/// hold nothing (only comments, `null`, or nothing between two `---`) are left out, as kubectl
/// skips them. A leading byte-order mark is ignored.
pub fn read_stream(text: &str) -> Result<Vec<Document>, Error> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let chunks = split::split(text).map_err(|(line, message)| Error {
        document: 1,
        documents: 1,
        line,
        column: 1,
        field: String::new(),
        kind: ErrorKind::Syntax(message),
    })?;
    let documents = chunks.len();
    let mut out = Vec::new();
    for (i, chunk) in chunks.iter().enumerate() {
        let place = |e: LocalError| Error {
            document: i + 1,
            documents,
            line: chunk.first_line + e.line,
            column: e.col + 1,
            field: e.field,
            kind: e.kind,
        };
        let nodes = tree::parse(&chunk.text).map_err(place)?;
        let (value, duplicates) = convert::to_json(&nodes).map_err(place)?;
        if !value.is_null() {
            out.push(Document {
                index: i + 1,
                value,
                duplicates,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
