//! The flags of `check --live`, apart from the command that uses them (`check` holds them,
//! `live` reads them).

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

/// The flags of `check --live`: the Pod, kubectl's connection flags, and the server's dry run.
#[derive(Debug, Args)]
#[command(next_help_heading = "Live cluster (kubectl's flags)")]
pub(crate) struct LiveArgs {
    /// Instead of --old: the Pod as your cluster has it now, read through your kubeconfig.
    #[arg(long, value_name = "[NAMESPACE/]POD", conflicts_with = "old")]
    pub(crate) live: Option<String>,
    /// Also send the change to the cluster as a dry run (dryRun=All) and print both answers;
    /// exit 4 when they disagree.
    #[arg(long, requires = "live")]
    pub(super) server_dry_run: bool,
    /// The Pod's namespace (default: the kubeconfig context's).
    #[arg(short = 'n', long, value_name = "NAMESPACE", requires = "live")]
    pub(super) namespace: Option<String>,
    /// The kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster).
    #[arg(long, value_name = "FILE", requires = "live")]
    pub(super) kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use.
    #[arg(long, value_name = "NAME", requires = "live")]
    pub(super) context: Option<String>,
    /// The kubeconfig cluster to use.
    #[arg(long, value_name = "NAME", requires = "live")]
    pub(super) cluster: Option<String>,
    /// The kubeconfig user to use.
    #[arg(long, value_name = "NAME", requires = "live")]
    pub(super) user: Option<String>,
    /// How long one request to the cluster may take (`0`: no limit; `30s`, `1m`).
    #[arg(long, value_name = "DURATION", requires = "live", value_parser = crate::units::parse_duration)]
    pub(super) request_timeout: Option<Duration>,
}

impl LiveArgs {
    /// Whether `check` reads its old Pod from a cluster.
    pub(crate) fn is_live(&self) -> bool {
        self.live.is_some()
    }
}
