//! The Helm chart (`charts/podmut`) linted, rendered, checked against its schema and created in a
//! real API server (`cargo xtask ci`; alone: `PODMUT_REQUIRE_ORACLE=1 cargo test -p podmut-oracle
//! --test chart`).
//!
//! - `chart/lint`: `helm lint` and `helm lint --strict` pass, with the defaults and with a provided
//!   Secret;
//! - `chart/defaults`: the default rendering has the expected objects, names, labels, webhook rules
//!   and settings;
//! - `chart/fail-closed-coverage`: the webhook covers `pods/dynamic` as KEP-5972 requires (`podmut
//!   coverage`'s check), whatever the selectors and operations;
//! - `chart/values/*`: each value set (a provided Secret, an existing issuer, the PDB and the HPA,
//!   enforcement and settings, the namespace selector and failurePolicy, ...) shows in the objects;
//! - `chart/schema-refuses/*`: values.schema.json refuses bad values (`helm template` fails and
//!   names the value);
//! - `chart/matches-kustomize`: the chart with the values of the kustomize manifests renders the
//!   objects of `kubectl kustomize policies/deploy`, compared as parsed objects, with the
//!   differences a chart must have named in [`normalize_chart`];
//! - `chart/server-dry-run`: every object of several renderings is created in a real API server
//!   with `kubectl create --dry-run=server --validate=strict` (cert-manager's kinds from a stand-in
//!   CRD, `tests/oracle/chart/cert-manager-crds.yaml`), so a schema error fails; the same check is
//!   shown to fail on a broken object;
//! - `chart/install-upgrade`: `helm install` into that API server and `helm upgrade` with another
//!   enforcement, which changes the Pods' settings checksum (the Pods roll).
//!
//! The Helm CLI is the one `cargo xtask oracle build` builds (`helm` in `tests/oracle/releases.txt`;
//! `$HELM` overrides it). Without it, kubectl or the control-plane binaries, the cases are reported
//! as ignored, or fail under `PODMUT_REQUIRE_ORACLE=1` ([`podmut_oracle::prerequisite`]).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use libtest_mimic::{Arguments, Failed, Trial};
use podmut_oracle::control_plane::{self, Config, ControlPlane};
use podmut_oracle::prerequisite::Prerequisites;
use podmut_oracle::webhook::{kubectl, kubectl_binary};
use podmut_oracle::{Pins, exchange, releases, runtime};
use serde_json::{Value, json};

type Case = fn() -> Result<(), String>;

fn e(x: impl std::fmt::Display) -> String {
    x.to_string()
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn chart_dir() -> PathBuf {
    repo().join("charts/podmut")
}

/// `$HELM`, else the pinned Helm CLI `cargo xtask oracle build` builds.
fn helm_binary() -> Result<PathBuf, String> {
    if let Some(h) = std::env::var_os("HELM").filter(|h| !h.is_empty()) {
        return Ok(PathBuf::from(h));
    }
    let pins = Pins::load().map_err(e)?;
    let version = pins
        .helm
        .ok_or("tests/oracle/releases.txt pins no helm version")?;
    let bin = releases::helm_binary(&version);
    if bin.is_file() {
        Ok(bin)
    } else {
        Err(format!(
            "{} is not built: run `cargo xtask oracle build`",
            bin.display()
        ))
    }
}

/// What a command printed.
struct Out {
    ok: bool,
    stdout: String,
    stderr: String,
}

/// Run `helm args`, `stdin` piped in.
fn helm(args: &[&str], stdin: Option<&str>) -> Result<Out, String> {
    let mut c = Command::new(helm_binary()?);
    c.args(args)
        // Nothing of the user's Helm configuration or cache, and no repository is consulted.
        .env(
            "HELM_CONFIG_HOME",
            std::env::temp_dir().join("podmut-chart-helm/config"),
        )
        .env(
            "HELM_CACHE_HOME",
            std::env::temp_dir().join("podmut-chart-helm/cache"),
        )
        .env(
            "HELM_DATA_HOME",
            std::env::temp_dir().join("podmut-chart-helm/data"),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().map_err(|x| format!("helm: {x}"))?;
    if let Some(mut input) = child.stdin.take() {
        let _ = input.write_all(stdin.unwrap_or_default().as_bytes());
    }
    let out = child.wait_with_output().map_err(|x| format!("helm: {x}"))?;
    Ok(Out {
        ok: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// Parse a multi-document YAML stream into its objects (empty documents dropped).
fn parse_documents(text: &str) -> Result<Vec<Value>, String> {
    let mut out = Vec::new();
    for doc in serde_yaml_ng::Deserializer::from_str(text) {
        let v: Value = serde::Deserialize::deserialize(doc).map_err(|x| format!("{x}\n{text}"))?;
        if !v.is_null() {
            out.push(v);
        }
    }
    Ok(out)
}

/// The arguments of `helm template`/`helm lint` for a values document.
fn values_args(values: &str) -> Vec<String> {
    if values.trim().is_empty() {
        Vec::new()
    } else {
        vec!["--values".into(), "-".into()]
    }
}

/// `helm template <release> charts/podmut -n <namespace>` with the values document `values`
/// (YAML), parsed.
fn render(release: &str, namespace: &str, values: &str) -> Result<Vec<Value>, String> {
    let text = render_text(release, namespace, values)?;
    parse_documents(&text)
}

fn render_text(release: &str, namespace: &str, values: &str) -> Result<String, String> {
    let chart = chart_dir().display().to_string();
    let mut args = vec![
        "template".to_owned(),
        release.to_owned(),
        chart,
        "--namespace".into(),
        namespace.to_owned(),
    ];
    args.extend(values_args(values));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = helm(&args, Some(values))?;
    if !out.ok {
        return Err(format!(
            "helm template failed with values\n{values}\n{}",
            out.stderr
        ));
    }
    Ok(out.stdout)
}

/// The object of `kind` named `name`.
fn find<'a>(objects: &'a [Value], kind: &str, name: &str) -> Result<&'a Value, String> {
    objects
        .iter()
        .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
        .ok_or_else(|| {
            format!(
                "no {kind} {name} among {:?}",
                objects.iter().map(kind_name).collect::<Vec<_>>()
            )
        })
}

fn kind_name(o: &Value) -> (String, String) {
    (
        o["kind"].as_str().unwrap_or_default().to_owned(),
        o["metadata"]["name"].as_str().unwrap_or_default().to_owned(),
    )
}

fn kinds_and_names(objects: &[Value]) -> Vec<(String, String)> {
    let mut v: Vec<_> = objects.iter().map(kind_name).collect();
    v.sort();
    v
}

fn expect_eq(what: &str, got: &Value, want: &Value) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got}, want {want}"))
    }
}

