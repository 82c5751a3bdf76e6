//! `podmut component`: write the embedded component, or (`--names`) the function names split off
//! its core module, for symbolizing a trap another host (the wasmtime CLI, Kubewarden) reports as
//! `podmut_guest.wasm!<wasm function N>`.

use std::path::PathBuf;

use clap::Args;

use super::Failure;
use crate::runtime::{EMBEDDED_COMPONENT, EMBEDDED_NAMES};

/// Arguments of `podmut component`.
#[derive(Debug, Args)]
pub(crate) struct ComponentArgs {
    /// Where to write the component (`-` for stdout).
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// Write the names file instead (`podmut.wasm.names`: one `INDEX<TAB>NAME` line per function
    /// of the component's core module; a backtrace frame `<wasm function N>` is line `N`).
    #[arg(long)]
    names: bool,
}

pub(crate) fn run(a: &ComponentArgs) -> Result<u8, Failure> {
    let (what, bytes) = if a.names {
        ("the names file", EMBEDDED_NAMES.as_bytes())
    } else {
        ("the component", EMBEDDED_COMPONENT)
    };
    if a.output.as_os_str() == "-" {
        use std::io::Write as _;
        std::io::stdout()
            .write_all(bytes)
            .map_err(|e| Failure::input(format!("cannot write {what} to stdout: {e}")))?;
        return Ok(0);
    }
    std::fs::write(&a.output, bytes)
        .map_err(|e| Failure::input(format!("cannot write {}: {e}", a.output.display())))?;
    eprintln!("wrote {} ({} bytes)", a.output.display(), bytes.len());
    Ok(0)
}

/// Arguments of `podmut precompile` (hidden: a step of `cargo xtask dist`).
#[derive(Debug, Args)]
pub(crate) struct PrecompileArgs {
    /// Where to write the artefact (machine code for the baseline ISA of this architecture).
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
}

pub(crate) fn precompile(a: &PrecompileArgs) -> Result<u8, Failure> {
    let artefact =
        crate::precompiled::precompile(EMBEDDED_COMPONENT).map_err(|e| Failure::internal(e.to_string()))?;
    std::fs::write(&a.output, &artefact)
        .map_err(|e| Failure::input(format!("cannot write {}: {e}", a.output.display())))?;
    eprintln!("wrote {} ({} bytes)", a.output.display(), artefact.len());
    Ok(0)
}
