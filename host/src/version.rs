//! What this build of podmut is: its version, the commit it was built from, the digest of the
//! component it embeds, the wasmtime that runs it and the Kubernetes generation its rules follow.
//! One place for these facts: `podmut version`, `podmut --version`, the webhook's start-up log and
//! its build-info metric all read them from here. `build.rs` computes the commit, the digest and the
//! wasmtime version at build time.

use serde::Serialize;

/// The podmut release (the workspace version).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The git commit built (`git rev-parse HEAD` at build time; `$PODMUT_GIT_COMMIT` overrides it;
/// `unknown` outside a git checkout).
pub const GIT_COMMIT: &str = env!("PODMUT_GIT_COMMIT");

/// SHA-256 (hex) of the embedded component: the bytes `podmut component` writes.
pub const COMPONENT_SHA256: &str = env!("PODMUT_COMPONENT_SHA256");

/// Lower-case hex SHA-256 of a component's bytes: how podmut names a component
/// ([`COMPONENT_SHA256`] is the embedded one's, computed the same way by `build.rs`).
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    use std::fmt::Write as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .fold(String::with_capacity(64), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// The wasmtime release linked into this binary (from Cargo.lock).
pub const WASMTIME: &str = env!("PODMUT_WASMTIME_VERSION");

/// The default Kubernetes release, as a literal so [`ONE_LINE`] can be built with `concat!`.
macro_rules! kubernetes {
    () => {
        "1.37"
    };
}

/// The Kubernetes release the component judges as when no `kubernetesVersion` is given: the
/// newest it supports (`podmut_core::KubernetesVersion::NEWEST`; a test holds them equal).
pub const KUBERNETES: &str = kubernetes!();

/// Every release `--kubernetes-version` and `kubernetesVersion` accept, oldest first
/// (`podmut_core::KubernetesVersion::SUPPORTED`), besides `preview`.
pub const KUBERNETES_SUPPORTED: &[&str] = &["1.35", "1.36", "1.37"];

/// `podmut --version`: every fact on one line.
pub const ONE_LINE: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("PODMUT_GIT_COMMIT"),
    ", component sha256:",
    env!("PODMUT_COMPONENT_SHA256"),
    ", wasmtime ",
    env!("PODMUT_WASMTIME_VERSION"),
    ", kubernetes ",
    kubernetes!(),
    ")"
);

/// The facts as one record (`podmut version -o json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildInfo {
    /// [`VERSION`].
    pub version: &'static str,
    /// [`GIT_COMMIT`].
    pub git_commit: &'static str,
    /// [`COMPONENT_SHA256`].
    pub component_sha256: &'static str,
    /// [`WASMTIME`].
    pub wasmtime: &'static str,
    /// [`KUBERNETES`].
    pub kubernetes: &'static str,
    /// [`KUBERNETES_SUPPORTED`].
    pub kubernetes_supported: &'static [&'static str],
}

/// This build's facts.
pub const BUILD: BuildInfo = BuildInfo {
    version: VERSION,
    git_commit: GIT_COMMIT,
    component_sha256: COMPONENT_SHA256,
    wasmtime: WASMTIME,
    kubernetes: KUBERNETES,
    kubernetes_supported: KUBERNETES_SUPPORTED,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_states_every_fact() {
        for fact in [VERSION, GIT_COMMIT, COMPONENT_SHA256, WASMTIME, KUBERNETES] {
            assert!(ONE_LINE.contains(fact), "{ONE_LINE} lacks {fact}");
        }
    }

    #[test]
    fn the_releases_are_the_components() {
        let supported: Vec<String> = podmut_core::KubernetesVersion::SUPPORTED
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(KUBERNETES_SUPPORTED, supported);
        assert_eq!(KUBERNETES, podmut_core::KubernetesVersion::NEWEST.to_string());
    }

    #[test]
    fn sha256_is_lower_case_hex() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
