//! podmut reads YAML as kubectl does, judged by kubectl and the real API server
//! (`cargo xtask oracle test`; CI).
//!
//! For every document of `tests/oracle/yaml/` (one case each):
//!
//! 1. kubectl reads the bytes and sends them: `kubectl create --dry-run=server -o json -f -` against
//!    the newest pinned release podmut claims;
//! 2. podmut reads the same bytes (`parse_stream`) and the test sends each object as JSON, the same
//!    dry-run create (`fieldValidation=Strict`, kubectl's default);
//! 3. the server's two answers must be equal, ignoring only what the server sets per request
//!    ([`PER_REQUEST`]); a document kubectl refuses to read, podmut must refuse to read; one the
//!    server refuses, it must refuse with the same message both ways;
//! 4. podmut's objects must equal what kubectl itself read (`kubectl create --dry-run=client -o
//!    json`), whenever kubectl reads the document (with `-n`'s namespace, which kubectl's builder
//!    sets on each object after reading it).
//!
//! Any difference fails the case with both sides printed, unless `known-differences.yaml` lists
//! the case (`yaml/<file name>`) with its reason; a listed case that agrees fails too (delete the
//! entry). Without the control-plane binaries
//! (`cargo xtask oracle build`) or kubectl, the cases are reported as ignored, or fail under
//! `PODMUT_REQUIRE_ORACLE=1` ([`podmut_oracle::prerequisite`]).

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use libtest_mimic::{Arguments, Failed, Trial};
use podmut_oracle::api::PodPath;
use podmut_oracle::control_plane::{self, Config};
use podmut_oracle::known::Known;
use podmut_oracle::pool::{Pool, Server};
use podmut_oracle::prerequisite::Prerequisites;
use podmut_oracle::runtime;
use podmut_oracle::webhook::{Kubectl, kubectl, kubectl_binary};
use podmut_oracle::{Pins, exchange};
use serde_json::Value;

/// The fields the server sets anew for every request, left out of the comparison: the object's
/// `uid` and `creationTimestamp`, and each managed-fields entry's `time` and `manager` (kubectl
/// writes as `kubectl-create`, the test's client under its own name).
const PER_REQUEST: [&str; 4] = [
    "metadata.uid",
    "metadata.creationTimestamp",
    "metadata.managedFields[].time",
    "metadata.managedFields[].manager",
];

/// Documents the corpus must at least hold.
const MIN_DOCUMENTS: usize = 50;

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(Pool::default)
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("yaml")
}

/// The corpus: every `*.yaml` file, by name.
fn corpus() -> Result<Vec<(String, String)>, String> {
    let dir = corpus_dir();
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .map(|p| {
            let name = p.file_stem().unwrap_or_default().to_string_lossy().into_owned();
            std::fs::read(&p)
                .map_err(|e| format!("{}: {e}", p.display()))
                .map(|bytes| (name, String::from_utf8_lossy(&bytes).into_owned()))
        })
        .collect::<Result<_, _>>()?;
    files.sort();
    Ok(files)
}

fn release_config() -> Result<Config, String> {
    let pins = Pins::load().map_err(|e| e.to_string())?;
    let release = podmut_oracle::fixtures::claimed(&pins)
        .into_iter()
        .max()
        .ok_or("podmut claims none of the pinned releases")?;
    Ok(Config::stock(release))
}

/// The control plane and this run's namespace, shared by every case.
fn server() -> Result<(Arc<Server>, &'static str), String> {
    static NS: OnceLock<Result<String, String>> = OnceLock::new();
    let config = release_config()?;
    let server = runtime().block_on(pool().get(&config))?;
    let ns = NS.get_or_init(|| {
        let ns = exchange::fresh_namespace();
        runtime()
            .block_on(server.api.create_namespace(&ns))
            .map(|()| ns)
            .map_err(|e| e.to_string())
    });
    let ns = ns.as_deref().map_err(Clone::clone)?;
    Ok((server, ns))
}

