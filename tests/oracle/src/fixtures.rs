//! The conformance fixtures, replayed: each `check` fixture whose request path a release serves is
//! sent to the real API server ([`crate::exchange`]) and podmut — through the component — is
//! asked about the same stored Pod and the same bytes.

use serde_json::Value;

use crate::answer::{self, Agreement, Answer};
use crate::api::PodPath;
use crate::exchange::{self, Exchange};
use crate::plan::Plan;
use crate::pool::Pool;
use crate::{OracleError, api::Reply};

/// What replaying one change found.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Both answered; how they compare, and a report when they disagree.
    Compared {
        /// The aspects they agree on.
        agreement: Agreement,
        /// podmut's and the server's answers side by side, and what was sent.
        report: String,
    },
    /// The server refused to create the old Pod as the fixture has it (it cannot exist in this
    /// release), so there is no change to judge.
    OldRefused(String),
    /// kube-apiserver refused to start with the fixture's feature gates (a gate locked to its
    /// default, or one whose dependencies are off): podmut must refuse the same settings.
    SettingsRefused {
        /// The API server's error, as it logged it.
        server: String,
        /// podmut's whole answer to the fixture with the same settings.
        podmut: Value,
    },
}

impl Outcome {
    /// Whether podmut refused the settings as the API server did: its input error, after the
    /// setting it names (`featureGates.X: `), starts with the server's error (podmut adds the
    /// release it judged).
    pub fn settings_agree(server: &str, podmut: &Value) -> bool {
        let error = podmut.get("inputError");
        let message = error
            .and_then(|e| e.get("message"))
            .or(error)
            .and_then(Value::as_str)
            .unwrap_or_default();
        let named = message.split_once(": ").map_or("", |(_, rest)| rest);
        !server.is_empty() && (message.starts_with(server) || named.starts_with(server))
    }
}

/// The error kube-apiserver logged when it refused its command line (`"command failed" err="..."`).
fn command_refusal(start_error: &str) -> Option<String> {
    let line = start_error.lines().find(|l| l.contains("\"command failed\""))?;
    let err = line.split_once("err=\"")?.1;
    Some(err.strip_suffix('"').unwrap_or(err).replace("\\\"", "\""))
}

/// `PODMUT_ORACLE_NATIVE=1`: ask podmut-core natively instead of the component (a developer's
/// quicker loop while fixing a rule; the conformance suite holds the two equal, and CI always
/// asks the component).
pub fn native() -> bool {
    static NATIVE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *NATIVE
        .get_or_init(|| std::env::var_os("PODMUT_ORACLE_NATIVE").is_some_and(|v| !v.is_empty() && v != "0"))
}

/// podmut's answer, through the component (see [`native`]), to `path` with `old` → `new` and `settings`.
pub fn podmut_answer(path: PodPath, old: Option<&Value>, new: &Value, settings: &Value) -> Value {
    let sub = match podmut::output::parse_subresource(path.podmut_subresource()) {
        Ok(s) => s,
        Err(e) => return serde_json::json!({"caseError": e}),
    };
    let settings = settings.to_string();
    if native() {
        return match path.podmut_subresource().parse::<podmut_core::Subresource>() {
            Ok(sub) => podmut_conformance::check::native_answer(
                old.map(Value::to_string).as_deref(),
                &new.to_string(),
                sub,
                &settings,
            ),
            Err(e) => serde_json::json!({"caseError": e}),
        };
    }
    podmut_conformance::check::wasm_answer(
        old.map(Value::to_string).as_deref(),
        &new.to_string(),
        sub,
        &settings,
    )
}

/// The pinned releases podmut claims: those whose `kubernetesVersion` the component accepts.
pub fn claimed(pins: &crate::Pins) -> Vec<crate::Release> {
    let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "i"}]}});
    pins.kubernetes
        .iter()
        .copied()
        .filter(|r| {
            let settings = serde_json::json!({"kubernetesVersion": r.minor_name()});
            podmut_answer(PodPath::Create, None, &pod, &settings)
                .get("inputError")
                .is_none()
        })
        .collect()
}

/// Replay one planned fixture.
pub async fn replay(pool: &Pool, plan: &Plan) -> Result<Outcome, OracleError> {
    let server = match pool.get(&plan.config).await {
        Ok(server) => server,
        Err(e) => {
            let Some(server) = command_refusal(&e) else {
                return Err(OracleError::Start(e));
            };
            let podmut = podmut_answer(plan.path, plan.old.as_ref(), &plan.new, &plan.settings);
            return Ok(Outcome::SettingsRefused { server, podmut });
        }
    };
    let ns = exchange::fresh_namespace();
    server.api.create_namespace(&ns).await?;
    let ex = match exchange::exchange(
        &server.api,
        &ns,
        plan.path,
        plan.old.as_ref(),
        &plan.new,
        &plan.query,
    )
    .await?
    {
        Ok(ex) => ex,
        Err(refused) => return Ok(Outcome::OldRefused(refusal(&refused))),
    };
    Ok(judge(plan.path, &ex, &plan.settings, plan.config.release))
}

