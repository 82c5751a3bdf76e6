//! Workloads judged by the real API server (`cargo xtask oracle test`; CI).
//!
//! For every workload kind podmut reads (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job,
//! CronJob, ReplicationController, PodTemplate) a valid manifest and its broken variants (a bad
//! image, a wrong restart policy, labels the selector does not select, `activeDeadlineSeconds`,
//! a negative count, a container field deep in the template, a bad name) are sent to the API server
//! of every release podmut claims as a dry-run create, and to podmut: the verdicts and the
//! (type, field) pairs of the errors must agree.
//!
//! Without the control-plane binaries (`cargo xtask oracle build`) the cases are reported as
//! ignored, or fail under `PODMUT_REQUIRE_ORACLE=1` ([`podmut_oracle::prerequisite`]).

use std::sync::OnceLock;

use libtest_mimic::{Arguments, Failed, Trial};
use podmut_core::WORKLOAD_KINDS as KINDS;
use podmut_oracle::answer::{Answer, Cause, compare, report};
use podmut_oracle::control_plane::{self, Config};
use podmut_oracle::pool::Pool;
use podmut_oracle::prerequisite::Prerequisites;
use podmut_oracle::{Pins, Release, runtime};
use serde_json::{Value, json};

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(Pool::default)
}

/// A namespace no earlier run used.
fn namespace() -> &'static str {
    static NS: OnceLock<String> = OnceLock::new();
    NS.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        format!("workloads-{}-{nanos}", std::process::id())
    })
}

/// A Pod template: one container, labels `app: web`.
fn template(restart: &str) -> Value {
    json!({
        "metadata": {"labels": {"app": "web"}},
        "spec": {"restartPolicy": restart, "containers": [{"name": "app", "image": "nginx:1.27"}]}
    })
}

/// A valid manifest of `kind`.
fn manifest(kind: &str) -> Value {
    let selector = json!({"matchLabels": {"app": "web"}});
    let spec = match kind {
        "Deployment" | "ReplicaSet" | "DaemonSet" => {
            json!({"selector": selector, "template": template("Always")})
        }
        "StatefulSet" => json!({"selector": selector, "serviceName": "web", "template": template("Always")}),
        "Job" => json!({"template": template("Never")}),
        "CronJob" => {
            json!({"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": template("OnFailure")}}})
        }
        "ReplicationController" => json!({"selector": {"app": "web"}, "template": template("Always")}),
        _ => Value::Null,
    };
    let info = KINDS
        .iter()
        .find(|k| k.name == kind)
        .map_or("v1", |k| k.api_version);
    let mut m = json!({"apiVersion": info, "kind": kind, "metadata": {"name": "web"}});
    if kind == "PodTemplate" {
        m["template"] = template("Always");
    } else {
        m["spec"] = spec;
    }
    m
}

/// The JSON pointer of `kind`'s template.
fn template_pointer(kind: &str) -> String {
    let info = KINDS
        .iter()
        .find(|k| k.name == kind)
        .map_or(&[][..], |k| k.template);
    info.iter().map(|s| format!("/{s}")).collect()
}

fn set(v: &mut Value, pointer: &str, value: Value) {
    let (parent, key) = pointer.rsplit_once('/').unwrap_or(("", pointer));
    if let Some(Value::Object(m)) = v.pointer_mut(parent) {
        m.insert(key.to_owned(), value);
    }
}

