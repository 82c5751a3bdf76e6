//! `podmut allocate`, `podmut probes`, `podmut statuses`: the kubelet side.

use std::path::PathBuf;

use clap::Args;

use super::{Failure, OutputFormat, PolicyArgs, read_input};

/// Arguments of `podmut allocate`.
#[derive(Debug, Args)]
pub(crate) struct AllocateArgs {
    /// The allocation request: `{node, allocatedPods, allocated, desired, settings?}` (YAML or JSON).
    #[arg(value_name = "REQUEST")]
    request: PathBuf,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    policy: PolicyArgs,
}

/// Arguments of `podmut probes`.
#[derive(Debug, Args)]
pub(crate) struct ProbesArgs {
    /// The Pod before the change.
    #[arg(long, value_name = "FILE")]
    old: PathBuf,
    /// The Pod after the change.
    #[arg(long, value_name = "FILE")]
    new: PathBuf,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    policy: PolicyArgs,
}

/// Arguments of `podmut statuses`.
#[derive(Debug, Args)]
pub(crate) struct StatusesArgs {
    /// The request: `{pod, allocated?, settings?}` (YAML or JSON).
    #[arg(value_name = "REQUEST")]
    request: PathBuf,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    policy: PolicyArgs,
}

pub(crate) fn run_allocate(a: &AllocateArgs) -> Result<u8, Failure> {
    let request = read_input(&a.request, "REQUEST")?;
    let runtime = a.policy.runtime()?;
    let file = a.request.display().to_string();
    let _decision = runtime
        .allocate(&request)
        .map_err(|e| Failure::from_call(e, &[("request", &file)]))?;
    let _ = a.output;
    Err(Failure::internal("allocate output is not implemented yet"))
}

pub(crate) fn run_probes(a: &ProbesArgs) -> Result<u8, Failure> {
    let old = read_input(&a.old, "--old")?;
    let new = read_input(&a.new, "--new")?;
    let runtime = a.policy.runtime()?;
    let (o, n) = (a.old.display().to_string(), a.new.display().to_string());
    let _plan = runtime
        .probe_plan(&old, &new, "")
        .map_err(|e| Failure::from_call(e, &[("old-pod", &o), ("new-pod", &n)]))?;
    let _ = a.output;
    Err(Failure::internal("probes output is not implemented yet"))
}

pub(crate) fn run_statuses(a: &StatusesArgs) -> Result<u8, Failure> {
    let request = read_input(&a.request, "REQUEST")?;
    let runtime = a.policy.runtime()?;
    let file = a.request.display().to_string();
    let _statuses = runtime
        .container_statuses(&request)
        .map_err(|e| Failure::from_call(e, &[("request", &file)]))?;
    let _ = a.output;
    Err(Failure::internal("statuses output is not implemented yet"))
}