fn main() -> std::process::ExitCode {
    let args = Arguments::from_args();
    let missing = release_config()
        .and_then(|config| control_plane::binaries(config.release).map_err(|e| e.to_string()))
        .and_then(|_| kubectl_binary().map_err(|e| e.to_string()))
        .err();
    let needs = Prerequisites::new(missing);
    let mut trials = vec![Trial::test("yaml/corpus", || {
        let n = corpus()?.len();
        if n < MIN_DOCUMENTS {
            return Err(format!(
                "{} holds {n} documents, fewer than {MIN_DOCUMENTS}",
                corpus_dir().display()
            )
            .into());
        }
        Ok(())
    })];
    match corpus().and_then(|files| Ok((files, Known::load().map_err(|e| e.to_string())?))) {
        Ok((files, known)) => trials.extend(files.into_iter().map(|(name, text)| {
            let name = format!("yaml/{name}");
            let listed = known.for_case(&name).map(|e| e.id.clone());
            needs.trial(name, "", move || {
                judge(compare(&text), listed).map_err(Failed::from)
            })
        })),
        Err(e) => trials.push(Trial::test("yaml/read-corpus", move || Err(Failed::from(e)))),
    }
    let code = libtest_mimic::run(&args, trials).exit_code();
    pool().shutdown();
    code
}

/// A case's result: a difference fails unless known-differences.yaml lists the case, and a listed
/// case must still differ.
fn judge(result: Result<(), String>, listed: Option<String>) -> Result<(), String> {
    match (result, listed) {
        (Ok(()), None) | (Err(_), Some(_)) => Ok(()),
        (Err(e), None) => Err(e),
        (Ok(()), Some(id)) => Err(format!(
            "known-differences.yaml entry {id} lists this case, but it agrees: delete it"
        )),
    }
}

