//! `podmut coverage`: KEP-5972 fail-closed coverage of admission configuration.

use std::path::PathBuf;

use clap::Args;

use super::{Failure, OutputFormat, PolicyArgs, read_input};

/// Arguments of `podmut coverage`.
#[derive(Debug, Args)]
pub(crate) struct CoverageArgs {
    /// Admission configuration objects (YAML stream, JSON list or List object).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    policy: PolicyArgs,
}

pub(crate) fn run(a: &CoverageArgs) -> Result<u8, Failure> {
    let configs = read_input(&a.file, "FILE")?;
    let runtime = a.policy.runtime()?;
    let file = a.file.display().to_string();
    let _report = runtime
        .coverage(&configs)
        .map_err(|e| Failure::from_call(e, &[("configs", &file)]))?;
    let _ = a.output;
    Err(Failure::internal("coverage output is not implemented yet"))
}
