//! A place inside a JSON document as a list of keys and indexes, rendered as the API server
//! names unknown and duplicate fields (`spec.containers[0].resource`).

/// One step of a field path.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Segment {
    /// An object key.
    Key(String),
    /// A list index.
    Index(usize),
}

/// `spec.containers[0].resource`.
pub(crate) fn render_path(path: &[Segment]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Segment::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Segment::Index(i) => {
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
        }
    }
    out
}
