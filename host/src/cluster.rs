//! A live cluster, read through the user's kubeconfig with kube-rs: the Pod a change is about,
//! the API server's release, and the server's own answer to the change as a dry run
//! (`dryRun=All`, `fieldValidation=Strict`, as kubectl sends it).
//!
//! Nothing here judges: the component does. This module only fetches and sends.

use std::path::PathBuf;
use std::time::Duration;

use http_body_util::BodyExt as _;
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::core::Request;
use kube::core::params::{GetParams, Patch, PatchParams, PostParams, ValidationDirective};
use serde_json::Value;

/// Where the client's configuration comes from: kubectl's flags.
#[derive(Clone, Debug, Default)]
pub struct Connection {
    /// `--kubeconfig`: this file instead of `$KUBECONFIG` or `~/.kube/config`.
    pub kubeconfig: Option<PathBuf>,
    /// `--context`: this context instead of the current one.
    pub context: Option<String>,
    /// `--cluster`: this kubeconfig cluster instead of the context's.
    pub cluster: Option<String>,
    /// `--user`: this kubeconfig user instead of the context's.
    pub user: Option<String>,
    /// `--request-timeout`: how long one request may take (`None`: kube-rs' defaults).
    pub timeout: Option<Duration>,
}

/// What can go wrong talking to the cluster (as opposed to a denial, which is an answer).
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// The kubeconfig (or in-cluster configuration) cannot be used.
    #[error("{source_name}: {message}")]
    Config {
        /// The file, context or environment it came from.
        source_name: String,
        /// What is wrong with it.
        message: String,
    },
    /// The API server cannot be reached.
    #[error("cannot reach the API server at {url}: {message}")]
    Unreachable {
        /// The server's URL, from the configuration.
        url: String,
        /// Why (the client's error chain).
        message: String,
    },
    /// The object does not exist.
    #[error("{resource} {name:?} not found{} (server {url})", in_namespace(.namespace))]
    NotFound {
        /// The server's URL.
        url: String,
        /// The resource (`pods`, `pods/resize`, ...).
        resource: String,
        /// The Pod's namespace.
        namespace: String,
        /// The Pod's name.
        name: String,
    },
    /// The user may not do this.
    #[error("forbidden: the server does not let you {verb} {resource}{}: {message}", in_namespace(.namespace))]
    Forbidden {
        /// The verb refused (`get`, `patch`, `update`).
        verb: String,
        /// The resource (`pods`, `pods/resize`, ...).
        resource: String,
        /// The namespace.
        namespace: String,
        /// The server's message.
        message: String,
    },
    /// The server does not know who the user is.
    #[error("unauthorized: the server at {url} did not accept your credentials: {message}")]
    Unauthorized {
        /// The server's URL.
        url: String,
        /// The server's message.
        message: String,
    },
    /// Any other failed request.
    #[error("{what}: {message}")]
    Request {
        /// The request (`GET pods/web`, ...).
        what: String,
        /// The server's or the client's message.
        message: String,
    },
}

/// A client of one cluster, and what it was configured with.
#[derive(Clone)]
pub struct Cluster {
    client: kube::Client,
    /// The API server's URL.
    pub url: String,
    /// The namespace the configuration names (the context's, or the in-cluster one, or
    /// `default`).
    pub default_namespace: String,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster")
            .field("url", &self.url)
            .field("default_namespace", &self.default_namespace)
            .finish_non_exhaustive()
    }
}

/// The API server's release, from `/version`.
#[derive(Clone, Debug)]
pub struct ServerVersion {
    /// `gitVersion`, as the server reports it (`v1.37.2`).
    pub git_version: String,
    /// `major.minor` (`1.37`), digits only (a provider's `37+` is `37`).
    pub minor: String,
}

