//! The pinned control-plane versions (`tests/oracle/releases.txt`) and where their binaries live.
//!
//! The file is the one place a release is named: `cargo xtask oracle build` reads it to build the
//! binaries, the oracle reads it to find them, and podmut's own tests read it to require a profile
//! per release.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::OracleError;

/// The pin file, beside this crate's manifest.
pub fn releases_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("releases.txt")
}

/// A Kubernetes release the oracle runs, e.g. `v1.37.2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Release {
    /// The minor version (37 in v1.37.2).
    pub minor: u8,
    /// The patch version (2 in v1.37.2).
    pub patch: u8,
}

impl Release {
    /// `1.37`: how podmut's `kubernetesVersion` names the release.
    pub fn minor_name(self) -> String {
        format!("1.{}", self.minor)
    }

    /// Parse `v1.37.2` (the `v` is optional).
    pub fn parse(text: &str) -> Result<Self, OracleError> {
        let bad = || OracleError::Pins(format!("{text:?} is not a Kubernetes release like v1.37.2"));
        let rest = text.strip_prefix('v').unwrap_or(text);
        let mut parts = rest.split('.');
        let (Some("1"), Some(minor), Some(patch), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        Ok(Self {
            minor: minor.parse().map_err(|_| bad())?,
            patch: patch.parse().map_err(|_| bad())?,
        })
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v1.{}.{}", self.minor, self.patch)
    }
}

/// The pin file's contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pins {
    /// The Kubernetes releases, oldest first.
    pub kubernetes: Vec<Release>,
    /// The etcd version (`v3.6.17`).
    pub etcd: String,
    /// The Helm CLI version the chart's tests run (`v4.3.2`), if pinned.
    pub helm: Option<String>,
}

impl Pins {
    /// Read `tests/oracle/releases.txt`.
    pub fn load() -> Result<Self, OracleError> {
        let path = releases_file();
        let text = std::fs::read_to_string(&path).map_err(|e| OracleError::io(&path, e))?;
        Self::parse(&text)
    }

    /// Parse the pin file's text.
    pub fn parse(text: &str) -> Result<Self, OracleError> {
        let mut kubernetes = Vec::new();
        let mut etcd = None;
        let mut helm = None;
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match line.split_whitespace().collect::<Vec<_>>().as_slice() {
                ["kubernetes", v] => kubernetes.push(Release::parse(v)?),
                ["etcd", v] if v.starts_with("v3.") => etcd = Some((*v).to_owned()),
                ["helm", v] if v.starts_with("v4.") => helm = Some((*v).to_owned()),
                _ => return Err(OracleError::Pins(format!("unknown line {line:?}"))),
            }
        }
        kubernetes.sort();
        let etcd = etcd.ok_or_else(|| OracleError::Pins("no etcd line".into()))?;
        if kubernetes.is_empty() {
            return Err(OracleError::Pins("no kubernetes line".into()));
        }
        Ok(Self {
            kubernetes,
            etcd,
            helm,
        })
    }

    /// The pinned release of a minor version (`1.37`), if any.
    pub fn release(&self, minor: u8) -> Option<Release> {
        self.kubernetes.iter().copied().find(|r| r.minor == minor)
    }

    /// The newest pinned release.
    pub fn newest(&self) -> Release {
        self.kubernetes
            .iter()
            .copied()
            .max()
            .unwrap_or(Release { minor: 0, patch: 0 })
    }
}

/// Where the built binaries are cached: `$PODMUT_ORACLE_DIR`, else `$HOME/.cache/podmut/oracle`.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("PODMUT_ORACLE_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
    home.join(".cache/podmut/oracle")
}

/// The cached kube-apiserver of a release.
pub fn apiserver_binary(release: Release) -> PathBuf {
    cache_dir().join("bin").join(format!("kube-apiserver-{release}"))
}

/// The cached Helm CLI of a version (`helm-v4.3.2`).
pub fn helm_binary(version: &str) -> PathBuf {
    cache_dir().join("bin").join(format!("helm-{version}"))
}

/// The cached etcd of a version.
pub fn etcd_binary(version: &str) -> PathBuf {
    cache_dir().join("bin").join(format!("etcd-{version}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Adding a release starts by pinning it; until podmut has its profile this fails (and the
    /// oracle would skip it), and a profile whose release is not pinned has no server to judge it.
    #[test]
    fn every_pinned_release_has_a_profile_and_every_profile_is_pinned() {
        let pins = Pins::load().unwrap_or_else(|e| panic!("{e}"));
        let pinned: Vec<u8> = pins.kubernetes.iter().map(|r| r.minor).collect();
        let supported: Vec<u8> = podmut_core::KubernetesVersion::SUPPORTED
            .iter()
            .map(|v| v.minor())
            .collect();
        for minor in &pinned {
            assert!(
                supported.contains(minor),
                "tests/oracle/releases.txt pins 1.{minor}, which podmut has no profile for: add it to \
                 KubernetesVersion::SUPPORTED (crates/model/src/settings/versions.rs; docs/kubernetes-versions.md, \
                 \"Adding a release\")"
            );
        }
        for minor in &supported {
            assert!(
                pinned.contains(minor),
                "podmut supports 1.{minor}, which tests/oracle/releases.txt does not pin: no server judges it"
            );
        }
    }

    #[test]
    fn the_pin_file_parses() {
        let pins = Pins::parse("# c\nkubernetes v1.37.2\nkubernetes v1.35.4\netcd v3.6.17\n").ok();
        let pins = pins.as_ref();
        assert_eq!(pins.map(|p| p.kubernetes.len()), Some(2));
        assert_eq!(pins.map(|p| p.newest().to_string()).as_deref(), Some("v1.37.2"));
        assert_eq!(pins.and_then(|p| p.release(35)).map(|r| r.patch), Some(4));
        assert!(Pins::parse("kubernetes 1.x\netcd v3.6.0").is_err());
        assert!(Pins::parse("kubernetes v1.37.2\n").is_err());
        assert!(Pins::parse("helm v4\n").is_err());
        let with_helm = Pins::parse("kubernetes v1.37.2\netcd v3.6.17\nhelm v4.3.2\n").ok();
        assert_eq!(with_helm.and_then(|p| p.helm).as_deref(), Some("v4.3.2"));
        assert!(Pins::parse("kubernetes v1.37.2\netcd v3.6.17\nhelm 3.1\n").is_err());
    }

    #[test]
    fn the_repository_pins_parse() {
        let pins = Pins::load();
        assert!(pins.is_ok(), "{pins:?}");
    }
}
