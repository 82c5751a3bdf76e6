//! The flags of `check --live`, apart from the command that uses them (`check` holds them,
//! `live` reads them).

use clap::Args;

use super::connection_args::ConnectionArgs;

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
    /// kubectl's connection flags.
    #[command(flatten)]
    pub(super) connection: ConnectionArgs,
}

impl LiveArgs {
    /// Whether `check` reads its old Pod from a cluster.
    pub(crate) fn is_live(&self) -> bool {
        self.live.is_some()
    }
}
