//! `podmut test --server-dry-run`: each case sent to a real cluster as well, through the user's
//! kubeconfig, and the server's answer compared with podmut's.
//!
//! A create is sent as a dry run. For an update the old Pod is created for real in a namespace
//! made for the run (`podmut-test-…`, one per set of namespace labels the cases give, with a
//! `default` ServiceAccount that mounts no token; the Pod's ephemeral containers go through their
//! subresource, its status through `/status`), then the case's change is applied to the Pod the server stored and
//! sent with `dryRun=All` on the case's path, and the Pod is deleted. The Nodes the suite gives are
//! created when the cluster lacks them, and deleted at the end with the namespace. Use a test
//! cluster: the old Pods are real objects for as long as a case runs.

use http::Method;
use podmut_model::settings::Settings;
use serde_json::{Value, json};

use super::judge::Answer;
use super::suite::Case;
use crate::cli::Failure;
use crate::cluster::{Cluster, ClusterError, Connection, DryRun, Reply};
use crate::replay::{apply_change, creatable, in_namespace};

/// The query of every dry run: what kubectl sends with `--dry-run=server`.
const DRY_RUN: &str = "dryRun=All&fieldValidation=Strict";

/// A cluster the cases are also sent to.
pub(crate) struct Server {
    cluster: Cluster,
    runtime: tokio::runtime::Runtime,
    /// The namespaces made for the run, one per set of namespace labels the cases give.
    namespaces: Vec<(Vec<(String, String)>, String)>,
    created_nodes: Vec<String>,
    /// The server's `gitVersion`.
    pub(crate) version: String,
    /// The server's release (`1.37`), what cases that name none are judged as.
    pub(crate) minor: String,
}

/// What the server made of one case.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// Its answer, and how it differs from podmut's (nothing when they agree).
    Answered {
        /// The server's answer.
        answer: DryRun,
        /// The differences, one line each.
        disagreements: Vec<String>,
    },
    /// The case cannot be sent, and why (it is judged offline only).
    Skipped(String),
    /// The case could not be replayed (the old Pod cannot be created, a request failed).
    Failed(String),
}

fn failure(e: &ClusterError) -> Failure {
    Failure::input(format!("--server-dry-run: {e}"))
}