/// The server's answer to a dry-run write.
#[derive(Clone, Debug)]
pub struct DryRun {
    /// The HTTP status code.
    pub code: u16,
    /// Whether the server would store the change (2xx).
    pub allowed: bool,
    /// For a refusal, the Status `reason` (`Invalid`, `Forbidden`, `BadRequest`).
    pub reason: String,
    /// For a refusal, the Status `message` (what kubectl prints after `Error from server`).
    pub message: String,
    /// For a refusal, the Status `details.causes` as (reason, field): `FieldValueInvalid`,
    /// `spec.containers[0].resources.requests`.
    pub causes: Vec<(String, String)>,
    /// The `Warning` headers' texts.
    pub warnings: Vec<String>,
    /// The object the server would store (allowed), or the Status (refused).
    pub body: Value,
}

/// The server's answer to any request.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The HTTP status code.
    pub code: u16,
    /// The `Warning` headers' texts.
    pub warnings: Vec<String>,
    /// The body (JSON; a body that is not JSON as a string).
    pub body: Value,
}

impl Reply {
    /// A 2xx answer.
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.code)
    }

    /// The Status `message` of a refusal (the body's text when it is not a Status).
    pub fn message(&self) -> String {
        match &self.body {
            Value::String(s) => s.clone(),
            b => text_at(b, "message"),
        }
    }
}

impl From<Reply> for DryRun {
    fn from(r: Reply) -> Self {
        DryRun {
            code: r.code,
            allowed: r.ok(),
            reason: text_at(&r.body, "reason"),
            message: text_at(&r.body, "message"),
            causes: causes(&r.body),
            warnings: r.warnings,
            body: r.body,
        }
    }
}

/// The change a dry run sends.
#[derive(Clone, Copy, Debug)]
pub enum Change<'a> {
    /// `PUT` of this whole object (JSON).
    Replace(&'a str),
    /// `PATCH` with this patch.
    Patch(&'a Patch<Value>),
}

/// ` in namespace "ns"`, or nothing for a cluster-scoped object.
fn in_namespace(namespace: &str) -> String {
    if namespace.is_empty() {
        String::new()
    } else {
        format!(" in namespace {namespace:?}")
    }
}

fn config_error(source_name: impl Into<String>, e: impl std::fmt::Display) -> ClusterError {
    ClusterError::Config {
        source_name: source_name.into(),
        message: e.to_string(),
    }
}

/// An error and its causes on one line (`a: b: c`), each said once.
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut cur = e.source();
    while let Some(s) = cur {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        cur = s.source();
    }
    out
}

/// Where the kubeconfig is read from, for messages.
fn kubeconfig_name(c: &Connection) -> String {
    match (&c.kubeconfig, std::env::var("KUBECONFIG")) {
        (Some(p), _) => format!("--kubeconfig {}", p.display()),
        (None, Ok(v)) if !v.is_empty() => format!("KUBECONFIG={v}"),
        _ => "kubeconfig ~/.kube/config".to_owned(),
    }
}

/// The kube-rs configuration kubectl's flags select: `--kubeconfig`, else `$KUBECONFIG` or
/// `~/.kube/config`, else (no file, and no context, cluster or user named) the in-cluster one.
async fn config(c: &Connection) -> Result<kube::Config, ClusterError> {
    let options = KubeConfigOptions {
        context: c.context.clone(),
        cluster: c.cluster.clone(),
        user: c.user.clone(),
    };
    let name = kubeconfig_name(c);
    let named = |e: kube::config::KubeconfigError| {
        let which = match (&c.context, &c.cluster, &c.user) {
            (Some(ctx), _, _) => format!(" (context {ctx:?})"),
            (None, Some(cl), _) => format!(" (cluster {cl:?})"),
            (None, None, Some(u)) => format!(" (user {u:?})"),
            _ => String::new(),
        };
        config_error(format!("{name}{which}"), chain(&e))
    };
    let mut config = match &c.kubeconfig {
        Some(path) => {
            let file = Kubeconfig::read_from(path).map_err(named)?;
            kube::Config::from_custom_kubeconfig(file, &options)
                .await
                .map_err(named)?
        }
        None if c.context.is_some() || c.cluster.is_some() || c.user.is_some() => {
            kube::Config::from_kubeconfig(&options).await.map_err(named)?
        }
        None => kube::Config::infer().await.map_err(|e| {
            config_error(
                "kubeconfig",
                format!(
                    "no usable kubeconfig ($KUBECONFIG, ~/.kube/config) and not in a cluster: {}",
                    chain(&e)
                ),
            )
        })?,
    };
    if let Some(t) = c.timeout {
        config.connect_timeout = Some(t);
        config.read_timeout = Some(t);
        config.write_timeout = Some(t);
    }
    Ok(config)
}

