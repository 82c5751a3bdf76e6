//! The shipped manifests (`policies/deploy`, `policies/vap`) and `podmut coverage` on them and on
//! hand-written configurations, through the built binary.

use serde_json::Value;

use crate::support::{
    documents, expect_bad_input, json_of, output_with_stdin, podmut as command, policies, run as podmut,
    tempdir, write,
};

fn find<'a>(docs: &'a [Value], kind: &str) -> &'a Value {
    docs.iter()
        .find(|d| d["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind}"))
}

#[test]
fn webhook_configuration_registers_every_pod_change_path_fail_closed() {
    let docs = documents(&policies().join("deploy/webhook.yaml"));
    let vwc = find(&docs, "ValidatingWebhookConfiguration");
    assert_eq!(vwc["apiVersion"], "admissionregistration.k8s.io/v1");
    assert_eq!(
        vwc["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
        "podmut-system/podmut-webhook"
    );
    let hooks = vwc["webhooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 1);
    let h = &hooks[0];
    assert_eq!(h["failurePolicy"], "Fail");
    assert_eq!(h["sideEffects"], "None");
    assert_eq!(h["matchPolicy"], "Equivalent");
    assert_eq!(h["admissionReviewVersions"], serde_json::json!(["v1"]));
    let timeout = h["timeoutSeconds"].as_i64().unwrap();
    assert!(
        (1..=10).contains(&timeout),
        "a small timeout, within the API's 1..30: {timeout}"
    );
    assert_eq!(h["clientConfig"]["service"]["path"], "/validate");
    assert_eq!(h["clientConfig"]["service"]["name"], "podmut-webhook");
    let rules = h["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0]["operations"], serde_json::json!(["UPDATE"]));
    assert_eq!(rules[0]["apiGroups"], serde_json::json!([""]));
    assert_eq!(rules[0]["apiVersions"], serde_json::json!(["v1"]));
    let resources: Vec<&str> = rules[0]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert_eq!(
        resources,
        ["pods", "pods/dynamic", "pods/ephemeralcontainers", "pods/resize"]
    );
    // Self-exemption: podmut's own namespace.
    assert_eq!(
        h["namespaceSelector"]["matchExpressions"][0]["values"],
        serde_json::json!(["podmut-system"])
    );
}

#[test]
fn deployment_service_and_certificates_fit_together() {
    let docs = documents(&policies().join("deploy/webhook.yaml"));
    let svc = find(&docs, "Service");
    let deploy = find(&docs, "Deployment");
    let vwc = find(&docs, "ValidatingWebhookConfiguration");
    let ns = "podmut-system";
    assert_eq!(svc["metadata"]["namespace"], ns);
    assert_eq!(deploy["metadata"]["namespace"], ns);
    assert_eq!(vwc["webhooks"][0]["clientConfig"]["service"]["namespace"], ns);
    assert_eq!(
        vwc["webhooks"][0]["clientConfig"]["service"]["name"],
        svc["metadata"]["name"]
    );
    // The Service selects the Deployment's Pods and targets its named port.
    let labels = &deploy["spec"]["template"]["metadata"]["labels"];
    for (k, v) in svc["spec"]["selector"].as_object().unwrap() {
        assert_eq!(&labels[k], v, "selector {k}");
    }
    let c = &deploy["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(c["ports"][0]["name"], svc["spec"]["ports"][0]["targetPort"]);
    let args: Vec<&str> = c["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    // The image's entrypoint is `/podmut serve` (cargo xtask dist): args are serve's flags.
    assert!(
        c.get("command").is_none(),
        "the image's entrypoint runs podmut serve"
    );
    assert!(args.iter().all(|a| a.starts_with("--")), "{args:?}");
    assert!(
        args.contains(&"--no-cache"),
        "read-only root: the precompiled code needs no cache"
    );
    assert!(args.contains(&"--tls-cert=/etc/podmut/tls/tls.crt"));
    assert!(args.contains(&"--tls-key=/etc/podmut/tls/tls.key"));
    assert!(args.contains(&"--log-format=json"));
    assert_eq!(c["livenessProbe"]["httpGet"]["path"], "/healthz");
    assert_eq!(c["readinessProbe"]["httpGet"]["path"], "/readyz");
    // The probes (and Prometheus) use the plain-HTTP probe port, which --client-ca does not guard;
    // the Service, which the API server calls, exposes only the HTTPS port.
    let probe_port = c["ports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "probes")
        .expect("a named probes port");
    let probe_addr = format!("--probe-addr=0.0.0.0:{}", probe_port["containerPort"]);
    assert!(args.contains(&probe_addr.as_str()), "{args:?}");
    for probe in ["startupProbe", "livenessProbe", "readinessProbe"] {
        assert_eq!(c[probe]["httpGet"]["port"], "probes", "{probe}");
        assert_eq!(c[probe]["httpGet"]["scheme"], "HTTP", "{probe}");
    }
    let annotations = &deploy["spec"]["template"]["metadata"]["annotations"];
    assert_eq!(
        annotations["prometheus.io/port"],
        probe_port["containerPort"].to_string()
    );
    assert_eq!(annotations["prometheus.io/scheme"], "http");
    assert!(
        svc["spec"]["ports"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["targetPort"] != "probes"),
        "the probe port is not part of the Service"
    );
    // The settings come from the ConfigMap, which podmut accepts.
    let settings_arg = args.iter().find_map(|a| a.strip_prefix("--settings=")).unwrap();
    let cm = find(&docs, "ConfigMap");
    let mount = c["volumeMounts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| settings_arg.starts_with(m["mountPath"].as_str().unwrap()))
        .expect("the settings file is mounted");
    let volume = deploy["spec"]["template"]["spec"]["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == mount["name"])
        .unwrap();
    assert_eq!(volume["configMap"]["name"], cm["metadata"]["name"]);
    let file = std::path::Path::new(settings_arg)
        .file_name()
        .unwrap()
        .to_str()
        .unwrap();
    let profile = cm["data"][file]
        .as_str()
        .expect("the ConfigMap holds the settings file");
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join("settings.yaml");
    std::fs::write(&settings, profile).unwrap();
    let examples = policies().join("examples/01-image-update");
    let o = podmut(&[
        "check",
        "--old",
        examples.join("old.yaml").to_str().unwrap(),
        "--new",
        examples.join("new.yaml").to_str().unwrap(),
        "--settings",
        settings.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(c["resources"]["limits"]["memory"].is_string());
    assert!(c["resources"]["requests"]["cpu"].is_string());
    let sc = &c["securityContext"];
    assert_eq!(sc["allowPrivilegeEscalation"], false);
    assert_eq!(sc["readOnlyRootFilesystem"], true);
    assert_eq!(sc["capabilities"]["drop"], serde_json::json!(["ALL"]));
    assert_eq!(
        deploy["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"],
        true
    );
    // The Secret the Deployment mounts is the one cert-manager writes, for the Service's DNS name.
    let secret = deploy["spec"]["template"]["spec"]["volumes"][0]["secret"]["secretName"]
        .as_str()
        .unwrap();
    let certs = documents(&policies().join("deploy/cert-manager.yaml"));
    let serving = certs
        .iter()
        .find(|d| d["kind"] == "Certificate" && d["metadata"]["name"] == "podmut-webhook")
        .unwrap();
    assert_eq!(serving["spec"]["secretName"], secret);
    assert_eq!(serving["metadata"]["namespace"], ns);
    let dns: Vec<&str> = serving["spec"]["dnsNames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap())
        .collect();
    assert!(dns.contains(&"podmut-webhook.podmut-system.svc"));
    // The CA injected into the webhook is this Certificate's.
    assert_eq!(
        vwc["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
        format!("{ns}/{}", serving["metadata"]["name"].as_str().unwrap())
    );
    let kustomization = std::fs::read_to_string(policies().join("deploy/kustomization.yaml")).unwrap();
    assert!(kustomization.contains("webhook.yaml") && kustomization.contains("cert-manager.yaml"));
}

/// The playground's profile selector carries policies/strict.yaml's setting (the page cannot read
/// the file).
#[test]
fn the_playground_strict_profile_is_policies_strict_yaml() {
    let strict: Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(policies().join("strict.yaml")).unwrap()).unwrap();
    let app = std::fs::read_to_string(policies().join("../web/app.js")).unwrap();
    let line = app
        .lines()
        .find(|l| l.starts_with("const PROFILES = "))
        .expect("PROFILES in web/app.js");
    let quoted = line
        .split("strict: '")
        .nth(1)
        .and_then(|r| r.split('\'').next())
        .unwrap();
    let page: Value = serde_json::from_str(quoted).unwrap();
    assert_eq!(page, strict, "web/app.js PROFILES.strict != policies/strict.yaml");
}

#[test]
fn the_deployment_runs_the_dist_image_and_scales_on_cpu() {
    let docs = documents(&policies().join("deploy/webhook.yaml"));
    let deploy = find(&docs, "Deployment");
    let pdb = find(&docs, "PodDisruptionBudget");
    let c = &deploy["spec"]["template"]["spec"]["containers"][0];
    let image = c["image"].as_str().unwrap();
    let (name, tag) = image.rsplit_once(':').unwrap();
    assert_eq!(tag, env!("CARGO_PKG_VERSION"), "the image of this release");

    // kustomize's images: override names exactly that image, so a user's registry replaces it.
    let kustomization: serde_json::Value = serde_yaml_ng::from_str(
        &std::fs::read_to_string(policies().join("deploy/kustomization.yaml")).unwrap(),
    )
    .unwrap();
    let images = kustomization["images"].as_array().unwrap();
    assert_eq!(images.len(), 1);
    assert_eq!(images[0]["name"], name);
    assert_eq!(images[0]["newTag"], tag);
    let resources: Vec<&str> = kustomization["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert!(resources.contains(&"hpa.yaml"), "{resources:?}");

    // The image's user, and the Pod's, are the same numeric non-root user.
    let pod_sc = &deploy["spec"]["template"]["spec"]["securityContext"];
    assert_eq!(pod_sc["runAsUser"], 65532);
    assert_eq!(pod_sc["runAsGroup"], 65532);

    // Requests for scheduling and the autoscaler, a memory limit above them.
    let requests = &c["resources"]["requests"];
    let mem = |q: &serde_json::Value| -> u64 {
        let q = q.as_str().unwrap();
        q.strip_suffix("Mi").unwrap().parse::<u64>().unwrap()
    };
    assert!(requests["cpu"].as_str().unwrap().ends_with('m'));
    assert!(
        mem(&requests["memory"]) >= 60,
        "at least the dist binary's measured ~59 MiB RSS under load (BENCHMARKS.md)"
    );
    assert!(mem(&c["resources"]["limits"]["memory"]) > mem(&requests["memory"]));

    let hpa = documents(&policies().join("deploy/hpa.yaml"));
    let hpa = find(&hpa, "HorizontalPodAutoscaler");
    assert_eq!(hpa["apiVersion"], "autoscaling/v2");
    assert_eq!(hpa["metadata"]["namespace"], deploy["metadata"]["namespace"]);
    let target = &hpa["spec"]["scaleTargetRef"];
    assert_eq!(target["kind"], "Deployment");
    assert_eq!(target["apiVersion"], "apps/v1");
    assert_eq!(target["name"], deploy["metadata"]["name"]);
    assert_eq!(hpa["spec"]["minReplicas"], deploy["spec"]["replicas"]);
    assert!(hpa["spec"]["maxReplicas"].as_u64().unwrap() > hpa["spec"]["minReplicas"].as_u64().unwrap());
    assert!(
        hpa["spec"]["minReplicas"].as_i64().unwrap() > pdb["spec"]["minAvailable"].as_i64().unwrap(),
        "a drain never takes the webhook below the PodDisruptionBudget"
    );
    let metric = &hpa["spec"]["metrics"][0];
    assert_eq!(metric["type"], "Resource");
    assert_eq!(metric["resource"]["name"], "cpu");
    assert_eq!(metric["resource"]["target"]["type"], "Utilization");
}

#[test]
fn kep_sample_policies_are_shipped_with_bindings() {
    for (file, name, resources) in [
        (
            "vap/disable-dynamic-containers.yaml",
            "disable-dynamic-containers",
            vec!["pods/dynamic"],
        ),
        (
            "vap/pod-intent-immutable.yaml",
            "pod-intent-immutable",
            vec!["pods", "pods/*"],
        ),
    ] {
        let docs = documents(&policies().join(file));
        let policy = find(&docs, "ValidatingAdmissionPolicy");
        let binding = find(&docs, "ValidatingAdmissionPolicyBinding");
        assert_eq!(policy["metadata"]["name"], name);
        assert_eq!(policy["spec"]["failurePolicy"], "Fail");
        let rules = &policy["spec"]["matchConstraints"]["resourceRules"][0];
        let got: Vec<&str> = rules["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        assert_eq!(got, resources, "{file}");
        assert_eq!(rules["operations"], serde_json::json!(["UPDATE"]));
        assert!(!policy["spec"]["validations"].as_array().unwrap().is_empty());
        assert_eq!(binding["spec"]["policyName"], name);
        assert_eq!(binding["spec"]["validationActions"], serde_json::json!(["Deny"]));
    }
}

#[test]
fn shipped_configuration_passes_the_fail_closed_rule() {
    for file in [
        "deploy/webhook.yaml",
        "vap/disable-dynamic-containers.yaml",
        "vap/pod-intent-immutable.yaml",
    ] {
        let path = policies().join(file);
        let o = podmut(&["coverage", path.to_str().unwrap(), "-o", "json"]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{file}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let v = json_of(&o);
        assert_eq!(v["dynamicAllowed"], true, "{file}: {v}");
        assert!(
            !v["handlers"].as_array().unwrap().is_empty(),
            "{file}: examined something"
        );
    }
    // Non-admission objects in the stream are listed, not errors.
    let o = podmut(&[
        "coverage",
        policies().join("deploy/webhook.yaml").to_str().unwrap(),
        "-o",
        "json",
    ]);
    let ignored = json_of(&o)["ignored"].to_string();
    assert!(ignored.contains("Deployment/podmut-webhook"), "{ignored}");
}

const LEGACY: &str = r#"
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: legacy}
webhooks:
- name: pods.legacy.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig: {url: "https://legacy.example.com/validate"}
  namespaceSelector: {matchLabels: {team: payments}}
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}
"#;

#[test]
fn coverage_cli_reports_blockers_with_exit_1_and_the_fix() {
    let dir = tempdir();
    let f = write(dir.path(), "legacy.yaml", LEGACY);
    let o = podmut(&["coverage", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("REJECTED by the fail-closed rule"), "{text}");
    assert!(
        text.contains("BLOCKS ValidatingWebhookConfiguration legacy/pods.legacy.example.com"),
        "{text}"
    );
    assert!(
        text.contains("fix: add \"pods/dynamic\" to webhooks[0].rules[0].resources"),
        "{text}"
    );
    let v = json_of(&podmut(&["coverage", f.to_str().unwrap(), "-o", "json"]));
    assert_eq!(v["handlers"][0]["blocksDynamic"], true);
    assert_eq!(v["handlers"][0]["interceptsPods"], true);
    assert_eq!(v["handlers"][0]["interceptsDynamic"], false);
}

#[test]
fn coverage_cli_scopes_by_namespace_labels() {
    let dir = tempdir();
    let f = write(dir.path(), "legacy.yaml", LEGACY);
    let other = podmut(&[
        "coverage",
        f.to_str().unwrap(),
        "--namespace",
        "web",
        "--namespace-labels",
        "team=web",
        "-o",
        "json",
    ]);
    assert_eq!(
        other.status.code(),
        Some(0),
        "another team's namespace is out of the webhook's scope"
    );
    let v = json_of(&other);
    assert_eq!(v["handlers"][0]["inScope"], false);
    let payments = podmut(&[
        "coverage",
        f.to_str().unwrap(),
        "--namespace-labels",
        "team=payments",
        "-o",
        "yaml",
    ]);
    assert_eq!(payments.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&payments.stdout).contains("blocksDynamic: true"));
}

#[test]
fn coverage_cli_reads_stdin_and_explains_bad_input() {
    let mut cmd = command();
    cmd.args(["coverage", "-", "-o", "json"]);
    let stdin = LEGACY.replace(
        "[CREATE, UPDATE], resources: [pods]",
        "[UPDATE], resources: [\"pods/*\"]",
    );
    let o = output_with_stdin(cmd, stdin.as_bytes());
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(json_of(&o)["dynamicAllowed"], true);

    let dir = tempdir();
    let bad = write(
        dir.path(),
        "bad.yaml",
        &LEGACY.replace("[CREATE, UPDATE]", "[CREATE, PATCH]"),
    );
    let o = podmut(&["coverage", bad.to_str().unwrap()]);
    expect_bad_input(&o, "bad.yaml");
    expect_bad_input(
        &o,
        "webhooks[0].rules[0].operations[1]: Unsupported value: \"PATCH\"",
    );
    let o = podmut(&["coverage", "--pod-labels", "novalue", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}
