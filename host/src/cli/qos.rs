//! `podmut qos`: a Pod's QoS class.

use std::path::PathBuf;

use clap::Args;
use serde_json::json;

use super::{Failure, OutputFormat, PolicyArgs, emit, read_input};
use crate::output::{qos_name, to_json_string, to_yaml_string};
use crate::types::QosOptions;

/// Arguments of `podmut qos`.
#[derive(Debug, Args)]
pub(crate) struct QosArgs {
    /// The Pod (YAML or JSON; `-` for stdin).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Skip Kubernetes defaulting (requests defaulting to limits).
    #[arg(long)]
    no_defaults: bool,
    /// Ignore status.qosClass and always compute from the spec (ComputePodQOS, not GetPodQOS).
    #[arg(long)]
    compute: bool,
    /// Output format: text prints the class; json prints {"qosClass": "..."}.
    #[arg(short, long, value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    policy: PolicyArgs,
}

pub(crate) fn run(a: &QosArgs) -> Result<u8, Failure> {
    let pod = read_input(&a.file, "FILE")?;
    let runtime = a.policy.runtime()?;
    let file = a.file.display().to_string();
    let class = runtime
        .qos(
            &pod,
            QosOptions {
                apply_defaults: !a.no_defaults,
                always_compute: a.compute,
            },
        )
        .map_err(|e| Failure::from_call(e, &[("pod", &file)]))?;
    let name = qos_name(class);
    match a.output {
        OutputFormat::Text => emit(&format!("{name}\n")),
        OutputFormat::Json => emit(&to_json_string(&json!({ "qosClass": name }))),
        OutputFormat::Yaml => emit(&to_yaml_string(&json!({ "qosClass": name }))),
    }
    Ok(0)
}
