//! `podmut playground`: serve the browser pod-diff playground.

use std::path::PathBuf;

use clap::Args;

use super::Failure;
use crate::playground::{AssetSource, serve};

/// Arguments of `podmut playground`.
#[derive(Debug, Args)]
pub(crate) struct PlaygroundArgs {
    /// Address to listen on (port 0 picks a free one; the URL is printed).
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "HOST:PORT")]
    addr: String,
    /// Serve this directory (laid out like web/, with pkg/ from `cargo xtask web`) instead of the
    /// files embedded in the binary.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

pub(crate) fn run(a: &PlaygroundArgs) -> Result<u8, Failure> {
    let source = a.dir.clone().map_or(AssetSource::Embedded, AssetSource::Dir);
    if let Some(why) = source.missing() {
        eprintln!("podmut playground: warning: the page cannot run the component: {why}");
    }
    serve(&a.addr, source, |addr| {
        // One line on stdout, so scripts and tests can find the port.
        println!("podmut playground: listening on http://{addr}/");
    })
    .map_err(|e| Failure::input(format!("cannot serve the playground on {}: {e}", a.addr)))?;
    Ok(0)
}