/// `settings` with the Node the oracle created for a bound `stored` Pod as podmut's `nodes`, so
/// that the admission plugins reading it judge the same Node in both.
pub fn with_nodes(settings: &Value, stored: Option<&Value>) -> Value {
    let mut settings = settings.clone();
    let node = stored
        .and_then(|s| s.pointer("/spec/nodeName"))
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty());
    if let (Some(node), Some(obj)) = (node, settings.as_object_mut()) {
        obj.insert("nodes".into(), Value::Array(vec![crate::api::oracle_node(node)]));
    }
    settings
}

/// Compare podmut's answer on an exchange with the server's (of `release`).
pub fn judge(path: PodPath, ex: &Exchange, settings: &Value, release: crate::Release) -> Outcome {
    let settings = &with_nodes(settings, ex.stored.as_ref());
    let podmut_json = podmut_answer(path, ex.stored.as_ref(), &ex.sent, settings);
    let podmut = Answer::from_podmut(&podmut_json);
    let server = server_answer(&ex.reply, &ex.sent, ex.stored.as_ref(), release);
    let agreement = answer::compare(&podmut, &server);
    let report = if agreement.full() && agreement.warnings {
        String::new()
    } else {
        let mut r = answer::report(&podmut, &server, agreement);
        if podmut_json.get("inputError").is_some() || podmut_json.get("caseError").is_some() {
            r.push_str(&format!("  podmut's whole answer: {podmut_json}\n"));
        }
        r.push_str(&format!("  sent ({}): {}\n", path.name(), ex.sent));
        r
    };
    Outcome::Compared { agreement, report }
}

/// A `qos` fixture replayed: the Pod created with `dryRun=All` — the server sets
/// `status.qosClass` as it stores a Pod, after defaulting, with `GetPodQOS` (a class the client
/// sent in `status` wins) — and podmut's QoS class of the same bytes (defaults applied, `GetPodQOS`
/// too). `Err`: the server refused the Pod, so it computed no class.
pub async fn replay_qos(
    pool: &Pool,
    config: &crate::Config,
    pod: &Value,
) -> Result<Result<(String, String), String>, OracleError> {
    let server = pool.get(config).await.map_err(OracleError::Start)?;
    let ns = exchange::fresh_namespace();
    server.api.create_namespace(&ns).await?;
    let sent = exchange::in_namespace(pod, &ns);
    let reply = server
        .api
        .dry_run(&ns, "", PodPath::Create, &sent, "fieldValidation=Ignore")
        .await?;
    if !reply.ok() {
        return Ok(Err(refusal(&reply)));
    }
    let theirs = reply
        .body
        .pointer("/status/qosClass")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    // From 1.37 the create resets the status before it computes the class, so a class the client
    // sent no longer wins: the server's is `ComputePodQOS`, podmut's `--always-compute`.
    let compute = config.release.minor >= 37;
    let answer = if native() {
        podmut_conformance::qos::native_answer(&sent.to_string(), true, compute)
    } else {
        podmut_conformance::qos::wasm_answer(&sent.to_string(), true, compute)
    };
    let ours = answer
        .get("qosClass")
        .and_then(Value::as_str)
        .map_or_else(|| answer.to_string(), str::to_owned);
    Ok(Ok((ours, theirs)))
}

/// The server's answer to `sent`, the name it generated (if any) spelled as podmut spells it.
pub fn server_answer(reply: &Reply, sent: &Value, stored: Option<&Value>, release: crate::Release) -> Answer {
    let mut server = Answer::from_server(reply);
    if let Some(base) = generated_base(sent) {
        server.message = podmut_generated_name(&server.message, &base);
        for c in &mut server.causes {
            c.message = podmut_generated_name(&c.message, &base);
        }
    }
    if let Some(spec) = stored.and_then(|s| s.get("spec")) {
        place_spec_diffs(&mut server, spec, release.minor);
    }
    server
}