impl Server {
    /// Connect, read the release and create the run's namespace.
    pub(crate) fn connect(connection: &Connection) -> Result<Self, Failure> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Failure::internal(format!("cannot start the network runtime: {e}")))?;
        let (cluster, version) = runtime.block_on(async {
            let cluster = Cluster::connect(connection).await.map_err(|e| failure(&e))?;
            let version = cluster.version().await.map_err(|e| failure(&e))?;
            Ok::<_, Failure>((cluster, version))
        })?;
        Ok(Server {
            cluster,
            runtime,
            namespaces: Vec::new(),
            created_nodes: Vec::new(),
            version: version.git_version,
            minor: version.minor,
        })
    }

    /// The namespace for cases with these labels, created on first use.
    fn namespace_for(&mut self, labels: &[(String, String)]) -> Result<String, String> {
        if let Some((_, ns)) = self.namespaces.iter().find(|(l, _)| l == labels) {
            return Ok(ns.clone());
        }
        let name = fresh_namespace(self.namespaces.len());
        let mut map: serde_json::Map<String, Value> = labels
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        map.insert("app.kubernetes.io/managed-by".into(), json!("podmut-test"));
        let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": map}});
        let reply = self
            .send(Method::POST, "/api/v1/namespaces", Some(&ns))
            .map_err(|f| f.message().to_owned())?;
        accepted(reply, &format!("create the namespace {name}"))?;
        // What the ServiceAccount admission plugin looks up for every Pod (a cluster's controller
        // makes it too; then this create is a harmless conflict).
        let sa = json!({"apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": "default", "namespace": name}, "automountServiceAccountToken": false});
        let reply = self
            .send(
                Method::POST,
                &format!("/api/v1/namespaces/{name}/serviceaccounts"),
                Some(&sa),
            )
            .map_err(|f| f.message().to_owned())?;
        if reply.code != 409 {
            accepted(reply, &format!("create the ServiceAccount {name}/default"))?;
        }
        self.namespaces.push((labels.to_vec(), name.clone()));
        Ok(name)
    }

    /// The namespaces the cases ran in.
    pub(crate) fn namespaces(&self) -> Vec<String> {
        self.namespaces.iter().map(|(_, n)| n.clone()).collect()
    }

    fn send(&self, method: Method, path: &str, body: Option<&Value>) -> Result<Reply, Failure> {
        self.runtime
            .block_on(self.cluster.send(method, path, body))
            .map_err(|e| failure(&e))
    }

    /// Send one case and compare the answer with podmut's.
    pub(crate) fn run(&mut self, case: &Case, podmut: &Answer) -> Outcome {
        match self.replay(case, podmut) {
            Ok(Ok(answer)) => {
                let disagreements = compare(podmut, &answer);
                Outcome::Answered {
                    answer,
                    disagreements,
                }
            }
            Ok(Err(skip)) => Outcome::Skipped(skip),
            Err(e) => Outcome::Failed(e),
        }
    }

    fn replay(&mut self, case: &Case, podmut: &Answer) -> Result<Result<DryRun, String>, String> {
        let kind = podmut.new.get("kind").and_then(Value::as_str).unwrap_or_default();
        if kind != "Pod" {
            return Ok(Err(format!(
                "a {kind} is judged offline only (podmut sends Pods)"
            )));
        }
        let settings =
            Settings::from_value(&Value::Object(case.settings.clone())).map_err(|e| e.to_string())?;
        let own = settings.podmut_policies();
        if !own.is_empty() {
            return Ok(Err(format!(
                "judged by podmut's own settings ({}), which no server has: test the policies `podmut vap generate` writes for them",
                own.join(", ")
            )));
        }
        let ns = self.namespace_for(&case.namespace_labels)?;
        let new = in_namespace(&podmut.new, &ns);
        let pods = format!("/api/v1/namespaces/{ns}/pods");
        let Some(old) = &case.old else {
            let reply = self.send(Method::POST, &format!("{pods}?{DRY_RUN}"), Some(&new));
            return reply
                .map(|r| Ok(DryRun::from(r)))
                .map_err(|f| f.message().to_owned());
        };
        let old = in_namespace(old, &ns);
        self.ensure_nodes(case, &old)?;
        let stored = self.create_old(&pods, &old)?;
        let name = stored
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let sent = apply_change(&stored, &old, &new);
        let path = match case.subresource.as_str() {
            "" | "none" => format!("{pods}/{name}"),
            sub => format!("{pods}/{name}/{sub}"),
        };
        let answer = sent.and_then(|sent| {
            self.send(Method::PUT, &format!("{path}?{DRY_RUN}"), Some(&sent))
                .map_err(|f| f.message().to_owned())
        });
        let deleted = self.send(
            Method::DELETE,
            &format!("{pods}/{name}?gracePeriodSeconds=0"),
            None,
        );
        let answer = answer?;
        if let Err(e) = deleted {
            return Err(format!("cannot delete the old Pod {ns}/{name}: {}", e.message()));
        }
        if answer.code == 404 && !case.subresource.is_empty() {
            return Ok(Err(format!("the server has no pods/{}", case.subresource)));
        }
        Ok(Ok(DryRun::from(answer)))
    }

    /// The suite's Nodes that a bound old Pod names, created when the cluster lacks them.
    fn ensure_nodes(&mut self, case: &Case, old: &Value) -> Result<(), String> {
        let Some(name) = old.pointer("/spec/nodeName").and_then(Value::as_str) else {
            return Ok(());
        };
        let Some(node) = case
            .nodes
            .iter()
            .find(|n| n.pointer("/metadata/name").and_then(Value::as_str) == Some(name))
        else {
            return Ok(());
        };
        let path = format!("/api/v1/nodes/{name}");
        let have = self
            .send(Method::GET, &path, None)
            .map_err(|f| f.message().to_owned())?;
        if have.ok() || self.created_nodes.iter().any(|n| n == name) {
            return Ok(());
        }
        let created = self
            .send(Method::POST, "/api/v1/nodes", Some(&creatable(node, None)))
            .map_err(|f| f.message().to_owned())?;
        if !created.ok() {
            return Err(format!(
                "cannot create the Node {name}: HTTP {}: {}",
                created.code,
                created.message()
            ));
        }
        self.created_nodes.push(name.to_owned());
        if let Some(status) = node.get("status") {
            let mut body = created.body;
            body["status"] = status.clone();
            let reply = self
                .send(Method::PUT, &format!("{path}/status"), Some(&body))
                .map_err(|f| f.message().to_owned())?;
            if !reply.ok() {
                return Err(format!(
                    "cannot write the Node {name}'s status: HTTP {}: {}",
                    reply.code,
                    reply.message()
                ));
            }
        }
        Ok(())
    }

    /// Create the old Pod and bring it to the case's state: ephemeral containers, then status.
    fn create_old(&self, pods: &str, old: &Value) -> Result<Value, String> {
        let created = self
            .send(Method::POST, pods, Some(&creatable(old, None)))
            .map_err(|f| f.message().to_owned())?;
        let mut stored = accepted(created, "create the old Pod")?;
        let name = stored
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if let Some(e) = old
            .pointer("/spec/ephemeralContainers")
            .filter(|e| e.as_array().is_some_and(|a| !a.is_empty()))
        {
            let mut body = stored.clone();
            body["spec"]["ephemeralContainers"] = e.clone();
            let reply = self
                .send(
                    Method::PUT,
                    &format!("{pods}/{name}/ephemeralcontainers"),
                    Some(&body),
                )
                .map_err(|f| f.message().to_owned())?;
            stored = accepted(reply, "add the old Pod's ephemeral containers")?;
        }
        if let Some(status) = old
            .get("status")
            .and_then(Value::as_object)
            .filter(|s| !s.is_empty())
        {
            let mut body = stored.clone();
            match body.get_mut("status").and_then(Value::as_object_mut) {
                Some(s) => s.extend(status.clone()),
                None => body["status"] = Value::Object(status.clone()),
            }
            let reply = self
                .send(Method::PUT, &format!("{pods}/{name}/status"), Some(&body))
                .map_err(|f| f.message().to_owned())?;
            stored = accepted(reply, "write the old Pod's status")?;
        }
        Ok(stored)
    }

    /// Delete the run's namespace and the Nodes it created; what could not be deleted.
    pub(crate) fn close(self) -> Vec<String> {
        let mut left = Vec::new();
        for node in &self.created_nodes {
            match self.send(Method::DELETE, &format!("/api/v1/nodes/{node}"), None) {
                Ok(r) if r.ok() => {}
                Ok(r) => left.push(format!("Node {node}: {}", r.message())),
                Err(f) => left.push(format!("Node {node}: {}", f.message())),
            }
        }
        for (_, ns) in &self.namespaces {
            match self.send(Method::DELETE, &format!("/api/v1/namespaces/{ns}"), None) {
                Ok(r) if r.ok() => {}
                Ok(r) => left.push(format!("namespace {ns}: {}", r.message())),
                Err(f) => left.push(format!("namespace {ns}: {}", f.message())),
            }
        }
        left
    }
}