/// kubectl's objects from its `-o json` output: one JSON document per object (a `List`'s items
/// counted as objects).
fn objects(stdout: &str) -> Result<Vec<Value>, String> {
    let mut out = Vec::new();
    for v in serde_json::Deserializer::from_str(stdout).into_iter::<Value>() {
        match v.map_err(|e| format!("kubectl's output is not JSON: {e}\n{stdout}"))? {
            Value::Object(ref m) if m.get("kind").and_then(Value::as_str) == Some("List") => {
                out.extend(
                    m.get("items")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default(),
                );
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

/// Whether kubectl failed before sending anything: its own reading of the document.
fn refused_reading(out: &Kubectl) -> bool {
    !out.ok && !out.stderr.contains("Error from server") && !out.stderr.contains(" is invalid")
}

/// `item` as kubectl's builder leaves it after reading: `-n`'s namespace set where the document
/// names none (cli-runtime's `SetNamespace` visitor; not part of reading YAML).
fn in_namespace(mut item: Value, ns: &str) -> Value {
    if let Some(meta) = item.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.entry("namespace")
            .or_insert_with(|| Value::String(ns.to_owned()));
    }
    item
}

/// `v` without the [`PER_REQUEST`] fields.
fn without_per_request(mut v: Value) -> Value {
    for field in PER_REQUEST {
        remove_field(&mut v, field);
    }
    v
}

/// Remove `field` (`a.b`, `a[].b` for every item of the list `a`) from `v`.
fn remove_field(v: &mut Value, field: &str) {
    match field.split_once('.') {
        None => {
            if let Some(object) = v.as_object_mut() {
                object.remove(field);
            }
        }
        Some((head, rest)) => match head.strip_suffix("[]") {
            Some(list) => {
                for item in v
                    .get_mut(list)
                    .and_then(Value::as_array_mut)
                    .into_iter()
                    .flatten()
                {
                    remove_field(item, rest);
                }
            }
            None => {
                if let Some(child) = v.get_mut(head) {
                    remove_field(child, rest);
                }
            }
        },
    }
}

/// Both values, pretty, with the lines that differ marked.
fn diff(what: &str, kubectl: &Value, podmut: &Value) -> String {
    let pretty = |v: &Value| serde_json::to_string_pretty(v).unwrap_or_default();
    let (a, b) = (pretty(kubectl), pretty(podmut));
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let mut out = format!("{what} differ (- kubectl, + podmut):\n");
    for i in 0..a.len().max(b.len()) {
        match (a.get(i), b.get(i)) {
            (Some(x), Some(y)) if x == y => out.push_str(&format!("  {x}\n")),
            (x, y) => {
                if let Some(x) = x {
                    out.push_str(&format!("- {x}\n"));
                }
                if let Some(y) = y {
                    out.push_str(&format!("+ {y}\n"));
                }
            }
        }
    }
    out
}

/// One document: kubectl's path and podmut's must end in the same server answers.
fn compare(text: &str) -> Result<(), String> {
    let (server, ns) = server()?;
    let run = |dry_run: &str| {
        kubectl(
            &server.plane,
            &[
                "-n",
                ns,
                "create",
                dry_run,
                "--show-managed-fields",
                "-o",
                "json",
                "-f",
                "-",
            ],
            Some(text),
        )
        .map_err(|e| e.to_string())
    };
    let by_server = run("--dry-run=server")?;
    let read = podmut_core::parse_stream(text, "pod.yaml", 1 << 22);
    let items = match read {
        Err(e) if refused_reading(&by_server) => {
            eprintln!(
                "both refuse to read it:\n  kubectl: {}\n  podmut: {e}",
                by_server.stderr.trim()
            );
            return Ok(());
        }
        Err(e) => {
            return Err(format!(
                "podmut refuses to read what kubectl reads: {e}\nkubectl (ok: {}):\n{}{}",
                by_server.ok, by_server.stdout, by_server.stderr
            ));
        }
        // kubectl also decodes each object into its type before sending it: podmut's decoding of
        // the object it read must refuse it too.
        Ok(items)
            if refused_reading(&by_server)
                && items
                    .iter()
                    .any(|item| podmut_core::pod_from_value(item.clone(), "pod.yaml").is_err()) =>
        {
            return Ok(());
        }
        Ok(_) if refused_reading(&by_server) => {
            return Err(format!(
                "kubectl refuses to read what podmut reads:\n{}",
                by_server.stderr
            ));
        }
        Ok(items) => items,
    };
    // What kubectl itself read must be what podmut read.
    let by_client = run("--dry-run=client")?;
    if by_client.ok {
        let theirs = objects(&by_client.stdout)?;
        let ours: Vec<Value> = items.iter().cloned().map(|item| in_namespace(item, ns)).collect();
        if theirs != ours {
            return Err(diff(
                "the objects read",
                &Value::Array(theirs),
                &Value::Array(ours),
            ));
        }
    }
    // The server's answers to podmut's objects, sent as JSON.
    let mut answers = Vec::new();
    let mut refusals = Vec::new();
    for item in &items {
        let name = item
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let reply = runtime()
            .block_on(
                server
                    .api
                    .dry_run(ns, name, PodPath::Create, item, "fieldValidation=Strict"),
            )
            .map_err(|e| e.to_string())?;
        if reply.ok() {
            answers.push(without_per_request(reply.body));
        } else {
            let message = reply
                .body
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            refusals.push(message);
        }
    }
    if !by_server.ok || !refusals.is_empty() {
        let unmatched: Vec<&String> = refusals
            .iter()
            .filter(|m| !by_server.stderr.contains(m.as_str()))
            .collect();
        if by_server.ok || refusals.is_empty() || !unmatched.is_empty() {
            return Err(format!(
                "the server answers differently:\n  to kubectl (ok: {}): {}\n  to podmut's objects: {refusals:?}",
                by_server.ok,
                by_server.stderr.trim()
            ));
        }
        return Ok(());
    }
    let theirs: Vec<Value> = objects(&by_server.stdout)?
        .into_iter()
        .map(without_per_request)
        .collect();
    if theirs != answers {
        return Err(diff(
            "the server's objects",
            &Value::Array(theirs),
            &Value::Array(answers),
        ));
    }
    Ok(())
}
