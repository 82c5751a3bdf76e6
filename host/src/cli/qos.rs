//! `podmut qos`: the QoS class of one Pod or of each Pod in a file.

use std::path::PathBuf;

use clap::Args;
use serde_json::{Value, json};

use super::inputs::{ValidateArgs, object_name, print_warnings, read_file};
use super::{Failure, OutputFormat, PolicyArgs, emit};
use crate::output::{qos_name, to_json_string, to_yaml_string};
use crate::types::{DocumentKind, QosOptions};

/// Arguments of `podmut qos`.
#[derive(Debug, Args)]
pub(crate) struct QosArgs {
    /// The Pod (or workload), or several: a multi-document stream, a List, several files, a
    /// directory of .yaml, .yml and .json files (YAML or JSON; `-` for stdin).
    #[arg(value_name = "FILE|DIR", required = true)]
    files: Vec<PathBuf>,
    /// With a directory, also read its subdirectories (as kubectl -R).
    #[arg(short = 'R', long)]
    recursive: bool,
    /// Skip Kubernetes defaulting (requests defaulting to limits).
    #[arg(long)]
    no_defaults: bool,
    /// Ignore status.qosClass and always compute from the spec (ComputePodQOS, not GetPodQOS).
    #[arg(long)]
    compute: bool,
    /// Output format: text prints the class; json prints {"qosClass": "..."} (several Pods:
    /// {"items": [{"pod", "namespace", "name", "qosClass"}]}).
    #[arg(short, long, value_enum, default_value_t)]
    output: OutputFormat,
    #[command(flatten)]
    validate: ValidateArgs,
    #[command(flatten)]
    policy: PolicyArgs,
}

pub(crate) fn run(a: &QosArgs) -> Result<u8, Failure> {
    let runtime = a.policy.runtime()?;
    let mut reads = super::batch::files(&a.files, a.recursive)?
        .iter()
        .map(|f| read_file(&runtime, f, "FILE", "pod", DocumentKind::Pod, a.validate))
        .collect::<Result<Vec<_>, _>>()?;
    let several = reads.len() > 1;
    let options = QosOptions {
        apply_defaults: !a.no_defaults,
        always_compute: a.compute,
    };
    if reads.len() == 1
        && reads[0].docs.len() == 1
        && let Some(read) = reads.pop()
    {
        let file = read.file.clone();
        let (doc, warnings) = read.single()?;
        let class = runtime
            .qos(&doc.json, options)
            .map_err(|e| Failure::from_call(e, &[("pod", &file)]))?;
        print_warnings(&warnings);
        let name = qos_name(class);
        match a.output {
            OutputFormat::Text => emit(&format!("{name}\n")),
            OutputFormat::Json => emit(&to_json_string(&json!({ "qosClass": name }))),
            OutputFormat::Yaml => emit(&to_yaml_string(&json!({ "qosClass": name }))),
        }
        return Ok(0);
    }
    let mut code = 0;
    let mut items = Vec::new();
    let mut text = String::new();
    for (read, doc) in reads.iter().flat_map(|r| r.docs.iter().map(move |d| (r, d))) {
        let who = object_name(doc);
        let answer = match &doc.error {
            Some(e) => Err(e.clone()),
            None => match runtime.qos(&doc.json, options) {
                Ok(class) => Ok(qos_name(class)),
                Err(e @ crate::error::CallError::Host(_)) => return Err(Failure::from_call(e, &[])),
                Err(e) => Err(Failure::from_call(e, &[]).message().to_owned()),
            },
        };
        print_warnings(&read.warnings_of(doc));
        let mut item = match answer {
            Ok(class) => {
                text.push_str(&format!("pod {who}: {class}\n"));
                json!({ "qosClass": class })
            }
            Err(e) => {
                code = 2;
                text.push_str(&format!("pod {who}: error: {e}\n"));
                json!({ "error": e })
            }
        };
        if let Value::Object(o) = &mut item {
            o.insert("pod".into(), json!(who));
            o.insert("namespace".into(), json!(doc.namespace));
            o.insert("name".into(), json!(doc.name));
            if several {
                o.insert("file".into(), json!(read.file));
            }
        }
        items.push(item);
    }
    let v = json!({ "items": items });
    match a.output {
        OutputFormat::Text => emit(&text),
        OutputFormat::Json => emit(&to_json_string(&v)),
        OutputFormat::Yaml => emit(&to_yaml_string(&v)),
    }
    Ok(code)
}