fn accepted(reply: Reply, what: &str) -> Result<Value, String> {
    if reply.ok() {
        Ok(reply.body)
    } else {
        Err(format!("cannot {what}: HTTP {}: {}", reply.code, reply.message()))
    }
}

/// `podmut-test-<pid>-<seconds>-<n>`: a name no earlier run used (a deleted namespace may
/// linger).
fn fresh_namespace(n: usize) -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    format!("podmut-test-{:x}-{secs:x}-{n}", std::process::id())
}

/// How the server's answer differs from podmut's: the verdict, then (both refusing) the causes
/// when the rules refused, or the message when only a policy did.
pub(crate) fn compare(podmut: &Answer, server: &DryRun) -> Vec<String> {
    if podmut.allowed != server.allowed {
        return vec![if server.allowed {
            format!("the server allows it; podmut denies: {}", podmut.message)
        } else {
            format!("the server denies it (HTTP {}): {}", server.code, server.message)
        }];
    }
    if server.allowed {
        return Vec::new();
    }
    if podmut.errors.is_empty() {
        if podmut.message != server.message {
            return vec![format!(
                "the server's message differs: server {:?}, podmut {:?}",
                server.message, podmut.message
            )];
        }
        return Vec::new();
    }
    let mut ours: Vec<(String, String)> = podmut
        .errors
        .iter()
        .map(|e| (e.type_.clone(), e.field.clone()))
        .collect();
    let mut theirs = server.causes.clone();
    ours.sort();
    theirs.sort();
    if ours == theirs {
        return Vec::new();
    }
    let show = |v: &[(String, String)]| {
        v.iter()
            .map(|(t, f)| format!("{t} {f}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    vec![format!(
        "the server's causes differ: server [{}], podmut [{}]",
        show(&theirs),
        show(&ours)
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test::judge::Cause;

    fn podmut(allowed: bool, causes: &[(&str, &str)], message: &str) -> Answer {
        Answer {
            allowed,
            message: message.into(),
            errors: causes
                .iter()
                .map(|(t, f)| Cause {
                    type_: (*t).into(),
                    field: (*f).into(),
                    origin: String::new(),
                    message: String::new(),
                })
                .collect(),
            warnings: Vec::new(),
            qos_class: None,
            vap: None,
            new: json!({}),
        }
    }

    fn server(code: u16, causes: &[(&str, &str)], message: &str) -> DryRun {
        DryRun::from(Reply {
            code,
            warnings: Vec::new(),
            body: json!({"kind": "Status", "message": message, "reason": "Invalid",
                "details": {"causes": causes.iter().map(|(t, f)| json!({"reason": t, "field": f})).collect::<Vec<_>>()}}),
        })
    }

    #[test]
    fn the_same_verdict_and_causes_agree_in_any_order() {
        let ours = podmut(
            false,
            &[("FieldValueForbidden", "spec"), ("FieldValueInvalid", "spec.x")],
            "m",
        );
        let theirs = server(
            422,
            &[("FieldValueInvalid", "spec.x"), ("FieldValueForbidden", "spec")],
            "m",
        );
        assert!(compare(&ours, &theirs).is_empty());
        assert!(compare(&podmut(true, &[], ""), &server(200, &[], "")).is_empty());
    }

    #[test]
    fn a_different_verdict_or_cause_or_policy_message_is_a_disagreement() {
        let denied = podmut(false, &[("FieldValueForbidden", "spec")], "Pod \"p\" is invalid");
        assert_eq!(
            compare(&denied, &server(200, &[], "")),
            vec!["the server allows it; podmut denies: Pod \"p\" is invalid".to_owned()]
        );
        assert_eq!(
            compare(&denied, &server(422, &[("FieldValueInvalid", "spec")], "x")).len(),
            1
        );
        let by_policy = podmut(false, &[], "ValidatingAdmissionPolicy 'a' denied");
        assert!(
            compare(
                &by_policy,
                &server(403, &[], "ValidatingAdmissionPolicy 'a' denied")
            )
            .is_empty()
        );
        assert_eq!(compare(&by_policy, &server(403, &[], "another")).len(), 1);
    }
}