/// The settings document of the rendered ConfigMap, parsed.
fn settings(objects: &[Value], configmap: &str) -> Result<Value, String> {
    let cm = find(objects, "ConfigMap", configmap)?;
    let text = cm["data"]["settings.yaml"]
        .as_str()
        .ok_or("the ConfigMap has no settings.yaml")?;
    serde_yaml_ng::from_str(text).map_err(e)
}

fn checksum(deployment: &Value) -> Result<String, String> {
    let sum = deployment["spec"]["template"]["metadata"]["annotations"]["checksum/settings"]
        .as_str()
        .ok_or("the pod template has no checksum/settings annotation")?;
    if sum.len() == 64 && sum.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(sum.to_owned())
    } else {
        Err(format!("checksum/settings {sum:?} is not a SHA-256"))
    }
}

/// The one webhook of the rendered ValidatingWebhookConfiguration.
fn webhook(objects: &[Value], name: &str) -> Result<Value, String> {
    let vwc = find(objects, "ValidatingWebhookConfiguration", name)?;
    let hooks = vwc["webhooks"].as_array().ok_or("no webhooks")?;
    match hooks.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(format!("{} webhooks, want 1", hooks.len())),
    }
}

fn main() -> std::process::ExitCode {
    let args = Arguments::from_args();
    let helm_missing = helm_binary().and_then(|h| {
        let out = Command::new(&h)
            .args(["version", "--template", "{{.Version}}"])
            .output()
            .map_err(|x| format!("{}: {x}", h.display()))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!("{} version failed", h.display()))
        }
    });
    let kubectl_missing = helm_missing
        .clone()
        .and_then(|()| kubectl_binary().map(|_| ()).map_err(e));
    let server_missing = kubectl_missing
        .clone()
        .and_then(|()| control_plane::binaries(release()?).map(|_| ()).map_err(e));
    let helm_needs = Prerequisites::new(helm_missing.err());
    let kubectl_needs = Prerequisites::new(kubectl_missing.err());
    let server_needs = Prerequisites::new(server_missing.err());

    let mut trials: Vec<Trial> = Vec::new();
    let simple: [(&str, &Prerequisites, Case); 6] = [
        ("chart/lint", &helm_needs, lint),
        ("chart/defaults", &helm_needs, defaults),
        ("chart/fail-closed-coverage", &helm_needs, fail_closed_coverage),
        ("chart/matches-kustomize", &kubectl_needs, matches_kustomize),
        ("chart/server-dry-run", &server_needs, server_dry_run),
        ("chart/install-upgrade", &server_needs, install_upgrade),
    ];
    for (name, needs, f) in simple {
        trials.push(needs.trial(name, "", move || f().map_err(Failed::from)));
    }
    for (name, values, check) in value_sets() {
        trials.push(helm_needs.trial(format!("chart/values/{name}"), "", move || {
            let objects = render("podmut", "podmut-system", &values)?;
            check(&objects).map_err(|x| Failed::from(format!("{x}\nwith values:\n{values}")))
        }));
    }
    for (name, values, mention) in bad_values() {
        trials.push(
            helm_needs.trial(format!("chart/schema-refuses/{name}"), "", move || {
                refused(values, mention).map_err(Failed::from)
            }),
        );
    }
    libtest_mimic::run(&args, trials).exit_code()
}

/// The newest pinned release podmut claims: the API server the objects are created in.
fn release() -> Result<podmut_oracle::Release, String> {
    let pins = Pins::load().map_err(e)?;
    podmut_oracle::fixtures::claimed(&pins)
        .into_iter()
        .max()
        .ok_or_else(|| "podmut claims none of the pinned releases".to_owned())
}

/// A provided serving certificate's CA, base64 (any PEM: the chart only passes it on).
fn ca_bundle() -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .encode("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
}

const SECRET_VALUES: &str =
    "certificate:\n  source: secret\n  secretName: my-webhook-tls\n  caBundle: CA_BUNDLE\n";

fn secret_values() -> String {
    SECRET_VALUES.replace("CA_BUNDLE", &ca_bundle())
}

