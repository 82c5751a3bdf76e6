//! `podmut playground`: serve the browser pod-diff playground.

use clap::Args;

use super::Failure;

/// Arguments of `podmut playground`.
#[derive(Debug, Args)]
pub(crate) struct PlaygroundArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "HOST:PORT")]
    addr: String,
}

pub(crate) fn run(a: &PlaygroundArgs) -> Result<u8, Failure> {
    let _ = a;
    Err(Failure::internal(
        "the playground server is not implemented yet (issue 6)",
    ))
}
