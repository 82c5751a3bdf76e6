//! `podmut component`: write the embedded component.

use std::path::PathBuf;

use clap::Args;

use super::Failure;
use crate::runtime::EMBEDDED_COMPONENT;

/// Arguments of `podmut component`.
#[derive(Debug, Args)]
pub(crate) struct ComponentArgs {
    /// Where to write the component (`-` for stdout).
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
}

pub(crate) fn run(a: &ComponentArgs) -> Result<u8, Failure> {
    if a.output.as_os_str() == "-" {
        use std::io::Write as _;
        std::io::stdout()
            .write_all(EMBEDDED_COMPONENT)
            .map_err(|e| Failure::input(format!("cannot write the component to stdout: {e}")))?;
        return Ok(0);
    }
    std::fs::write(&a.output, EMBEDDED_COMPONENT)
        .map_err(|e| Failure::input(format!("cannot write {}: {e}", a.output.display())))?;
    eprintln!(
        "wrote {} ({} bytes)",
        a.output.display(),
        EMBEDDED_COMPONENT.len()
    );
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
