//! `podmut test --server-dry-run` against real API servers (`cargo xtask oracle test`; CI).
//!
//! - `suites/examples/<release>`: the repository's example suite (`policies/examples`), with its
//!   policy installed in the server, passes against a control plane of every release podmut
//!   claims: every case the server can take agrees with podmut (verdict, and the causes of a
//!   refusal), the `pods/dynamic` case is reported as not sent, and the JUnit file lists each case;
//! - `suites/library/<entry>`: each entry of the policy library (`policies/library`), its policy
//!   installed in a control plane of the newest release, passes its suite with every case agreeing
//!   with the server (the API server loads policies asynchronously: the suite is run again until it
//!   passes, for at most 30 seconds, and the last run's report is the failure);
//! - `suites/disagreement-fails`: a suite whose settings differ from the server's
//!   (`allowPrivileged: false` against a server started with `--allow-privileged=true`) passes
//!   offline and fails with `--server-dry-run`, naming the server's answer.
//!
//! Without the control-plane binaries or the podmut binary, the cases are reported as ignored, or
//! fail under `PODMUT_REQUIRE_ORACLE=1` ([`podmut_oracle::prerequisite`]).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use http::Method;
use libtest_mimic::{Arguments, Failed, Trial};
use podmut_oracle::api::Api;
use podmut_oracle::control_plane::{self, Config, ControlPlane};
use podmut_oracle::prerequisite::Prerequisites;
use podmut_oracle::webhook::podmut_binary;
use podmut_oracle::{Pins, Release, exchange, policies, runtime};
use serde_json::{Value, json};

fn e(x: impl std::fmt::Display) -> String {
    x.to_string()
}

fn main() -> std::process::ExitCode {
    let args = Arguments::from_args();
    let claimed = Pins::load()
        .map(|pins| podmut_oracle::fixtures::claimed(&pins))
        .unwrap_or_default();
    let missing = (if claimed.is_empty() {
        Err("no pinned release podmut claims".to_owned())
    } else {
        claimed
            .iter()
            .try_for_each(|r| control_plane::binaries(*r).map(|_| ()).map_err(e))
    })
    .and_then(|()| podmut_binary().map(|_| ()).map_err(e))
    .err();
    let needs = Prerequisites::new(missing);
    let mut trials: Vec<Trial> = claimed
        .iter()
        .map(|r| {
            let release = *r;
            needs.trial(format!("suites/examples/{release}"), "", move || {
                examples(release).map_err(Failed::from)
            })
        })
        .collect();
    if let Some(newest) = claimed.iter().max().copied() {
        trials.push(needs.trial("suites/disagreement-fails", "", move || {
            disagreement_fails(newest).map_err(Failed::from)
        }));
        for dir in LIBRARY {
            trials.push(needs.trial(format!("suites/library/{dir}"), "", move || {
                library(newest, dir).map_err(Failed::from)
            }));
        }
    }
    libtest_mimic::run(&args, trials).exit_code()
}