/// The diffs of the refusals of a whole spec (`spec: Forbidden: pod updates may not change
/// fields ...`) with their hunks placed in the stored spec as `release` renders it
/// ([`crate::godiff::place_hunks`]).
fn place_spec_diffs(server: &mut Answer, spec: &Value, release: u8) {
    let mut old: Option<String> = None;
    let mut placed: Vec<(String, String)> = Vec::new();
    for c in server.causes.iter_mut().filter(|c| c.field == "spec") {
        if let Some((head, diff)) = c.message.split_once('\n') {
            let old = old.get_or_insert_with(|| podmut_core::GoValue::pod_spec(spec).marshal_indent(release));
            let message = format!("{head}\n{}", crate::godiff::place_hunks(diff, old));
            placed.push((std::mem::replace(&mut c.message, message.clone()), message));
        }
    }
    // The top-level message repeats each cause: it carries the same placed diff.
    for (before, after) in placed {
        server.message = server.message.replace(&before, &after);
    }
}

/// The base of the name the API server generates for `sent` (`metadata.generateName` cut to
/// `maxGeneratedNameLength`) when `sent` has no name.
fn generated_base(sent: &Value) -> Option<String> {
    let meta = sent.get("metadata")?;
    if meta
        .get("name")
        .and_then(Value::as_str)
        .is_some_and(|n| !n.is_empty())
    {
        return None;
    }
    let generate = meta.get("generateName").and_then(Value::as_str)?;
    (!generate.is_empty()).then(|| {
        generate
            .chars()
            .take(podmut_core::MAX_GENERATED_NAME_BASE)
            .collect()
    })
}

/// `text` with each name the API server generated from `base` (`base` and five random characters
/// of `names.SimpleNameGenerator`'s alphabet) spelled as podmut spells it (`base` + `xxxxx`): the
/// suffix is random by design, so it is the only part of a message not compared.
fn podmut_generated_name(text: &str, base: &str) -> String {
    const ALPHABET: &str = "bcdfghjklmnpqrstvwxz2456789";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(base) {
        let after = &rest[at + base.len()..];
        let suffix: String = after.chars().take(5).collect();
        out.push_str(&rest[..at + base.len()]);
        if suffix.len() == 5 && suffix.chars().all(|c| ALPHABET.contains(c)) {
            out.push_str(podmut_core::GENERATED_NAME_SUFFIX);
            rest = &after[5..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// A refusal in one line: code and message.
pub fn refusal(reply: &Reply) -> String {
    format!(
        "HTTP {}: {}",
        reply.code,
        reply
            .body
            .get("message")
            .and_then(Value::as_str)
            .map_or_else(|| reply.body.to_string(), str::to_owned)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_refusal_is_read_from_the_log_line() {
        let log = "I1204 starting\nE1204 12:00:00.000 1 run.go:72] \"command failed\" err=\"cannot set feature gate InPlacePodVerticalScaling to false, feature is locked to true\"\n";
        assert_eq!(
            command_refusal(log).as_deref(),
            Some("cannot set feature gate InPlacePodVerticalScaling to false, feature is locked to true")
        );
        let quoted = "E1 \"command failed\" err=\"a \\\"b\\\" c\"";
        assert_eq!(command_refusal(quoted).as_deref(), Some("a \"b\" c"));
        assert_eq!(command_refusal("E1 listen tcp: address already in use"), None);
    }

    #[test]
    fn settings_agree_when_podmut_refuses_with_the_servers_error() {
        let server = "ClusterTrustBundleProjection is enabled, but depends on features that are disabled: [ClusterTrustBundle]";
        let podmut = serde_json::json!({"inputError": {"message": format!("featureGates.ClusterTrustBundleProjection: {server} (Kubernetes 1.35)")}});
        assert!(Outcome::settings_agree(server, &podmut));
        let plain = serde_json::json!({"inputError": format!("{server} (Kubernetes 1.35)")});
        assert!(Outcome::settings_agree(server, &plain));
        let other =
            serde_json::json!({"inputError": {"message": "featureGates.X: unrecognized feature gate: X"}});
        assert!(!Outcome::settings_agree(server, &other));
        assert!(!Outcome::settings_agree(
            server,
            &serde_json::json!({"allowed": true})
        ));
        assert!(!Outcome::settings_agree("", &podmut));
    }

    #[test]
    fn only_a_generated_suffix_is_spelled_as_podmut_spells_it() {
        assert_eq!(
            podmut_generated_name("pods \"web-k2x9z\" is invalid; web-k2x9z", "web-"),
            "pods \"web-xxxxx\" is invalid; web-xxxxx"
        );
        // Not five letters of the generator's alphabet (no vowels, no 0, 1, 3): left as it is.
        assert_eq!(
            podmut_generated_name("web-abcde web-k2x", "web-"),
            "web-abcde web-k2x"
        );
    }
}
