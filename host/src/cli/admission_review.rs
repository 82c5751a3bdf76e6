//! `podmut admission-review`: the AdmissionReview request the API server would send a validating
//! webhook for a Pod change, to feed `podmut review`, `curl`, `wasmtime run` or `kwctl run`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde_json::Value;

use super::inputs::{ValidateArgs, print_warnings, read_optional};
use super::{Failure, OutputFormat, PolicyArgs, emit};
use crate::output::{parse_subresource, to_json_string, to_yaml_string};
use crate::types::{DocumentKind, Operation, RequestOptions, Subresource};

/// Arguments of `podmut admission-review`.
#[derive(Debug, Args)]
pub(crate) struct AdmissionReviewArgs {
    /// The Pod before the change (UPDATE, DELETE).
    #[arg(long, value_name = "FILE")]
    old: Option<PathBuf>,
    /// The Pod after the change (CREATE, UPDATE).
    #[arg(long, value_name = "FILE")]
    new: Option<PathBuf>,
    /// The request path: none, dynamic, ephemeralcontainers, resize, status.
    #[arg(long, default_value = "none", value_parser = parse_subresource, value_name = "SUBRESOURCE")]
    subresource: Subresource,
    /// The operation (default: UPDATE with --old and --new, CREATE with --new only, DELETE with
    /// --old only).
    #[arg(long, value_enum, ignore_case = true, value_name = "OPERATION")]
    operation: Option<Op>,
    /// Mark the request as a dry run (`request.dryRun`).
    #[arg(long)]
    dry_run: bool,
    /// `request.userInfo.username`.
    #[arg(long, value_name = "NAME", default_value = "kubernetes-admin")]
    user: String,
    /// `request.uid` (default: a fresh random UUID).
    #[arg(long, value_name = "UID")]
    uid: Option<String>,
    /// Output format: json (default) or yaml.
    #[arg(short, long, value_enum, default_value = "json")]
    output: OutputFormat,
    #[command(flatten)]
    validate: ValidateArgs,
    #[command(flatten)]
    policy: PolicyArgs,
}

/// `--operation`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "UPPER")]
pub(crate) enum Op {
    /// A create.
    Create,
    /// An update.
    Update,
    /// A delete.
    Delete,
}

/// A random (version 4) UUID, as the API server gives every admission request.
fn fresh_uid() -> Result<String, Failure> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| Failure::internal(format!("cannot draw a random uid: {e}")))?;
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    Ok(format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    ))
}

pub(crate) fn run(a: &AdmissionReviewArgs) -> Result<u8, Failure> {
    let operation = match (a.operation, a.old.is_some(), a.new.is_some()) {
        (Some(Op::Create), ..) => Operation::Create,
        (Some(Op::Update), ..) => Operation::Update,
        (Some(Op::Delete), ..) => Operation::Delete,
        (None, true, true) => Operation::Update,
        (None, false, true) => Operation::Create,
        (None, true, false) => Operation::Delete,
        (None, false, false) => {
            return Err(Failure::input(
                "admission-review needs --old FILE and/or --new FILE",
            ));
        }
    };
    let runtime = a.policy.runtime()?;
    let mut warnings = Vec::new();
    let old = read_optional(
        &runtime,
        a.old.as_ref(),
        "--old",
        "old-pod",
        DocumentKind::Pod,
        a.validate,
        &mut warnings,
    )?;
    let new = read_optional(
        &runtime,
        a.new.as_ref(),
        "--new",
        "new-pod",
        DocumentKind::Pod,
        a.validate,
        &mut warnings,
    )?;
    print_warnings(&warnings);
    let options = RequestOptions {
        operation,
        sub: a.subresource,
        dry_run: a.dry_run,
        user: a.user.clone(),
        uid: match &a.uid {
            Some(u) => u.clone(),
            None => fresh_uid()?,
        },
    };
    let name = |p: &Option<PathBuf>, flag: &str| {
        p.as_ref()
            .map_or_else(|| flag.to_owned(), |p| p.display().to_string())
    };
    let review = runtime
        .admission_request(old.as_deref(), new.as_deref(), &options)
        .map_err(|e| {
            Failure::from_call(
                e,
                &[
                    ("old-pod", &name(&a.old, "--old")),
                    ("new-pod", &name(&a.new, "--new")),
                    ("options", "--operation/--subresource"),
                ],
            )
        })?;
    let value: Value = serde_json::from_str(&review)
        .map_err(|e| Failure::internal(format!("the component returned invalid JSON: {e}")))?;
    match a.output {
        OutputFormat::Yaml => emit(&to_yaml_string(&value)),
        _ => emit(&to_json_string(&value)),
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uids_are_fresh_v4_uuids() {
        let (a, b) = (fresh_uid().unwrap(), fresh_uid().unwrap());
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"), "{a}");
    }
}