/// The `Warning` header's text: `299 - "text"` → `text` (RFC 7234; the API server escapes `"`
/// and `\` inside the quotes).
pub fn warning_text(header: &str) -> String {
    let rest = header.trim();
    let Some(start) = rest.find('"') else {
        return rest.to_owned();
    };
    let quoted = &rest[start + 1..];
    let mut out = String::new();
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            }
            '"' => break,
            c => out.push(c),
        }
    }
    out
}

/// The texts of a response's `Warning` headers, in order.
pub fn warnings(headers: &http::HeaderMap) -> Vec<String> {
    headers
        .get_all("warning")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .map(warning_text)
        .collect()
}

/// `major.minor` of a `/version` answer, digits only.
fn minor_of(major: &str, minor: &str) -> String {
    let digits = |s: &str| s.chars().take_while(char::is_ascii_digit).collect::<String>();
    format!("{}.{}", digits(major), digits(minor))
}

/// The request path of a Pod's subresource (`""`: the Pod itself).
fn resource_name(subresource: &str) -> String {
    if subresource.is_empty() {
        "pods".to_owned()
    } else {
        format!("pods/{subresource}")
    }
}

impl Cluster {
    /// Connect as kubectl would with these flags (nothing is sent yet).
    pub async fn connect(c: &Connection) -> Result<Self, ClusterError> {
        let config = config(c).await?;
        let url = config.cluster_url.to_string().trim_end_matches('/').to_owned();
        let default_namespace = config.default_namespace.clone();
        let client =
            kube::Client::try_from(config).map_err(|e| config_error(kubeconfig_name(c), chain(&e)))?;
        Ok(Self {
            client,
            url,
            default_namespace,
        })
    }

    /// The server's release (`GET /version`).
    pub async fn version(&self) -> Result<ServerVersion, ClusterError> {
        let info = self
            .client
            .apiserver_version()
            .await
            .map_err(|e| self.failure(e, "get", ("/version", "", "")))?;
        Ok(ServerVersion {
            minor: minor_of(&info.major, &info.minor),
            git_version: info.git_version,
        })
    }

    /// The Pod `namespace/name` as the server stores it (JSON, exactly as sent).
    pub async fn pod(&self, namespace: &str, name: &str) -> Result<String, ClusterError> {
        let request = Request::new(<Pod as kube::Resource>::url_path(&(), Some(namespace)))
            .get(name, &GetParams::default())
            .map_err(|e| self.request_error(&format!("GET pods/{name}"), &e))?;
        self.client
            .request_text(request)
            .await
            .map_err(|e| self.failure(e, "get", ("pods", namespace, name)))
    }

    /// The Node `name` as the server stores it (JSON).
    pub async fn node(&self, name: &str) -> Result<String, ClusterError> {
        let request = Request::new(<Node as kube::Resource>::url_path(&(), None))
            .get(name, &GetParams::default())
            .map_err(|e| self.request_error(&format!("GET nodes/{name}"), &e))?;
        self.client
            .request_text(request)
            .await
            .map_err(|e| self.failure(e, "get", ("nodes", "", name)))
    }