/// The variants of `kind`'s manifest: a name and the manifest.
fn variants(kind: &str) -> Vec<(&'static str, Value)> {
    let base = manifest(kind);
    let t = template_pointer(kind);
    let with = |pointer: &str, value: Value| {
        let mut m = base.clone();
        set(&mut m, pointer, value);
        m
    };
    let batch = matches!(kind, "Job" | "CronJob");
    let count = match kind {
        "Job" => "/spec/parallelism",
        "CronJob" => "/spec/successfulJobsHistoryLimit",
        "DaemonSet" | "PodTemplate" => "/spec/minReadySeconds",
        _ => "/spec/replicas",
    };
    let mut out = vec![
        ("valid", base.clone()),
        (
            "empty-image",
            with(&format!("{t}/spec/containers/0/image"), json!("")),
        ),
        (
            "wrong-restart-policy",
            with(
                &format!("{t}/spec/restartPolicy"),
                json!(if batch { "Always" } else { "Never" }),
            ),
        ),
        (
            "labels-not-selected",
            with(&format!("{t}/metadata/labels"), json!({"app": "other"})),
        ),
        (
            "bad-label-value",
            with(
                &format!("{t}/metadata/labels"),
                json!({"app": "web", "tier": "-bad-"}),
            ),
        ),
        (
            "active-deadline",
            with(&format!("{t}/spec/activeDeadlineSeconds"), json!(30)),
        ),
        (
            "deep-container-field",
            with(
                &format!("{t}/spec/containers/0/ports"),
                json!([{"containerPort": 70000}]),
            ),
        ),
        ("bad-name", with("/metadata/name", json!("Bad_Name"))),
        (
            "ephemeral-containers",
            with(
                &format!("{t}/spec/ephemeralContainers"),
                json!([{"name": "d", "image": "busybox"}]),
            ),
        ),
    ];
    if kind != "PodTemplate" {
        out.push(("negative-count", with(count, json!(-1))));
    }
    out
}

/// podmut's answer to creating `object` on `release`.
fn podmut_answer(object: &Value, release: Release) -> Result<Answer, String> {
    let settings =
        json!({"kubernetesVersion": release.minor_name(), "fieldValidation": "ignore"}).to_string();
    let v = podmut_core::check_documents(
        None,
        &object.to_string(),
        podmut_core::Subresource::None,
        &settings,
    )
    .map_err(|e| e.to_string())?;
    Ok(Answer {
        allowed: v.allowed,
        message: v.message.clone(),
        causes: v
            .errors
            .iter()
            .map(|e| Cause {
                kind: e.error_type.cause_type().to_owned(),
                field: e.field.to_string(),
                message: e.body(),
            })
            .collect(),
        warnings: v.warnings,
    })
}

/// One case: the server's dry-run create and podmut's answer agree on verdict and (type, field).
fn case(release: Release, kind: &'static str, object: &Value) -> Result<(), Failed> {
    let info = KINDS
        .iter()
        .find(|k| k.name == kind)
        .ok_or_else(|| Failed::from(format!("{kind}: not a workload kind")))?;
    let server = runtime().block_on(async {
        let s = pool().get(&Config::stock(release)).await?;
        let ns = namespace();
        // a namespace that exists already answers 409: either way it is there
        let _created = s.api.create_namespace(ns).await;
        s.api
            .dry_run_create(info.api_version, info.resource, ns, object)
            .await
            .map_err(|e| e.to_string())
    })?;
    let server = Answer::from_server(&server);
    let podmut = podmut_answer(object, release)?;
    let agreement = compare(&podmut, &server);
    if agreement.verdict && agreement.type_field {
        Ok(())
    } else {
        Err(Failed::from(format!(
            "{}\n{object}",
            report(&podmut, &server, agreement)
        )))
    }
}

fn main() -> std::process::ExitCode {
    let args = Arguments::from_args();
    let pins = match Pins::load() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("workloads oracle: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let releases = podmut_oracle::fixtures::claimed(&pins);
    let missing = releases
        .iter()
        .find_map(|r| control_plane::binaries(*r).err().map(|e| e.to_string()));
    let prerequisites = Prerequisites::new(missing);
    let mut trials: Vec<Trial> = Vec::new();
    for release in releases {
        for info in &KINDS {
            for (variant, object) in variants(info.name) {
                let kind = info.name;
                trials.push(prerequisites.trial(
                    format!("workloads/{}/{kind}/{variant}", release.minor_name()),
                    "",
                    move || case(release, kind, &object),
                ));
            }
        }
    }
    let conclusion = libtest_mimic::run(&args, trials);
    pool().shutdown();
    conclusion.exit_code()
}
