//! The oracle's requests to a real API server, through kube-rs, and the server's answers in the
//! shape podmut answers in.
//!
//! Requests are raw (`kube::Client::send`) because the oracle needs what typed clients hide: the
//! whole `Status` of a refusal (`details.causes`), the `Warning` headers, and bodies sent byte for
//! byte as podmut reads them.

use std::path::Path;

use http::{Method, Request};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};

use crate::OracleError;

/// A client of one API server (and, for the oracle's own control planes, of its etcd).
#[derive(Clone)]
pub struct Api {
    client: kube::Client,
    etcd: Option<String>,
    /// `Impersonate-User` of every request ([`Api::impersonating`]).
    impersonate: Option<String>,
}

impl std::fmt::Debug for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Api").finish_non_exhaustive()
    }
}

/// An HTTP answer: status code, body (JSON, or a string when it is not), `Warning` headers.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The HTTP status code.
    pub code: u16,
    /// The body as JSON (`Value::String` holding the text when it is not JSON).
    pub body: Value,
    /// The `Warning` headers' texts (RFC 7234 `299 - "text"` unquoted).
    pub warnings: Vec<String>,
    /// The `Audit-Id` header: the `auditID` of the request's audit events.
    pub audit_id: Option<String>,
}

impl Reply {
    /// Whether the request succeeded (2xx).
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.code)
    }

    /// The body, or an error naming what was asked and what came back.
    pub fn into_ok(self, what: &str) -> Result<Value, OracleError> {
        if self.ok() {
            Ok(self.body)
        } else {
            Err(OracleError::Server(format!(
                "{what}: HTTP {}: {}",
                self.code,
                self.body
                    .get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| self.body.to_string(), str::to_owned)
            )))
        }
    }
}

/// The request paths of a Pod write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PodPath {
    /// `POST pods` (a create).
    Create,
    /// `PUT pods/{name}`.
    Update,
    /// `PUT pods/{name}/ephemeralcontainers`.
    EphemeralContainers,
    /// `PUT pods/{name}/resize`.
    Resize,
    /// `PUT pods/{name}/status`.
    Status,
}

impl PodPath {
    /// The subresource (`""` for the main resource).
    pub fn subresource(self) -> &'static str {
        match self {
            PodPath::Create | PodPath::Update => "",
            PodPath::EphemeralContainers => "ephemeralcontainers",
            PodPath::Resize => "resize",
            PodPath::Status => "status",
        }
    }

    /// podmut's `--subresource` name.
    pub fn podmut_subresource(self) -> &'static str {
        match self {
            PodPath::Create | PodPath::Update => "none",
            other => other.subresource(),
        }
    }

    /// Every path, in a stable order.
    pub const ALL: [PodPath; 5] = [
        PodPath::Create,
        PodPath::Update,
        PodPath::EphemeralContainers,
        PodPath::Resize,
        PodPath::Status,
    ];

    /// A short name (`create`, `update`, `ephemeralcontainers`, `resize`, `status`).
    pub fn name(self) -> &'static str {
        match self {
            PodPath::Create => "create",
            PodPath::Update => "update",
            other => other.subresource(),
        }
    }
}

/// A plain-HTTP/1.1 request to a loopback server (etcd's JSON gateway, podmut's probe port): the
/// status code and body. Hand-written: one call on loopback to a server the test started, where a
/// client library would add a connection pool for nothing.
pub fn http_plain(addr: &str, method: &str, path: &str, body: &str) -> Result<(u16, String), String> {
    use std::io::{Read as _, Write as _};
    let mut stream = std::net::TcpStream::connect(addr).map_err(|e| format!("{addr}: {e}"))?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .map_err(|e| e.to_string())?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).map_err(|e| e.to_string())?;
    let code = answer
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| format!("{addr}: not an HTTP answer"))?;
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    Ok((code, body))
}

fn pods(ns: &str) -> String {
    format!("/api/v1/namespaces/{ns}/pods")
}

impl Api {
    /// A client from a kubeconfig file (`context`: the current one when `None`).
    pub async fn from_kubeconfig(path: &Path, context: Option<&str>) -> Result<Self, OracleError> {
        let kubeconfig = kube::config::Kubeconfig::read_from(path)
            .map_err(|e| OracleError::Client(format!("{}: {e}", path.display())))?;
        let options = kube::config::KubeConfigOptions {
            context: context.map(str::to_owned),
            ..Default::default()
        };
        let config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
            .await
            .map_err(|e| OracleError::Client(format!("{}: {e}", path.display())))?;
        let client = kube::Client::try_from(config).map_err(|e| OracleError::Client(e.to_string()))?;
        Ok(Self {
            client,
            etcd: None,
            impersonate: None,
        })
    }

    /// The same client, acting as `user` (`Impersonate-User`; the client's own user must be
    /// allowed to impersonate, as the administrator is).
    pub fn impersonating(&self, user: &str) -> Self {
        Self {
            impersonate: Some(user.to_owned()),
            ..self.clone()
        }
    }