fn lint() -> Result<(), String> {
    let chart = chart_dir().display().to_string();
    let secret = secret_values();
    for (what, values) in [("defaults", ""), ("a provided Secret", secret.as_str())] {
        for strict in [false, true] {
            let mut args = vec!["lint", chart.as_str()];
            if strict {
                args.push("--strict");
            }
            let extra = values_args(values);
            args.extend(extra.iter().map(String::as_str));
            let out = helm(&args, Some(values))?;
            let all = format!("{}{}", out.stdout, out.stderr);
            if !out.ok || !all.contains("1 chart(s) linted, 0 chart(s) failed") {
                return Err(format!("helm {} ({what}) failed:\n{all}", args.join(" ")));
            }
        }
    }
    Ok(())
}

/// The chart's standard labels, on every object.
fn standard_labels(o: &Value, release: &str) -> Result<(), String> {
    let labels = &o["metadata"]["labels"];
    let (kind, name) = kind_name(o);
    for (k, v) in [
        ("helm.sh/chart", "podmut-0.1.0"),
        ("app.kubernetes.io/name", "podmut-webhook"),
        ("app.kubernetes.io/instance", release),
        ("app.kubernetes.io/version", "0.1.0"),
        ("app.kubernetes.io/managed-by", "Helm"),
        ("app.kubernetes.io/part-of", "podmut"),
    ] {
        if labels[k] != v {
            return Err(format!("{kind} {name}: label {k} is {}, want {v}", labels[k]));
        }
    }
    Ok(())
}