    /// Send `change` to the Pod (or its `subresource`; `""`: none) as a dry run with
    /// `fieldValidation=<validation>` and return the server's answer, a refusal included; an
    /// error only when the request itself failed (not found, not allowed, unreachable).
    pub async fn dry_run(
        &self,
        (namespace, name, subresource): (&str, &str, &str),
        change: Change<'_>,
        validation: &ValidationDirective,
    ) -> Result<DryRun, ClusterError> {
        let base = Request::new(<Pod as kube::Resource>::url_path(&(), Some(namespace)));
        let (verb, built) = match change {
            Change::Replace(body) => {
                let pp = PostParams {
                    dry_run: true,
                    field_manager: None,
                };
                let bytes = body.as_bytes().to_vec();
                let r = if subresource.is_empty() {
                    base.replace(name, &pp, bytes)
                } else {
                    base.replace_subresource(subresource, name, &pp, bytes)
                };
                ("update", r.map(|r| with_field_validation(r, validation)))
            }
            Change::Patch(patch) => {
                let pp = PatchParams {
                    dry_run: true,
                    field_validation: Some(validation.clone()),
                    ..PatchParams::default()
                };
                let r = if subresource.is_empty() {
                    base.patch(name, &pp, patch)
                } else {
                    base.patch_subresource(subresource, name, &pp, patch)
                };
                ("patch", r)
            }
        };
        let resource = resource_name(subresource);
        let what = format!("{} {resource}/{name}", verb.to_uppercase());
        let request = built
            .map_err(|e| self.request_error(&what, &e))?
            .map(kube::client::Body::from);
        let response = self
            .client
            .send(request)
            .await
            .map_err(|e| self.failure(e, verb, (&resource, namespace, name)))?;
        let answer = DryRun::from(self.reply(response, &what).await?);
        if answer.allowed || is_refusal(&answer, verb) {
            return Ok(answer);
        }
        let status = serde_json::from_value(answer.body.clone()).unwrap_or_else(|_| {
            kube::core::Status::failure(&answer.message, &answer.reason).with_code(answer.code)
        });
        Err(self.failure(
            kube::Error::Api(Box::new(status)),
            verb,
            (&resource, namespace, name),
        ))
    }

