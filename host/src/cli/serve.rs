//! `podmut serve`: the HTTPS admission webhook.

use std::path::PathBuf;

use clap::Args;

use super::Failure;

/// Arguments of `podmut serve`.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8443", value_name = "HOST:PORT")]
    addr: String,
    /// TLS certificate chain (PEM).
    #[arg(long, value_name = "FILE")]
    tls_cert: Option<PathBuf>,
    /// TLS private key (PEM).
    #[arg(long, value_name = "FILE")]
    tls_key: Option<PathBuf>,
    /// Generate a certificate for localhost and 127.0.0.1.
    #[arg(long)]
    self_signed: bool,
    /// With --self-signed: write the CA bundle here.
    #[arg(long, value_name = "FILE")]
    ca_out: Option<PathBuf>,
}

pub(crate) fn run(a: &ServeArgs) -> Result<u8, Failure> {
    let _ = a;
    Err(Failure::internal(
        "the webhook server is not implemented yet (issue 5)",
    ))
}
