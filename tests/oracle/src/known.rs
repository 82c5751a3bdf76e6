//! The known-differences file (`tests/oracle/known-differences.yaml`): the one place where podmut
//! may differ from the API server, each entry with its reason.

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

impl Known {
    /// Read the file; every entry must have a reason and cover something.
    pub fn load() -> Result<Self, OracleError> {
        let path = known_file();
        let text = std::fs::read_to_string(&path).map_err(|e| OracleError::io(&path, e))?;
        Self::parse(&text).map_err(|e| OracleError::Pins(format!("{}: {e}", path.display())))
    }

    /// Parse the file's text.
    pub fn parse(text: &str) -> Result<Self, String> {
        let entries: Vec<Entry> = serde_yaml_ng::from_str(text).map_err(|e| e.to_string())?;
        for e in &entries {
            if e.reason.trim().len() < 20 {
                return Err(format!("entry {}: the reason must say why, checkably", e.id));
            }
            if e.skip.is_none() == e.cases.is_empty() {
                return Err(format!("entry {}: give exactly one of `skip` and `cases`", e.id));
            }
        }
        Ok(Self { entries })
    }

    /// The entry covering a skip reason.
    pub fn for_skip(&self, skip: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.skip.as_deref() == Some(skip))
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
    fn the_repository_file_parses() {
        let k = Known::load();
        assert!(k.is_ok(), "{k:?}");
    }
}
