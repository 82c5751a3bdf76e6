//! One document's node tree, as goyaml.v2's parser builds it: scalars keep their text, style and
//! tag; an alias points at the node its anchor names, which may be used many times (the tree is a
//! graph; [`super::convert`] expands it under goyaml.v2's aliasing limit).

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Span};

use super::{ErrorKind, LocalError, MAX_DEPTH};

/// A node of the document.
#[derive(Debug)]
pub(super) enum Kind {
    /// A scalar: its text, whether it was written plain (unquoted, not a block), its tag.
    Scalar {
        text: String,
        plain: bool,
        tag: Option<String>,
    },
    /// A list: its items' node numbers.
    Seq(Vec<usize>),
    /// A map: key and value node numbers, alternating.
    Map(Vec<usize>),
    /// An alias: the node its anchor names.
    Alias(usize),
}

/// A node and where it starts (line 1-based, column 0-based, in the document's text).
#[derive(Debug)]
pub(super) struct Node {
    pub(super) kind: Kind,
    pub(super) line: usize,
    pub(super) col: usize,
}

/// A document's nodes; the root is node 0 (none: the document is empty).
#[derive(Debug, Default)]
pub(super) struct Nodes {
    pub(super) nodes: Vec<Node>,
}

impl Nodes {
    /// The node numbered `id` (every number in the tree names a node).
    pub(super) fn get(&self, id: usize) -> Option<&Node> {
        self.nodes.get(id)
    }

    /// Add a node under `parent` (the innermost open list or map), returning its number.
    fn add(&mut self, node: Node, parent: Option<usize>) -> usize {
        let id = self.nodes.len();
        self.nodes.push(node);
        if let Some(Node {
            kind: Kind::Seq(children) | Kind::Map(children),
            ..
        }) = parent.and_then(|p| self.nodes.get_mut(p))
        {
            children.push(id);
        }
        id
    }
}

fn error_at(span: &Span, kind: ErrorKind) -> LocalError {
    LocalError {
        line: span.start.line(),
        col: span.start.col(),
        field: String::new(),
        kind,
    }
}

/// The long form of a tag (`!!int` is `tag:yaml.org,2002:int`), as goyaml.v2 compares them.
fn long_tag(handle: &str, suffix: &str) -> String {
    format!("{handle}{suffix}")
}

/// Parse the first document of `text` (the splitter gives one per text; goyaml.v2's `Unmarshal`
/// reads only the first).
pub(super) fn parse(text: &str) -> Result<Nodes, LocalError> {
    let mut nodes = Nodes::default();
    let mut open: Vec<usize> = Vec::new();
    let mut anchors: HashMap<usize, usize> = HashMap::new();
    for event in Parser::new_from_str(text) {
        let (event, span) = event.map_err(|e| LocalError {
            line: e.marker().line(),
            col: e.marker().col(),
            field: String::new(),
            // The parser's own nesting limit.
            kind: if e.info().contains("recursion limit") {
                ErrorKind::TooDeep
            } else {
                ErrorKind::Syntax(e.info().to_owned())
            },
        })?;
        let parent = open.last().copied();
        let (kind, anchor) = match event {
            Event::DocumentEnd | Event::StreamEnd => break,
            Event::SequenceEnd | Event::MappingEnd => {
                open.pop();
                continue;
            }
            Event::Scalar(text, style, anchor, tag) => (
                Kind::Scalar {
                    text: text.into_owned(),
                    plain: style == ScalarStyle::Plain,
                    tag: tag.map(|t| long_tag(&t.handle, &t.suffix)),
                },
                anchor,
            ),
            Event::Alias(anchor) => {
                let target = anchors
                    .get(&anchor)
                    .copied()
                    .ok_or_else(|| error_at(&span, ErrorKind::Syntax("unknown anchor referenced".into())))?;
                (Kind::Alias(target), 0)
            }
            Event::SequenceStart(anchor, _) => (Kind::Seq(Vec::new()), anchor),
            Event::MappingStart(anchor, _) => (Kind::Map(Vec::new()), anchor),
            Event::Nothing | Event::StreamStart | Event::DocumentStart(_) => continue,
        };
        let is_collection = matches!(kind, Kind::Seq(_) | Kind::Map(_));
        let node = Node {
            kind,
            line: span.start.line(),
            col: span.start.col(),
        };
        let id = nodes.add(node, parent);
        // goyaml.v2 names the node when it starts: an alias inside it refers to it.
        if anchor != 0 {
            anchors.insert(anchor, id);
        }
        if is_collection {
            if open.len() >= MAX_DEPTH {
                return Err(error_at(&span, ErrorKind::TooDeep));
            }
            open.push(id);
        }
    }
    Ok(nodes)
}