    /// The same client, able to write into the control plane's etcd at `url` (`http://...`).
    pub fn with_etcd(mut self, url: &str) -> Self {
        self.etcd = Some(url.to_owned());
        self
    }

    /// Store `object` (JSON) under `key` in etcd directly, as an older release's API server would
    /// have stored it: how the oracle creates an object the current release refuses to create
    /// (a "ratcheting" case: stored before a rule was tightened). The API server reads JSON from
    /// its storage as well as protobuf.
    pub async fn etcd_put(&self, key: &str, object: &Value) -> Result<(), OracleError> {
        use base64::Engine as _;
        let url = self
            .etcd
            .clone()
            .ok_or_else(|| OracleError::Client("this client has no etcd to write to".into()))?;
        let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
        let body =
            json!({"key": b64(key.as_bytes()), "value": b64(object.to_string().as_bytes())}).to_string();
        let addr = url.trim_start_matches("http://").to_owned();
        let key = key.to_owned();
        let (code, answer) =
            tokio::task::spawn_blocking(move || http_plain(&addr, "POST", "/v3/kv/put", &body))
                .await
                .map_err(|e| OracleError::Client(format!("etcd put {key}: {e}")))?
                .map_err(|e| OracleError::Client(format!("etcd put {key}: {e}")))?;
        if code == 200 {
            Ok(())
        } else {
            Err(OracleError::Client(format!(
                "etcd put {key}: HTTP {code}: {answer}"
            )))
        }
    }

    /// The underlying kube-rs client.
    pub fn kube(&self) -> &kube::Client {
        &self.client
    }

    /// Send one request; `body` as JSON with `content_type`.
    pub async fn send(
        &self,
        method: Method,
        uri: &str,
        body: Option<&Value>,
        content_type: &str,
    ) -> Result<Reply, OracleError> {
        let bytes = body.map(|b| b.to_string().into_bytes()).unwrap_or_default();
        self.send_bytes(method, uri, bytes, content_type).await
    }

