//! Kubernetes as the judge of podmut.
//!
//! This crate starts real control planes — an etcd and a kube-apiserver of each release pinned in
//! `tests/oracle/releases.txt`, built from the Go module proxy by `cargo xtask oracle build` — and
//! compares podmut's answers, computed through the podmut component, with the API server's
//! answers to the same bytes:
//!
//! - [`releases`]: the pinned versions and the cached binaries;
//! - [`control_plane`]: one etcd + kube-apiserver on loopback, started as envtest starts them;
//! - [`api`]: the oracle's requests (kube-rs) and the server's answers;
//! - [`process`]: child processes that never outlive the test process;
//! - [`plan`]: which server judges a fixture, with which podmut settings;
//! - [`exchange`]: the old Pod created for real, the change sent as a dry run;
//! - [`answer`], [`godiff`]: both answers in one shape, and how they are compared;
//! - [`fixtures`]: the conformance fixtures replayed; [`known`]: the allowed differences;
//! - [`generate`], [`batch`]: generated changes, sent in bulk;
//! - [`pool`]: the control planes a run shares;
//! - [`policies`]: admission policies created in a control plane, and waited for;
//! - [`webhook`]: `podmut serve` behind a real API server, driven with kubectl;
//! - [`prerequisite`]: a case that cannot run here is ignored with the reason, or fails when required.

pub mod answer;
pub mod api;
pub mod batch;
pub mod certs;
pub mod control_plane;
pub mod exchange;
pub mod fixtures;
pub mod generate;
pub mod godiff;
pub mod known;
pub mod plan;
pub mod policies;
pub mod pool;
pub mod prerequisite;
pub mod process;
pub mod releases;
pub mod webhook;

use std::path::{Path, PathBuf};

pub use api::{Api, PodPath, Reply};
pub use control_plane::{Config, ControlPlane};
pub use releases::{Pins, Release};

/// What can go wrong running the oracle (as opposed to a disagreement, which is a result).
#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    /// The pin file is not in its format.
    #[error("tests/oracle/releases.txt: {0}")]
    Pins(String),
    /// A control plane binary has not been built.
    #[error("{} is not built: run `cargo xtask oracle build`", .0.display())]
    NotBuilt(PathBuf),
    /// A control plane did not start.
    #[error("cannot start the control plane: {0}")]
    Start(String),
    /// The client could not be set up or a request could not be sent.
    #[error("kubernetes client: {0}")]
    Client(String),
    /// The server refused a request the oracle needed to succeed (setting up a case).
    #[error("the API server refused: {0}")]
    Server(String),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// The tokio runtime a suite's cases share (two workers, every driver on), started on first use.
#[expect(
    clippy::panic,
    reason = "test harness: a runtime that cannot start fails the whole suite"
)]
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: std::sync::OnceLock<tokio::runtime::Runtime> = std::sync::OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap_or_else(|e| panic!("cannot start tokio: {e}"))
    })
}

impl OracleError {
    fn io(path: &Path, source: std::io::Error) -> Self {
        Self::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