    /// Send `method path` (the query included) with a JSON body. Every HTTP status is an answer;
    /// an error only when the request could not be made or the server not reached.
    pub async fn send(
        &self,
        method: http::Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Reply, ClusterError> {
        let what = format!("{method} {path}");
        let bytes = body.map(|b| b.to_string().into_bytes()).unwrap_or_default();
        let request = http::Request::builder()
            .method(method)
            .uri(path)
            .header(http::header::CONTENT_TYPE, "application/json")
            .header(http::header::ACCEPT, "application/json")
            .body(kube::client::Body::from(bytes))
            .map_err(|e| self.request_error(&what, &e))?;
        let response = self.client.send(request).await.map_err(|e| match e {
            kube::Error::HyperError(_) | kube::Error::Service(_) => ClusterError::Unreachable {
                url: self.url.clone(),
                message: chain(&e),
            },
            other => self.request_error(&what, &other),
        })?;
        self.reply(response, &what).await
    }

    /// A response read whole: its status, warnings and body.
    async fn reply(
        &self,
        response: http::Response<kube::client::Body>,
        what: &str,
    ) -> Result<Reply, ClusterError> {
        let code = response.status().as_u16();
        let warnings = warnings(response.headers());
        let bytes = response
            .into_body()
            .collect()
            .await
            .map_err(|e| self.request_error(what, &e))?
            .to_bytes();
        let body: Value = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
        Ok(Reply { code, warnings, body })
    }

    fn request_error(&self, what: &str, e: &(dyn std::error::Error + 'static)) -> ClusterError {
        ClusterError::Request {
            what: format!("{what} on {}", self.url),
            message: chain(e),
        }
    }

    /// A failed request as the user should read it.
    fn failure(
        &self,
        e: kube::Error,
        verb: &str,
        (resource, namespace, name): (&str, &str, &str),
    ) -> ClusterError {
        match e {
            kube::Error::Api(s) => match s.code {
                401 => ClusterError::Unauthorized {
                    url: self.url.clone(),
                    message: s.message,
                },
                403 => ClusterError::Forbidden {
                    verb: verb.to_owned(),
                    resource: resource.to_owned(),
                    namespace: namespace.to_owned(),
                    message: s.message,
                },
                404 => ClusterError::NotFound {
                    url: self.url.clone(),
                    resource: resource.to_owned(),
                    namespace: namespace.to_owned(),
                    name: name.to_owned(),
                },
                code => ClusterError::Request {
                    what: format!("{} {resource} on {}", verb.to_uppercase(), self.url),
                    message: format!("HTTP {code} {}: {}", s.reason, s.message),
                },
            },
            kube::Error::HyperError(_) | kube::Error::Service(_) => ClusterError::Unreachable {
                url: self.url.clone(),
                message: chain(&e),
            },
            other => ClusterError::Request {
                what: format!("{} {resource} on {}", verb.to_uppercase(), self.url),
                message: chain(&other),
            },
        }
    }
}

/// `fieldValidation=...` on a request kube-rs built (its `PostParams` has no field for it).
fn with_field_validation(
    request: http::Request<Vec<u8>>,
    validation: &ValidationDirective,
) -> http::Request<Vec<u8>> {
    let (mut parts, body) = request.into_parts();
    let uri = parts.uri.to_string();
    let sep = if uri.contains('?') { '&' } else { '?' };
    if let Ok(u) = format!("{uri}{sep}fieldValidation={}", validation.as_str()).parse() {
        parts.uri = u;
    }
    http::Request::from_parts(parts, body)
}

/// A Status's `details.causes` as (reason, field).
fn causes(status: &Value) -> Vec<(String, String)> {
    status
        .pointer("/details/causes")
        .and_then(Value::as_array)
        .map(|cs| {
            cs.iter()
                .map(|c| (text_at(c, "reason"), text_at(c, "field")))
                .collect()
        })
        .unwrap_or_default()
}

fn text_at(body: &Value, key: &str) -> String {
    body.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// Whether a dry run's failure is the server refusing the change (an answer to compare) rather
/// than the request failing: 400 (a patch or object the server cannot decode), 422 (invalid),
/// 403 from admission (not RBAC's "cannot <verb> resource").
fn is_refusal(answer: &DryRun, verb: &str) -> bool {
    match answer.code {
        400 | 422 => true,
        403 => !answer.message.contains(&format!("cannot {verb} resource")),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_warning_header_is_its_quoted_text() {
        assert_eq!(warning_text(r#"299 - "spec.x: ignored""#), "spec.x: ignored");
        assert_eq!(warning_text(r#"299 - "a \"b\" c""#), r#"a "b" c"#);
        assert_eq!(warning_text("plain"), "plain");
    }

    #[test]
    fn the_release_is_major_dot_minor_digits() {
        assert_eq!(minor_of("1", "37"), "1.37");
        assert_eq!(minor_of("1", "37+"), "1.37");
    }

    #[test]
    fn an_rbac_refusal_is_not_an_answer_but_admission_s_is() {
        let answer = |code, message: &str| DryRun {
            code,
            allowed: false,
            reason: "Forbidden".into(),
            message: message.into(),
            causes: Vec::new(),
            warnings: Vec::new(),
            body: Value::Null,
        };
        let rbac = answer(
            403,
            r#"pods "web" is forbidden: User "u" cannot patch resource "pods/resize" in API group "" in the namespace "ns""#,
        );
        assert!(!is_refusal(&rbac, "patch"));
        let admission = answer(
            403,
            r#"pods "web" is forbidden: violates PodSecurity "restricted:latest""#,
        );
        assert!(is_refusal(&admission, "patch"));
        assert!(is_refusal(&answer(422, "invalid"), "update"));
        assert!(!is_refusal(&answer(404, "not found"), "update"));
    }

    #[test]
    fn put_gets_the_field_validation() {
        let r = http::Request::put("/api/v1/namespaces/a/pods/b?dryRun=All")
            .body(Vec::new())
            .map(|r| with_field_validation(r, &ValidationDirective::Strict));
        assert_eq!(
            r.map(|r| r.uri().to_string()).ok().as_deref(),
            Some("/api/v1/namespaces/a/pods/b?dryRun=All&fieldValidation=Strict")
        );
    }
}