    /// Send one request with a body as given.
    pub async fn send_bytes(
        &self,
        method: Method,
        uri: &str,
        body: Vec<u8>,
        content_type: &str,
    ) -> Result<Reply, OracleError> {
        let mut request = Request::builder()
            .method(method.clone())
            .uri(uri)
            .header(http::header::CONTENT_TYPE, content_type)
            .header(http::header::ACCEPT, "application/json");
        if let Some(user) = &self.impersonate {
            request = request.header("Impersonate-User", user);
        }
        let request = request
            .body(kube::client::Body::from(body))
            .map_err(|e| OracleError::Client(format!("{method} {uri}: {e}")))?;
        let response = self
            .client
            .send(request)
            .await
            .map_err(|e| OracleError::Client(format!("{method} {uri}: {e}")))?;
        let code = response.status().as_u16();
        let warnings = podmut::cluster::warnings(response.headers());
        let audit_id = response
            .headers()
            .get("audit-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let bytes = response
            .into_body()
            .collect()
            .await
            .map_err(|e| OracleError::Client(format!("{method} {uri}: reading the answer: {e}")))?
            .to_bytes();
        let body = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
        Ok(Reply {
            code,
            body,
            warnings,
            audit_id,
        })
    }

    /// `GET path`'s status code (health endpoints).
    pub async fn get_status(&self, path: &str) -> Result<u16, OracleError> {
        Ok(self.send(Method::GET, path, None, "application/json").await?.code)
    }

    /// `GET /version`'s `gitVersion`.
    pub async fn git_version(&self) -> Result<String, OracleError> {
        let v = self
            .send(Method::GET, "/version", None, "application/json")
            .await?
            .into_ok("GET /version")?;
        Ok(v.get("gitVersion")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned())
    }

    /// Create a namespace and its `default` ServiceAccount (what the service-account controller
    /// would create), with `automountServiceAccountToken: false` so that admission does not mount
    /// a token volume into every Pod (kept the way the test wrote it).
    pub async fn create_namespace(&self, name: &str) -> Result<(), OracleError> {
        self.create_labelled_namespace(name, &serde_json::Map::new())
            .await
    }

    /// [`Api::create_namespace`] with these labels.
    pub async fn create_labelled_namespace(
        &self,
        name: &str,
        labels: &serde_json::Map<String, Value>,
    ) -> Result<(), OracleError> {
        let ns = json!({"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": name, "labels": labels}});
        self.send(Method::POST, "/api/v1/namespaces", Some(&ns), "application/json")
            .await?
            .into_ok(&format!("create namespace {name}"))?;
        let sa = json!({"apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": "default", "namespace": name},
            "automountServiceAccountToken": false});
        self.send(
            Method::POST,
            &format!("/api/v1/namespaces/{name}/serviceaccounts"),
            Some(&sa),
            "application/json",
        )
        .await?
        .into_ok(&format!("create serviceaccount {name}/default"))?;
        Ok(())
    }

    /// Create (or leave, when it exists) a Node with this allocatable cpu and memory: what the
    /// resize admission of 1.36 and later reads, since no kubelet registers one here.
    pub async fn ensure_node(&self, name: &str) -> Result<(), OracleError> {
        let node = oracle_node(name);
        let reply = self
            .send(Method::POST, "/api/v1/nodes", Some(&node), "application/json")
            .await?;
        if reply.ok() || reply.code == 409 {
            // Also write the status through /status, as a kubelet would.
            if reply.ok() {
                let mut stored = reply.body;
                stored["status"] = node["status"].clone();
                self.send(
                    Method::PUT,
                    &format!("/api/v1/nodes/{name}/status"),
                    Some(&stored),
                    "application/json",
                )
                .await?
                .into_ok(&format!("write node {name}'s status"))?;
            }
            return Ok(());
        }
        reply.into_ok(&format!("create node {name}")).map(|_| ())
    }

    /// Make sure the PriorityClass `name` exists (what a cluster administrator creates before a
    /// Pod names it; the Priority admission plugin refuses a Pod whose class does not exist).
    pub async fn ensure_priority_class(&self, name: &str) -> Result<(), OracleError> {
        let class = json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name}, "value": 1000});
        let reply = self
            .send(
                Method::POST,
                "/apis/scheduling.k8s.io/v1/priorityclasses",
                Some(&class),
                "application/json",
            )
            .await?;
        if reply.code == 409 {
            return Ok(());
        }
        reply
            .into_ok(&format!("create priority class {name}"))
            .map(|_| ())
    }

    /// Create a Pod for real; the stored object.
    pub async fn create_pod(&self, ns: &str, pod: &Value) -> Result<Reply, OracleError> {
        self.send(Method::POST, &pods(ns), Some(pod), "application/json")
            .await
    }

    /// `PUT` a whole Pod to `pods/{name}` or a subresource, for real.
    pub async fn put_pod(
        &self,
        ns: &str,
        name: &str,
        path: PodPath,
        pod: &Value,
    ) -> Result<Reply, OracleError> {
        self.send(
            Method::PUT,
            &pod_uri(ns, name, path, ""),
            Some(pod),
            "application/json",
        )
        .await
    }

    /// The request as a dry run (`dryRun=All`): nothing is stored; the answer is what a real
    /// write would get. `query` adds parameters (`fieldValidation=Strict`).
    pub async fn dry_run(
        &self,
        ns: &str,
        name: &str,
        path: PodPath,
        pod: &Value,
        query: &str,
    ) -> Result<Reply, OracleError> {
        let q = if query.is_empty() {
            "dryRun=All".to_owned()
        } else {
            format!("dryRun=All&{query}")
        };
        match path {
            PodPath::Create => {
                self.send(
                    Method::POST,
                    &format!("{}?{q}", pods(ns)),
                    Some(pod),
                    "application/json",
                )
                .await
            }
            _ => {
                self.send(
                    Method::PUT,
                    &pod_uri(ns, name, path, &q),
                    Some(pod),
                    "application/json",
                )
                .await
            }
        }
    }

    /// A dry-run create (`dryRun=All`) of any namespaced object: `POST` to the collection of
    /// `resource` (`deployments`) in the API group of `api_version` (`apps/v1`, `v1`) in `ns`.
    pub async fn dry_run_create(
        &self,
        api_version: &str,
        resource: &str,
        ns: &str,
        object: &Value,
    ) -> Result<Reply, OracleError> {
        let root = if api_version.contains('/') { "apis" } else { "api" };
        let uri = format!("/{root}/{api_version}/namespaces/{ns}/{resource}?dryRun=All");
        self.send(Method::POST, &uri, Some(object), "application/json")
            .await
    }

    /// A dry-run `PATCH` of `pods/{name}` (or a subresource) with a patch of `content_type`
    /// (`application/strategic-merge-patch+json`, `application/merge-patch+json`,
    /// `application/json-patch+json`).
    pub async fn dry_run_patch(
        &self,
        ns: &str,
        name: &str,
        path: PodPath,
        patch: &Value,
        content_type: &str,
    ) -> Result<Reply, OracleError> {
        self.send(
            Method::PATCH,
            &pod_uri(ns, name, path, "dryRun=All"),
            Some(patch),
            content_type,
        )
        .await
    }
}

fn pod_uri(ns: &str, name: &str, path: PodPath, query: &str) -> String {
    let mut uri = format!("{}/{name}", pods(ns));
    if !path.subresource().is_empty() {
        uri.push('/');
        uri.push_str(path.subresource());
    }
    if !query.is_empty() {
        uri.push('?');
        uri.push_str(query);
    }
    uri
}

/// The Node the oracle creates for a bound Pod (64 cpu, 256Gi, no labels, no declared features),
/// also given to podmut as its `nodes` setting: the cluster podmut judges is the one the server has.
pub fn oracle_node(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
        "status": {"capacity": {"cpu": "64", "memory": "256Gi", "pods": "110"},
                   "allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"}}})
}