fn defaults() -> Result<(), String> {
    let objects = render("podmut", "podmut-system", "")?;
    let want: Vec<(String, String)> = [
        ("Certificate", "podmut-ca"),
        ("Certificate", "podmut-webhook"),
        ("ConfigMap", "podmut-settings"),
        ("Deployment", "podmut-webhook"),
        ("Issuer", "podmut-ca"),
        ("Issuer", "podmut-selfsigned"),
        ("PodDisruptionBudget", "podmut-webhook"),
        ("Service", "podmut-webhook"),
        ("ServiceAccount", "podmut-webhook"),
        ("ValidatingWebhookConfiguration", "podmut"),
    ]
    .iter()
    .map(|(k, n)| ((*k).to_owned(), (*n).to_owned()))
    .collect();
    if kinds_and_names(&objects) != want {
        return Err(format!("objects {:?}, want {want:?}", kinds_and_names(&objects)));
    }
    for o in &objects {
        standard_labels(o, "podmut")?;
        let namespaced = o["kind"] != "ValidatingWebhookConfiguration";
        let ns = &o["metadata"]["namespace"];
        if namespaced && ns != "podmut-system" || !namespaced && !ns.is_null() {
            return Err(format!("{:?}: namespace {ns}", kind_name(o)));
        }
    }
    let d = find(&objects, "Deployment", "podmut-webhook")?;
    expect_eq("replicas", &d["spec"]["replicas"], &json!(2))?;
    expect_eq(
        "selector",
        &d["spec"]["selector"]["matchLabels"],
        &json!({"app.kubernetes.io/name": "podmut-webhook", "app.kubernetes.io/instance": "podmut"}),
    )?;
    let c = &d["spec"]["template"]["spec"]["containers"][0];
    expect_eq("image", &c["image"], &json!("ghcr.io/podmut/podmut:0.1.0"))?;
    expect_eq(
        "volumes",
        &d["spec"]["template"]["spec"]["volumes"],
        &json!([
            {"name": "tls", "secret": {"secretName": "podmut-webhook-tls"}},
            {"name": "settings", "configMap": {"name": "podmut-settings"}}
        ]),
    )?;
    checksum(d)?;
    expect_eq(
        "settings",
        &settings(&objects, "podmut-settings")?,
        &json!({"enforcement": "deny"}),
    )?;
    let hook = webhook(&objects, "podmut")?;
    expect_eq(
        "rules",
        &hook["rules"],
        &json!([{"operations": ["UPDATE"], "apiGroups": [""], "apiVersions": ["v1"],
            "resources": ["pods", "pods/dynamic", "pods/ephemeralcontainers", "pods/resize"],
            "scope": "Namespaced"}]),
    )?;
    expect_eq("failurePolicy", &hook["failurePolicy"], &json!("Fail"))?;
    expect_eq(
        "namespaceSelector",
        &hook["namespaceSelector"],
        &json!({"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["podmut-system"]}]}),
    )?;
    let vwc = find(&objects, "ValidatingWebhookConfiguration", "podmut")?;
    expect_eq(
        "inject-ca-from",
        &vwc["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
        &json!("podmut-system/podmut-webhook"),
    )?;
    let cert = find(&objects, "Certificate", "podmut-webhook")?;
    expect_eq(
        "dnsNames",
        &cert["spec"]["dnsNames"],
        &json!([
            "podmut-webhook.podmut-system.svc",
            "podmut-webhook.podmut-system.svc.cluster.local"
        ]),
    )?;
    // Another release name: every name is prefixed, and the release is in the selector.
    let other = render("guard", "ops", "")?;
    let d = find(&other, "Deployment", "guard-podmut-webhook")?;
    expect_eq(
        "selector",
        &d["spec"]["selector"]["matchLabels"]["app.kubernetes.io/instance"],
        &json!("guard"),
    )?;
    find(&other, "ValidatingWebhookConfiguration", "guard-podmut")?;
    let cert = find(&other, "Certificate", "guard-podmut-webhook")?;
    expect_eq(
        "dnsNames",
        &cert["spec"]["dnsNames"][0],
        &json!("guard-podmut-webhook.ops.svc"),
    )?;
    Ok(())
}

/// KEP-5972 rejects `pods/dynamic` requests while a webhook intercepts Pod updates but not
/// `pods/dynamic`: with every selector and operation set, the chart's webhook covers it
/// (`podmut coverage`'s check, on the rendered objects).
fn fail_closed_coverage() -> Result<(), String> {
    for values in [
        "",
        "webhook:\n  operations: [CREATE, UPDATE]\n",
        "webhook:\n  namespaceSelector:\n    matchLabels: {podmut.io/judged: \"true\"}\n  objectSelector:\n    matchLabels: {podmut.io/judged: \"true\"}\n",
    ] {
        let objects = render("podmut", "podmut-system", values)?;
        let vwc = find(&objects, "ValidatingWebhookConfiguration", "podmut")?;
        let report = podmut_core::coverage(&vwc.to_string(), &podmut_core::CoverageScope::default())
            .map_err(|x| format!("coverage: {x:?}"))?;
        let fine = report.dynamic_allowed
            && report.handlers.len() == 1
            && report
                .handlers
                .iter()
                .all(|h| h.intercepts_pods && h.intercepts_dynamic && !h.blocks_dynamic);
        if !fine {
            return Err(format!("with values\n{values}the coverage report is {report:?}"));
        }
    }
    Ok(())
}

type Check = fn(&[Value]) -> Result<(), String>;

/// Named value sets, each with what its objects must show.
fn value_sets() -> Vec<(&'static str, String, Check)> {
    vec![
        ("provided-secret", secret_values(), check_provided_secret),
        ("existing-issuer", "certificate:\n  certManager:\n    issuerRef: {name: corp-ca, kind: ClusterIssuer}\n    duration: 720h\n    renewBefore: 240h\n".into(), check_existing_issuer),
        ("hpa-on-pdb-off", "autoscaling:\n  enabled: true\n  minReplicas: 3\n  maxReplicas: 7\n  targetCPUUtilizationPercentage: 60\npodDisruptionBudget:\n  enabled: false\n".into(), check_hpa_on_pdb_off),
        ("pdb-max-unavailable", "podDisruptionBudget:\n  maxUnavailable: 1\n".into(), check_pdb_max_unavailable),
        ("enforcement-warn-and-settings", "enforcement: warn\nsettings:\n  kubernetesVersion: \"1.36\"\n  securityContextEscalation: forbid\n".into(), check_enforcement_warn_and_settings),
        ("selectors-and-failure-policy", "webhook:\n  failurePolicy: Ignore\n  timeoutSeconds: 10\n  operations: [CREATE, UPDATE]\n  namespaceSelector:\n    matchLabels: {podmut.io/judged: \"true\"}\n    matchExpressions:\n      - {key: tier, operator: In, values: [apps]}\n  objectSelector:\n    matchExpressions:\n      - {key: podmut.io/exempt, operator: DoesNotExist}\n".into(), check_selectors_and_failure_policy),
        ("replicas-resources-image", "replicas: 3\nimage:\n  repository: registry.example.com/podmut\n  digest: sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\nresources:\n  requests: {cpu: 250m, memory: 100Mi}\n  limits: {memory: 512Mi}\nserve:\n  workers: 4\n  extraArgs: [--client-ca=/etc/podmut/client-ca/ca.crt]\npriorityClassName: system-cluster-critical\n".into(), check_replicas_resources_image),
    ]
}

fn check_provided_secret(o: &[Value]) -> Result<(), String> {
    if o.iter().any(|x| {
        x["apiVersion"]
            .as_str()
            .is_some_and(|a| a.starts_with("cert-manager.io/"))
    }) {
        return Err("cert-manager objects rendered for a provided Secret".into());
    }
    let vwc = find(o, "ValidatingWebhookConfiguration", "podmut")?;
    if !vwc["metadata"]["annotations"]["cert-manager.io/inject-ca-from"].is_null() {
        return Err("the inject-ca-from annotation is set for a provided Secret".into());
    }
    let hook = webhook(o, "podmut")?;
    expect_eq("caBundle", &hook["clientConfig"]["caBundle"], &json!(ca_bundle()))?;
    let d = find(o, "Deployment", "podmut-webhook")?;
    expect_eq(
        "tls volume",
        &d["spec"]["template"]["spec"]["volumes"][0],
        &json!({"name": "tls", "secret": {"secretName": "my-webhook-tls"}}),
    )
}

fn check_existing_issuer(o: &[Value]) -> Result<(), String> {
    let issuers = o.iter().filter(|x| x["kind"] == "Issuer").count();
    if issuers != 0 || find(o, "Certificate", "podmut-ca").is_ok() {
        return Err("the chart made its own CA although an issuer was given".into());
    }
    let cert = find(o, "Certificate", "podmut-webhook")?;
    expect_eq(
        "issuerRef",
        &cert["spec"]["issuerRef"],
        &json!({"name": "corp-ca", "kind": "ClusterIssuer"}),
    )?;
    expect_eq("duration", &cert["spec"]["duration"], &json!("720h"))?;
    expect_eq("renewBefore", &cert["spec"]["renewBefore"], &json!("240h"))
}

fn check_hpa_on_pdb_off(o: &[Value]) -> Result<(), String> {
    if o.iter().any(|x| x["kind"] == "PodDisruptionBudget") {
        return Err("a PodDisruptionBudget with podDisruptionBudget.enabled=false".into());
    }
    let hpa = find(o, "HorizontalPodAutoscaler", "podmut-webhook")?;
    expect_eq("minReplicas", &hpa["spec"]["minReplicas"], &json!(3))?;
    expect_eq("maxReplicas", &hpa["spec"]["maxReplicas"], &json!(7))?;
    expect_eq(
        "target",
        &hpa["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
        &json!(60),
    )?;
    expect_eq(
        "scaleTargetRef",
        &hpa["spec"]["scaleTargetRef"]["name"],
        &json!("podmut-webhook"),
    )?;
    let d = find(o, "Deployment", "podmut-webhook")?;
    if !d["spec"]["replicas"].is_null() {
        return Err("the Deployment sets replicas although the HPA owns them".into());
    }
    Ok(())
}

fn check_pdb_max_unavailable(o: &[Value]) -> Result<(), String> {
    let pdb = find(o, "PodDisruptionBudget", "podmut-webhook")?;
    expect_eq("maxUnavailable", &pdb["spec"]["maxUnavailable"], &json!(1))?;
    expect_eq("minAvailable", &pdb["spec"]["minAvailable"], &Value::Null)
}

fn check_enforcement_warn_and_settings(o: &[Value]) -> Result<(), String> {
    expect_eq(
        "settings",
        &settings(o, "podmut-settings")?,
        &json!({"enforcement": "warn", "kubernetesVersion": "1.36", "securityContextEscalation": "forbid"}),
    )?;
    // Other settings, another checksum: the Pods roll.
    let default = render("podmut", "podmut-system", "")?;
    let before = checksum(find(&default, "Deployment", "podmut-webhook")?)?;
    let after = checksum(find(o, "Deployment", "podmut-webhook")?)?;
    if before == after {
        return Err(format!(
            "checksum/settings {after} did not change with the settings"
        ));
    }
    Ok(())
}

fn check_selectors_and_failure_policy(o: &[Value]) -> Result<(), String> {
    let hook = webhook(o, "podmut")?;
    expect_eq("failurePolicy", &hook["failurePolicy"], &json!("Ignore"))?;
    expect_eq("timeoutSeconds", &hook["timeoutSeconds"], &json!(10))?;
    expect_eq(
        "operations",
        &hook["rules"][0]["operations"],
        &json!(["CREATE", "UPDATE"]),
    )?;
    expect_eq(
        "namespaceSelector",
        &hook["namespaceSelector"],
        &json!({
            "matchLabels": {"podmut.io/judged": "true"},
            "matchExpressions": [
                {"key": "tier", "operator": "In", "values": ["apps"]},
                {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["podmut-system"]}
            ]
        }),
    )?;
    expect_eq(
        "objectSelector",
        &hook["objectSelector"],
        &json!({"matchExpressions": [{"key": "podmut.io/exempt", "operator": "DoesNotExist"}]}),
    )
}

fn check_replicas_resources_image(o: &[Value]) -> Result<(), String> {
    let d = find(o, "Deployment", "podmut-webhook")?;
    expect_eq("replicas", &d["spec"]["replicas"], &json!(3))?;
    let pod = &d["spec"]["template"]["spec"];
    let c = &pod["containers"][0];
    expect_eq(
        "image",
        &c["image"],
        &json!(
            "registry.example.com/podmut@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
        ),
    )?;
    expect_eq(
        "resources",
        &c["resources"],
        &json!({"requests": {"cpu": "250m", "memory": "100Mi"}, "limits": {"memory": "512Mi"}}),
    )?;
    let args = c["args"].as_array().ok_or("no args")?;
    for want in ["--workers=4", "--client-ca=/etc/podmut/client-ca/ca.crt"] {
        if !args.iter().any(|a| a == want) {
            return Err(format!("{want} not in the args {args:?}"));
        }
    }
    expect_eq(
        "priorityClassName",
        &pod["priorityClassName"],
        &json!("system-cluster-critical"),
    )
}

/// Bad values, each with what `helm template`'s refusal must contain (the value's path).
fn bad_values() -> Vec<(&'static str, &'static str, &'static str)> {
    vec![
        ("negative-replicas", "replicas: -1\n", "'/replicas'"),
        ("zero-replicas", "replicas: 0\n", "'/replicas'"),
        (
            "failure-policy",
            "webhook:\n  failurePolicy: Sometimes\n",
            "'/webhook/failurePolicy'",
        ),
        ("enforcement", "enforcement: block\n", "'/enforcement'"),
        (
            "enforcement-in-settings",
            "settings:\n  enforcement: warn\n",
            "'enforcement' not allowed",
        ),
        (
            "unknown-setting",
            "settings:\n  securityContextEscalations: forbid\n",
            "'securityContextEscalations' not allowed",
        ),
        ("misspelt-value", "replica: 3\n", "'replica' not allowed"),
        (
            "secret-without-ca",
            "certificate:\n  source: secret\n  secretName: tls\n",
            "'/certificate/caBundle'",
        ),
        (
            "certificate-source",
            "certificate:\n  source: vault\n",
            "'/certificate/source'",
        ),
        (
            "timeout",
            "webhook:\n  timeoutSeconds: 31\n",
            "'/webhook/timeoutSeconds'",
        ),
        (
            "operations",
            "webhook:\n  operations: [DELETE]\n",
            "'/webhook/operations/0'",
        ),
        (
            "namespace-selector-operator",
            "webhook:\n  namespaceSelector:\n    matchExpressions: [{key: a, operator: Maybe}]\n",
            "'/webhook/namespaceSelector/matchExpressions/0/operator'",
        ),
        ("deadline", "serve:\n  deadline: soon\n", "'/serve/deadline'"),
    ]
}

/// `helm template` and `helm lint` refuse `values`, naming `mention`.
fn refused(values: &str, mention: &str) -> Result<(), String> {
    let chart = chart_dir().display().to_string();
    let extra = values_args(values);
    for verb in ["template", "lint"] {
        let mut args = vec![verb, chart.as_str()];
        args.extend(extra.iter().map(String::as_str));
        let out = helm(&args, Some(values))?;
        let all = format!("{}{}", out.stdout, out.stderr);
        if out.ok {
            return Err(format!("helm {verb} accepted\n{values}\n{all}"));
        }
        if !all.contains(mention) {
            return Err(format!(
                "helm {verb} refused\n{values}but without naming {mention}:\n{all}"
            ));
        }
    }
    Ok(())
}

/// The Helm-specific labels the chart adds to every object (the kustomize manifests, one
/// installation per cluster, carry only `app.kubernetes.io/name`).
const CHART_LABELS: [&str; 6] = [
    "helm.sh/chart",
    "app.kubernetes.io/instance",
    "app.kubernetes.io/version",
    "app.kubernetes.io/component",
    "app.kubernetes.io/part-of",
    "app.kubernetes.io/managed-by",
];

fn remove_keys(map: &mut Value, keys: &[&str]) {
    if let Some(m) = map.as_object_mut() {
        for k in keys {
            m.remove(*k);
        }
    }
}

/// Drop `parent[key]` when it is an empty object (labels left empty after removing the chart's).
fn drop_empty(parent: &mut Value, key: &str) {
    if parent[key].as_object().is_some_and(serde_json::Map::is_empty)
        && let Some(m) = parent.as_object_mut()
    {
        m.remove(key);
    }
}

/// The differences a chart must have from the kustomize manifests, undone on a chart object:
/// - the Helm labels ([`CHART_LABELS`]) on every object and Pod template, and
///   `app.kubernetes.io/instance` in the selectors (a chart can be installed more than once);
/// - the Pod template's `checksum/settings` annotation (a settings change rolls the Pods; kubectl
///   apply users restart the Deployment, as policies/deploy/README.md says).
fn normalize_chart(o: &mut Value) {
    remove_keys(&mut o["metadata"]["labels"], &CHART_LABELS);
    drop_empty(&mut o["metadata"], "labels");
    let instance = ["app.kubernetes.io/instance"];
    match o["kind"].as_str() {
        Some("Deployment") => {
            let spec = &mut o["spec"];
            remove_keys(&mut spec["selector"]["matchLabels"], &instance);
            let t = &mut spec["template"];
            remove_keys(&mut t["metadata"]["labels"], &CHART_LABELS);
            remove_keys(&mut t["metadata"]["annotations"], &["checksum/settings"]);
            let terms = &mut t["spec"]["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"];
            if let Some(terms) = terms.as_array_mut() {
                for term in terms {
                    remove_keys(
                        &mut term["podAffinityTerm"]["labelSelector"]["matchLabels"],
                        &instance,
                    );
                }
            }
        }
        Some("Service") => remove_keys(&mut o["spec"]["selector"], &instance),
        Some("PodDisruptionBudget") => {
            remove_keys(&mut o["spec"]["selector"]["matchLabels"], &instance);
        }
        _ => {}
    }
}

/// Both sides: the ConfigMap's settings document compared parsed (the manifests' copy carries
/// comments).
fn parse_settings(o: &mut Value) -> Result<(), String> {
    if o["kind"] == "ConfigMap"
        && let Some(text) = o["data"]["settings.yaml"].as_str()
    {
        let parsed: Value = serde_yaml_ng::from_str(text).map_err(e)?;
        o["data"]["settings.yaml"] = parsed;
    }
    Ok(())
}

fn matches_kustomize() -> Result<(), String> {
    let deploy = repo().join("policies/deploy");
    let k = Command::new(kubectl_binary().map_err(e)?)
        .arg("kustomize")
        .arg(&deploy)
        .output()
        .map_err(e)?;
    if !k.status.success() {
        return Err(format!(
            "kubectl kustomize {} failed:\n{}",
            deploy.display(),
            String::from_utf8_lossy(&k.stderr)
        ));
    }
    let mut kustomized = parse_documents(&String::from_utf8_lossy(&k.stdout))?;
    // The values that make the chart the manifests: release podmut in podmut-system, and the
    // HorizontalPodAutoscaler of hpa.yaml.
    let mut chart = render("podmut", "podmut-system", "autoscaling:\n  enabled: true\n")?;

    // The Namespace: the chart leaves it to `helm install --create-namespace` (NOTES.txt says how
    // to label it as the manifests do).
    let ns = kustomized
        .iter()
        .position(|o| o["kind"] == "Namespace")
        .ok_or("kubectl kustomize rendered no Namespace")?;
    let ns = kustomized.remove(ns);
    expect_eq(
        "the manifests' Namespace",
        &ns["metadata"],
        &json!({"name": "podmut-system", "labels": {"pod-security.kubernetes.io/enforce": "restricted"}}),
    )?;
    // The replicas: with the HPA on, the chart leaves them to it (a `helm upgrade` would otherwise
    // reset what the HPA scaled to); the manifests start at the HPA's minimum.
    let hpa = find(&chart, "HorizontalPodAutoscaler", "podmut-webhook")?;
    let min = hpa["spec"]["minReplicas"].clone();
    for o in &mut kustomized {
        if o["kind"] == "Deployment"
            && let Some(spec) = o["spec"].as_object_mut()
        {
            let replicas = spec.remove("replicas").unwrap_or_default();
            expect_eq("the manifests' replicas (the HPA's minimum)", &replicas, &min)?;
        }
    }
    for o in &mut chart {
        normalize_chart(o);
        parse_settings(o)?;
    }
    for o in &mut kustomized {
        parse_settings(o)?;
    }
    let index = |objs: &[Value]| -> BTreeMap<(String, String), Value> {
        objs.iter().map(|o| (kind_name(o), o.clone())).collect()
    };
    let (c, k) = (index(&chart), index(&kustomized));
    if c.keys().ne(k.keys()) {
        return Err(format!(
            "the chart renders {:?}\nthe manifests {:?}",
            c.keys().collect::<Vec<_>>(),
            k.keys().collect::<Vec<_>>()
        ));
    }
    let mut diffs = Vec::new();
    for (key, want) in &k {
        let got = &c[key];
        if got != want {
            diffs.push(format!(
                "{key:?} differs:\nchart:\n{}\nmanifests:\n{}",
                serde_json::to_string_pretty(got).unwrap_or_default(),
                serde_json::to_string_pretty(want).unwrap_or_default()
            ));
        }
    }
    if diffs.is_empty() {
        Ok(())
    } else {
        Err(diffs.join("\n\n"))
    }
}

/// A control plane of [`release`] with the cert-manager stand-in CRDs established.
fn plane_with_crds() -> Result<ControlPlane, String> {
    let plane = runtime()
        .block_on(ControlPlane::start(&Config::stock(release()?)))
        .map_err(e)?;
    let crds = Path::new(env!("CARGO_MANIFEST_DIR")).join("chart/cert-manager-crds.yaml");
    let crds = std::fs::read_to_string(&crds).map_err(|x| format!("{}: {x}", crds.display()))?;
    let out = kubectl(&plane, &["create", "-f", "-"], Some(&crds)).map_err(e)?;
    if !out.ok {
        return Err(format!("creating the CRDs failed:\n{}", out.stderr));
    }
    let out = kubectl(
        &plane,
        &[
            "wait",
            "--for=condition=Established",
            "--timeout=60s",
            "crd/certificates.cert-manager.io",
            "crd/issuers.cert-manager.io",
        ],
        None,
    )
    .map_err(e)?;
    if !out.ok {
        return Err(format!("the CRDs were not established:\n{}", out.stderr));
    }
    Ok(plane)
}

/// Create `namespace` for real.
fn create_namespace(plane: &ControlPlane, namespace: &str) -> Result<(), String> {
    let out = kubectl(plane, &["create", "namespace", namespace], None).map_err(e)?;
    if out.ok {
        Ok(())
    } else {
        Err(format!("kubectl create namespace {namespace}:\n{}", out.stderr))
    }
}

/// `kubectl create --dry-run=server --validate=strict -f -` of `objects`: the API server's
/// defaulting, validation and admission, nothing stored.
fn dry_run(plane: &ControlPlane, objects: &[Value]) -> Result<String, String> {
    let stream: String = objects
        .iter()
        .map(|o| format!("---\n{}", serde_yaml_ng::to_string(o).unwrap_or_default()))
        .collect();
    let out = kubectl(
        plane,
        &["create", "--dry-run=server", "--validate=strict", "-f", "-"],
        Some(&stream),
    )
    .map_err(e)?;
    if out.ok { Ok(out.stdout) } else { Err(out.stderr) }
}

fn server_dry_run() -> Result<(), String> {
    let plane = plane_with_crds()?;
    let secret = secret_values();
    let everything = "autoscaling:\n  enabled: true\npodDisruptionBudget:\n  maxUnavailable: 1\nenforcement: audit\nsettings:\n  kubernetesVersion: \"1.37\"\n  featureGates: {DynamicContainers: true}\nwebhook:\n  failurePolicy: Ignore\n  operations: [CREATE, UPDATE]\n  namespaceSelector:\n    matchLabels: {podmut.io/judged: \"true\"}\n  objectSelector:\n    matchLabels: {podmut.io/judged: \"true\"}\nimagePullSecrets: [{name: regcred}]\ntolerations: [{key: dedicated, operator: Equal, value: admission, effect: NoSchedule}]\nnodeSelector: {kubernetes.io/os: linux}\npodAnnotations: {example.com/team: platform}\npodLabels: {example.com/tier: admission}\nextraVolumes: [{name: client-ca, configMap: {name: client-ca}}]\nextraVolumeMounts: [{name: client-ca, mountPath: /etc/podmut/client-ca, readOnly: true}]\nserve:\n  extraArgs: [--client-ca=/etc/podmut/client-ca/ca.crt]\n";
    let issuer = "certificate:\n  certManager:\n    issuerRef: {name: corp-ca, kind: ClusterIssuer, group: cert-manager.io}\n";
    for (what, values) in [
        ("defaults", ""),
        ("a provided Secret", secret.as_str()),
        ("an existing issuer", issuer),
        ("every option", everything),
    ] {
        // A fresh namespace per rendering: one deleted never goes away on a control plane without
        // a namespace controller.
        let ns = exchange::fresh_namespace();
        create_namespace(&plane, &ns)?;
        let objects = render("podmut", &ns, values)?;
        let printed =
            dry_run(&plane, &objects).map_err(|x| format!("{what}: the API server refused:\n{x}"))?;
        // One line per object, `<kind>/<name> created (server dry run)`.
        let created = printed
            .lines()
            .filter(|l| l.ends_with("created (server dry run)"))
            .count();
        if created != objects.len() {
            return Err(format!(
                "{what}: {} objects rendered, {created} created:\n{printed}",
                objects.len()
            ));
        }
    }
    // The check can fail: an object the schema refuses (an unknown field, a string where an
    // integer goes) is refused by the same dry run.
    let ns = exchange::fresh_namespace();
    create_namespace(&plane, &ns)?;
    let objects = render("podmut", &ns, "")?;
    for (what, pointer, value) in [
        (
            "an unknown field",
            "/spec/template/spec/containers/0/resourcez",
            json!({}),
        ),
        ("a string for an integer", "/spec/replicas", json!("two")),
    ] {
        let mut broken = objects.clone();
        for o in &mut broken {
            if o["kind"] == "Deployment" {
                let (parent, key) = pointer.rsplit_once('/').unwrap_or(("", pointer));
                if let Some(m) = o.pointer_mut(parent).and_then(Value::as_object_mut) {
                    m.insert(key.to_owned(), value.clone());
                }
            }
        }
        if dry_run(&plane, &broken).is_ok() {
            return Err(format!("the dry run accepted a Deployment with {what}"));
        }
    }
    Ok(())
}

fn install_upgrade() -> Result<(), String> {
    let plane = plane_with_crds()?;
    let ns = exchange::fresh_namespace();
    let chart = chart_dir().display().to_string();
    let kubeconfig = plane.kubeconfig.display().to_string();
    let helm_in = |args: &[&str]| -> Result<String, String> {
        let mut all = vec!["--kubeconfig", kubeconfig.as_str(), "--namespace", ns.as_str()];
        all.extend_from_slice(args);
        let out = helm(&all, None)?;
        if out.ok {
            Ok(out.stdout)
        } else {
            Err(format!("helm {}:\n{}{}", args.join(" "), out.stdout, out.stderr))
        }
    };
    let notes = helm_in(&["install", "podmut", &chart, "--create-namespace"])?;
    if !notes.contains("kubectl label namespace") || !notes.contains("enforcement deny") {
        return Err(format!("helm install printed no NOTES as expected:\n{notes}"));
    }
    let get = |plane: &ControlPlane, what: &[&str]| -> Result<Value, String> {
        let mut args = vec!["-n", ns.as_str(), "get"];
        args.extend_from_slice(what);
        args.extend(["-o", "json"]);
        let out = kubectl(plane, &args, None).map_err(e)?;
        if !out.ok {
            return Err(format!("kubectl {}:\n{}", args.join(" "), out.stderr));
        }
        serde_json::from_str(&out.stdout).map_err(e)
    };
    let sum = |plane: &ControlPlane| -> Result<String, String> {
        checksum(&get(plane, &["deployment", "podmut-webhook"])?)
    };
    let before = sum(&plane)?;
    helm_in(&["upgrade", "podmut", &chart, "--set", "enforcement=warn"])?;
    let after = sum(&plane)?;
    if before == after {
        return Err("helm upgrade --set enforcement=warn left the Pods' settings checksum".into());
    }
    let cm = get(&plane, &["configmap", "podmut-settings"])?;
    let stored: Value =
        serde_yaml_ng::from_str(cm["data"]["settings.yaml"].as_str().unwrap_or_default()).map_err(e)?;
    expect_eq("the stored settings", &stored, &json!({"enforcement": "warn"}))?;
    // Every object the chart renders is there, cluster-scoped ones included.
    let rendered = render("podmut", &ns, "enforcement: warn\n")?;
    let resource = |o: &Value| -> String {
        let kind = o["kind"].as_str().unwrap_or_default();
        match o["apiVersion"].as_str().and_then(|a| a.split_once('/')) {
            Some((group, _)) => format!("{kind}.{group}"),
            None => kind.to_owned(),
        }
    };
    for o in &rendered {
        let (_, name) = kind_name(o);
        get(&plane, &[&resource(o), &name])?;
    }
    let vwc = get(&plane, &["validatingwebhookconfiguration", "podmut"])?;
    expect_eq(
        "the installed webhook's namespaceSelector",
        &vwc["webhooks"][0]["namespaceSelector"]["matchExpressions"][0]["values"],
        &json!([ns]),
    )?;
    helm_in(&["uninstall", "podmut"])?;
    if get(&plane, &["validatingwebhookconfiguration", "podmut"]).is_ok() {
        return Err("helm uninstall left the ValidatingWebhookConfiguration".into());
    }
    Ok(())
}
