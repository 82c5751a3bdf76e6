//! The known-differences file (`tests/oracle/known-differences.yaml`): the one place where podmut
//! may differ from the API server, each entry with its reason; and the open-disagreements file
//! (`tests/oracle/open-disagreements.yaml`), the same format, listing podmut's bugs the oracle has
//! found and nobody has fixed yet. Both are strict: an entry whose cases agree with the server
//! fails the suite until it is deleted, and a disagreement neither file lists fails it too.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::OracleError;

/// One entry.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// A short name.
    pub id: String,
    /// A skip reason ([`crate::plan::Skip::id`], or a generator's) this entry covers.
    #[serde(default)]
    pub skip: Option<String>,
    /// Fixture names this entry covers.
    #[serde(default)]
    pub cases: Vec<String>,
    /// Generated mutations this entry covers, on the request path `path` (`create`, `update`,
    /// `ephemeralcontainers`, `resize`, `status`): a generated case that disagrees is covered
    /// when one of its mutations is listed.
    #[serde(default)]
    pub mutations: Vec<String>,
    /// The request path of `mutations`.
    #[serde(default)]
    pub path: Option<String>,
    /// Why.
    pub reason: String,
}

/// The whole file.
#[derive(Clone, Debug, Default)]
pub struct Known {
    /// The entries, in file order.
    pub entries: Vec<Entry>,
}

/// The file, beside this crate's manifest.
pub fn known_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("known-differences.yaml")
}

/// The open-disagreements file, beside this crate's manifest.
pub fn open_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("open-disagreements.yaml")
}

impl Known {
    /// Read the file; every entry must have a reason and cover something.
    pub fn load() -> Result<Self, OracleError> {
        Self::load_from(&known_file())
    }

    /// Read the open-disagreements file.
    pub fn load_open() -> Result<Self, OracleError> {
        Self::load_from(&open_file())
    }

    fn load_from(path: &Path) -> Result<Self, OracleError> {
        let text = std::fs::read_to_string(path).map_err(|e| OracleError::io(path, e))?;
        Self::parse(&text).map_err(|e| OracleError::Pins(format!("{}: {e}", path.display())))
    }

    /// Parse the file's text.
    pub fn parse(text: &str) -> Result<Self, String> {
        let entries: Vec<Entry> = serde_yaml_ng::from_str::<Option<Vec<Entry>>>(text)
            .map_err(|e| e.to_string())?
            .unwrap_or_default();
        for e in &entries {
            if e.reason.trim().len() < 20 {
                return Err(format!("entry {}: the reason must say why, checkably", e.id));
            }
            let targets = usize::from(e.skip.is_some())
                + usize::from(!e.cases.is_empty())
                + usize::from(!e.mutations.is_empty());
            if targets != 1 {
                return Err(format!(
                    "entry {}: give exactly one of `skip`, `cases` and `mutations`",
                    e.id
                ));
            }
            if e.mutations.is_empty() != e.path.is_none() {
                return Err(format!("entry {}: `mutations` go with a `path`", e.id));
            }
        }
        Ok(Self { entries })
    }

    /// The entry covering a skip reason.
    pub fn for_skip(&self, skip: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.skip.as_deref() == Some(skip))
    }

    /// The generated mutations listed for the request path named `path`.
    pub fn mutations_on(&self, path: &str) -> Vec<String> {
        self.entries
            .iter()
            .filter(|e| e.path.as_deref() == Some(path))
            .flat_map(|e| e.mutations.iter().cloned())
            .collect()
    }

    /// The entry covering a fixture by name.
    pub fn for_case(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.cases.iter().any(|c| c == name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_need_a_reason_and_one_target() {
        assert!(Known::parse("- {id: a, skip: x, reason: 'because the server has no such path'}").is_ok());
        assert!(Known::parse("- {id: a, skip: x, reason: short}").is_err());
        assert!(Known::parse("- {id: a, reason: 'because the server has no such path'}").is_err());
        assert!(
            Known::parse("- {id: a, skip: x, cases: [b], reason: 'because the server has no such path'}")
                .is_err()
        );
    }

    #[test]
    fn mutations_need_a_path() {
        let reason = "the server words this message differently";
        assert!(
            Known::parse(&format!(
                "- {{id: a, path: create, mutations: [m], reason: '{reason}'}}"
            ))
            .is_ok()
        );
        assert!(Known::parse(&format!("- {{id: a, mutations: [m], reason: '{reason}'}}")).is_err());
        assert!(
            Known::parse(&format!(
                "- {{id: a, path: create, cases: [c], reason: '{reason}'}}"
            ))
            .is_err()
        );
        let k = Known::parse(&format!(
            "- {{id: a, path: create, mutations: [m, n], reason: '{reason}'}}"
        ));
        assert_eq!(
            k.map(|k| k.mutations_on("create")),
            Ok(vec!["m".to_owned(), "n".to_owned()])
        );
    }

    #[test]
    fn the_repository_files_parse() {
        let k = Known::load();
        assert!(k.is_ok(), "{k:?}");
        let o = Known::load_open();
        assert!(o.is_ok(), "{o:?}");
    }
}
