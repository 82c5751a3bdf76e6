//! kubectl's connection flags, shared by the commands that talk to a cluster (`check --live`,
//! `test --server-dry-run`).

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::Failure;
use crate::cluster::Connection;

/// `--kubeconfig`, `--context`, `--cluster`, `--user` and `--request-timeout`, as kubectl reads them.
#[derive(Debug, Default, Args)]
pub(crate) struct ConnectionArgs {
    /// The kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster).
    #[arg(long, value_name = "FILE")]
    kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use.
    #[arg(long, value_name = "NAME")]
    context: Option<String>,
    /// The kubeconfig cluster to use.
    #[arg(long, value_name = "NAME")]
    cluster: Option<String>,
    /// The kubeconfig user to use.
    #[arg(long, value_name = "NAME")]
    user: Option<String>,
    /// How long one request to the cluster may take (`0`: no limit; `30s`, `1m`).
    #[arg(long, value_name = "DURATION", value_parser = crate::units::parse_duration)]
    request_timeout: Option<Duration>,
}

impl ConnectionArgs {
    /// The connection these flags describe.
    pub(crate) fn connection(&self) -> Connection {
        Connection {
            kubeconfig: self.kubeconfig.clone(),
            context: self.context.clone(),
            cluster: self.cluster.clone(),
            user: self.user.clone(),
            timeout: self.request_timeout.filter(|t| !t.is_zero()),
        }
    }

    /// Refuse these flags when the command will not connect (`used` false): `needs` names the
    /// flag that makes it connect. A flag that would do nothing is a mistake worth saying.
    pub(crate) fn only_with(&self, used: bool, needs: &str) -> Result<(), Failure> {
        let given = [
            ("--kubeconfig", self.kubeconfig.is_some()),
            ("--context", self.context.is_some()),
            ("--cluster", self.cluster.is_some()),
            ("--user", self.user.is_some()),
            ("--request-timeout", self.request_timeout.is_some()),
        ]
        .into_iter()
        .find_map(|(flag, set)| set.then_some(flag));
        match given {
            Some(flag) if !used => Err(Failure::input(format!("{flag} needs {needs}"))),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_that_would_do_nothing_is_refused() {
        let none = ConnectionArgs::default();
        assert!(none.only_with(false, "--live").is_ok());
        let some = ConnectionArgs {
            context: Some("kind".into()),
            ..ConnectionArgs::default()
        };
        assert!(some.only_with(true, "--live").is_ok());
        let refused = some.only_with(false, "--server-dry-run").err();
        assert_eq!(
            refused.as_ref().map(Failure::message),
            Some("--context needs --server-dry-run")
        );
    }
}