/// The policy library's entries (`policies/library/<dir>`).
const LIBRARY: [&str; 4] = [
    "resize-limits",
    "ephemeral-break-glass",
    "freeze-metadata",
    "resize-fits-node",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// What `podmut test` did.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn podmut_test(plane: &ControlPlane, args: &[&str], cache: &Path) -> Result<Run, String> {
    let mut c = Command::new(podmut_binary().map_err(e)?);
    c.arg("test")
        .args(args)
        .env("KUBECONFIG", &plane.kubeconfig)
        .env("PODMUT_CACHE_DIR", cache);
    let out = c.output().map_err(|x| format!("{c:?}: {x}"))?;
    Ok(Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

/// Wait until the pod-intent-immutable policy refuses an image update in a labelled namespace
/// (the API server loads policies asynchronously).
async fn wait_for_immutable(api: &Api) -> Result<(), String> {
    let ns = exchange::fresh_namespace();
    let labels = json!({"podmut.io/pod-intent": "immutable"});
    let labels = labels.as_object().cloned().unwrap_or_default();
    api.create_labelled_namespace(&ns, &labels).await.map_err(e)?;
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "probe", "namespace": ns},
        "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}});
    let stored = api
        .create_pod(&ns, &pod)
        .await
        .map_err(e)?
        .into_ok("create the probe Pod")
        .map_err(e)?;
    let mut changed = stored.clone();
    changed["spec"]["containers"][0]["image"] = json!("nginx:1.28");
    policies::wait_until_refused(
        api,
        Method::PUT,
        &format!("/api/v1/namespaces/{ns}/pods/probe?dryRun=All"),
        &changed,
        "the pod-intent-immutable policy",
    )
    .await
}

fn examples(release: Release) -> Result<(), String> {
    let plane = runtime()
        .block_on(ControlPlane::start(&Config::stock(release)))
        .map_err(e)?;
    let api = runtime().block_on(plane.client()).map_err(e)?;
    let root = workspace();
    runtime().block_on(async {
        policies::create(
            &api,
            &policies::read_stream(&root.join("policies/vap/pod-intent-immutable.yaml"))?,
        )
        .await?;
        wait_for_immutable(&api).await
    })?;
    let dir = tempfile::tempdir().map_err(e)?;
    let junit = dir.path().join("junit.xml");
    let examples = root.join("policies/examples");
    let run = podmut_test(
        &plane,
        &[
            &examples.display().to_string(),
            "--server-dry-run",
            "-o",
            "json",
            "--junit",
            &junit.display().to_string(),
        ],
        &dir.path().join("cache"),
    )?;
    let report: Value = serde_json::from_str(&run.stdout).map_err(|x| {
        format!(
            "exit {:?}; stdout is not JSON ({x}): {}{}",
            run.code, run.stdout, run.stderr
        )
    })?;
    let cases = report["cases"].as_array().cloned().unwrap_or_default();
    let mut problems = Vec::new();
    for c in &cases {
        let name = format!(
            "{}/{}",
            c["suite"].as_str().unwrap_or("?"),
            c["name"].as_str().unwrap_or("?")
        );
        let dynamic = c["name"].as_str().unwrap_or_default().contains("pods/dynamic");
        let server = &c["server"];
        match (server["result"].as_str(), dynamic) {
            (Some("agree"), false) => {}
            (Some("skipped"), true)
                if server["reason"]
                    .as_str()
                    .unwrap_or_default()
                    .contains("pods/dynamic") => {}
            _ => problems.push(format!("{name}: {c}")),
        }
        if c["result"] != "pass" {
            problems.push(format!("{name} did not pass: {}", c["problems"]));
        }
    }
    if run.code != Some(0) || cases.len() < 10 || !problems.is_empty() {
        return Err(format!(
            "podmut test against {release}: exit {:?}, {} cases\n{}\nstderr: {}",
            run.code,
            cases.len(),
            problems.join("\n"),
            run.stderr
        ));
    }
    let xml = std::fs::read_to_string(&junit).map_err(e)?;
    let testcases = xml.matches("<testcase ").count();
    if testcases != cases.len() || xml.contains("<failure") {
        return Err(format!(
            "the JUnit file has {testcases} testcases for {} cases:\n{xml}",
            cases.len()
        ));
    }
    Ok(())
}

fn disagreement_fails(release: Release) -> Result<(), String> {
    let plane = runtime()
        .block_on(ControlPlane::start(&Config::stock(release)))
        .map_err(e)?;
    let dir = tempfile::tempdir().map_err(e)?;
    let suite = dir.path().join("suite.yaml");
    std::fs::write(
        &suite,
        "apiVersion: podmut.io/v1alpha1\nkind: Test\nmetadata: {name: stricter}\n\
         settings: {allowPrivileged: false}\ncases:\n\
         - name: a privileged Pod\n  new:\n    apiVersion: v1\n    kind: Pod\n    metadata: {name: p}\n    \
         spec:\n      containers:\n      - {name: a, image: busybox, securityContext: {privileged: true}}\n  \
         expect:\n    allowed: false\n",
    )
    .map_err(e)?;
    let cache = dir.path().join("cache");
    let offline = podmut_test(&plane, &[&suite.display().to_string()], &cache)?;
    if offline.code != Some(0) || !offline.stdout.contains("1 passed, 0 failed") {
        return Err(format!(
            "offline: exit {:?}\n{}{}",
            offline.code, offline.stdout, offline.stderr
        ));
    }
    let live = podmut_test(
        &plane,
        &[&suite.display().to_string(), "--server-dry-run"],
        &cache,
    )?;
    let said = live.stdout.contains("FAIL  stricter/a privileged Pod")
        && live
            .stdout
            .contains("server dry run: the server allows it; podmut denies")
        && live.stdout.contains("0 passed, 1 failed");
    if live.code != Some(1) || !said {
        return Err(format!(
            "with --server-dry-run: exit {:?}\n{}{}",
            live.code, live.stdout, live.stderr
        ));
    }
    Ok(())
}

fn library(release: Release, dir: &str) -> Result<(), String> {
    let plane = runtime()
        .block_on(ControlPlane::start(&Config::stock(release)))
        .map_err(e)?;
    let api = runtime().block_on(plane.client()).map_err(e)?;
    let entry = workspace().join("policies/library").join(dir);
    let policy = entry.join("policy.yaml");
    if policy.is_file() {
        runtime().block_on(policies::create(&api, &policies::read_stream(&policy)?))?;
    }
    let scratch = tempfile::tempdir().map_err(e)?;
    let args = [
        entry.display().to_string(),
        "--server-dry-run".into(),
        "-o".into(),
        "json".into(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let run = podmut_test(&plane, &args, &scratch.path().join("cache"))?;
        let report: Value = serde_json::from_str(&run.stdout).map_err(|x| {
            format!(
                "exit {:?}; stdout is not JSON ({x}): {}{}",
                run.code, run.stdout, run.stderr
            )
        })?;
        let cases = report["cases"].as_array().cloned().unwrap_or_default();
        // The settings suites are podmut's alone: the server has the policy instead.
        let own_settings = |c: &Value| {
            c["server"]["result"] == "skipped"
                && c["server"]["reason"]
                    .as_str()
                    .is_some_and(|r| r.contains("podmut's own settings"))
        };
        let all_agree = cases
            .iter()
            .all(|c| (c["server"]["result"] == "agree" || own_settings(c)) && c["result"] == "pass");
        let agreed = cases.iter().filter(|c| c["server"]["result"] == "agree").count();
        if run.code == Some(0) && agreed > 0 && all_agree {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!(
                "podmut test {dir} --server-dry-run against {release}: exit {:?}\n{}\n{}",
                run.code,
                serde_json::to_string_pretty(&report).unwrap_or_default(),
                run.stderr
            ));
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}
