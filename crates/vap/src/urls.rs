//! The Kubernetes CEL URL library (`k8s.io/apiserver/pkg/cel/library/urls.go`): `url()`,
//! `isURL()` and the getters `getScheme`, `getHost`, `getHostname`, `getPort`, `getEscapedPath`,
//! `getQuery`.
//!
//! Upstream accepts what Go's `url.ParseRequestURI` accepts (an absolute URI or an absolute path,
//! no relative references) and reads the parts from `url.Parse`. Written here rather than with the
//! `url` crate because that crate implements the WHATWG URL standard, which answers differently on
//! exactly what the library exposes: it cannot parse `/absolute-path` without a base, drops default
//! ports (`https://example.com:443` has no port there, Go keeps `443`), lowercases hosts, turns an
//! empty path into `/` and percent-encodes differently. This parser follows Go's `net/url`
//! (Go 1.25's rules, the toolchain current Kubernetes releases build with) for the parts the
//! library reads.

#![expect(
    clippy::needless_pass_by_value,
    reason = "the cel crate's function adapters hand arguments over by value"
)]

use std::sync::Arc;

use cel::extractors::This;
use cel::objects::Opaque;
use cel::{Context, ExecutionError, Value};

use super::values::map_of;

type Res = Result<Value, ExecutionError>;

/// A `kubernetes.URL` CEL value: Go's `url.URL` fields this library reads or compares.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Url {
    scheme: String,
    opaque: String,
    user: Option<String>,
    /// The host as Go keeps it: unescaped, with its port, IPv6 in brackets.
    host: String,
    /// The unescaped path.
    path: String,
    /// The path as written, when escaping `path` again would not give it back.
    raw_path: String,
    raw_query: String,
    fragment: String,
}

impl Opaque for Url {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.URL"
    }
}

/// Add the functions to a context.
pub(crate) fn register(ctx: &mut Context<'_, '_>) {
    // A clash with the environment is a bug every test shows, never an input's fault.
    let _ = ctx.add_function("url", url);
    let _ = ctx.add_function("isURL", is_url);
    let _ = ctx.add_function("getScheme", get_scheme);
    let _ = ctx.add_function("getHost", get_host);
    let _ = ctx.add_function("getHostname", get_hostname);
    let _ = ctx.add_function("getPort", get_port);
    let _ = ctx.add_function("getEscapedPath", get_escaped_path);
    let _ = ctx.add_function("getQuery", get_query);
}

// ---------------------------------------------------------------------------------------------
// Go's net/url, the parts `ParseRequestURI` and `Parse` use.

/// Go's `encoding` modes: which characters a URL component may hold unescaped.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    QueryComponent,
    Fragment,
}

/// RFC 3986's sub-delims.
const SUB_DELIMS: &[u8] = b"!$&'()*+,;=";

/// Go's `shouldEscape`.
fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    // §3.2.2: a host may hold the sub-delims, and ':' '[' ']' for a port and an IPv6 literal;
    // Go adds '<' '>' '"' (hosts cannot %-encode ASCII, so escaping them would not parse).
    if matches!(mode, Mode::Host | Mode::Zone) && (SUB_DELIMS.contains(&c) || b":[]<>\"".contains(&c)) {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::UserPassword => return matches!(c, b'@' | b'/' | b'?' | b':'),
            Mode::QueryComponent => return true,
            Mode::Fragment => return false,
            Mode::Path => return c == b'?',
            Mode::Host | Mode::Zone => {}
        },
        _ => {}
    }
    !(mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*'))
}

fn unhex(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => 0,
    }
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Go's `unescape`: check every `%XX` (and, in a host, every character), then decode.
fn unescape(s: &str, mode: Mode) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                if i + 2 >= b.len() || !b[i + 1].is_ascii_hexdigit() || !b[i + 2].is_ascii_hexdigit() {
                    let end = (i + 3).min(b.len());
                    return Err(format!("invalid URL escape {:?}", lossy(&b[i..end])));
                }
                let v = (unhex(b[i + 1]) << 4) | unhex(b[i + 2]);
                let pct25 = &b[i..i + 3] == b"%25";
                // In a host, %-escapes only for non-ASCII bytes (and RFC 6874's %25 in a zone).
                let bad = match mode {
                    Mode::Host => unhex(b[i + 1]) < 8 && !pct25,
                    Mode::Zone => !pct25 && v != b' ' && should_escape(v, Mode::Host),
                    _ => false,
                };
                if bad {
                    return Err(format!("invalid URL escape {:?}", lossy(&b[i..i + 3])));
                }
                out.push(v);
                i += 3;
            }
            b'+' => {
                out.push(if mode == Mode::QueryComponent { b' ' } else { b'+' });
                i += 1;
            }
            c => {
                if matches!(mode, Mode::Host | Mode::Zone) && c < 0x80 && should_escape(c, mode) {
                    return Err(format!("invalid character {:?} in host name", lossy(&[c])));
                }
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(lossy(&out))
}

/// Go's `escape` for a path (the only mode this library escapes in).
fn escape_path(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &c in s.as_bytes() {
        if should_escape(c, Mode::Path) {
            out.push('%');
            out.push_str(&format!("{c:02X}"));
        } else {
            out.push(char::from(c));
        }
    }
    out
}

/// Go's `validEncoded` for a path.
fn valid_encoded_path(s: &str) -> bool {
    // RFC 3986 pchar: unreserved, pct-encoded, sub-delims, ':' and '@' ('[' ']' as browsers).
    s.bytes()
        .all(|c| SUB_DELIMS.contains(&c) || b":@[]%".contains(&c) || !should_escape(c, Mode::Path))
}

/// Go's `getScheme`: the scheme before the first `:`, if what precedes it is one.
fn split_scheme(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err("missing protocol scheme".to_owned()),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

/// Go's `validOptionalPort`: empty, or `:` and digits.
fn valid_optional_port(port: &str) -> bool {
    port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()))
}

/// Go's `parseHost`: `host[:port]`, an IPv6 literal in brackets (Go 1.25: only a valid IPv6
/// address may be bracketed), %-escapes only for non-ASCII bytes.
fn parse_host(host: &str) -> Result<String, String> {
    if host.starts_with('[') {
        let Some(i) = host.rfind(']') else {
            return Err("missing ']' in host".to_owned());
        };
        let colon_port = &host[i + 1..];
        if !valid_optional_port(colon_port) {
            return Err(format!("invalid port {colon_port:?} after host"));
        }
        let port = unescape(colon_port, Mode::Host)?;
        let name = &host[1..i];
        let (addr, zone) = match name.find("%25") {
            Some(z) => (
                unescape(&name[..z], Mode::Host)?,
                unescape(&name[z..], Mode::Zone)?,
            ),
            None => (unescape(name, Mode::Host)?, String::new()),
        };
        if addr.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(if addr.parse::<std::net::Ipv4Addr>().is_ok() {
                "invalid IP-literal".to_owned()
            } else {
                format!("invalid host: ParseAddr({addr:?}): not an IP address")
            });
        }
        return Ok(format!("[{addr}{zone}]{port}"));
    }
    if let Some(i) = host.rfind(':') {
        let colon_port = &host[i..];
        if !valid_optional_port(colon_port) {
            return Err(format!("invalid port {colon_port:?} after host"));
        }
    }
    unescape(host, Mode::Host)
}

/// Go's `validUserinfo`.
fn valid_userinfo(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || SUB_DELIMS.contains(&b) || b"-._:~%@".contains(&b))
}

/// Go's `parseAuthority`: `[userinfo@]host`.
fn parse_authority(authority: &str, u: &mut Url) -> Result<(), String> {
    let at = authority.rfind('@');
    u.host = parse_host(at.map_or(authority, |i| &authority[i + 1..]))?;
    if let Some(i) = at {
        let userinfo = &authority[..i];
        if !valid_userinfo(userinfo) {
            return Err("net/url: invalid userinfo".to_owned());
        }
        let user = match userinfo.split_once(':') {
            Some((name, password)) => format!(
                "{}:{}",
                unescape(name, Mode::UserPassword)?,
                unescape(password, Mode::UserPassword)?
            ),
            None => unescape(userinfo, Mode::UserPassword)?,
        };
        u.user = Some(user);
    }
    Ok(())
}

/// Go's unexported `parse(rawURL, viaRequest)`.
fn parse_go(raw: &str, via_request: bool) -> Result<Url, String> {
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err("net/url: invalid control character in URL".to_owned());
    }
    if raw.is_empty() && via_request {
        return Err("empty url".to_owned());
    }
    let mut u = Url::default();
    if raw == "*" {
        u.path = "*".to_owned();
        return Ok(u);
    }
    let (scheme, rest) = split_scheme(raw)?;
    u.scheme = scheme.to_ascii_lowercase();
    let mut rest = rest;
    if let Some(before) = rest.strip_suffix('?')
        && !before.contains('?')
    {
        rest = before;
    } else if let Some((before, query)) = rest.split_once('?') {
        rest = before;
        u.raw_query = query.to_owned();
    }
    if !rest.starts_with('/') {
        if !u.scheme.is_empty() {
            // A rootless path after a scheme is opaque (RFC 3986), e.g. `mailto:x@y`.
            u.opaque = rest.to_owned();
            return Ok(u);
        }
        if via_request {
            return Err("invalid URI for request".to_owned());
        }
        if rest
            .split('/')
            .next()
            .is_some_and(|segment| segment.contains(':'))
        {
            return Err("first path segment in URL cannot contain colon".to_owned());
        }
    }
    if (!u.scheme.is_empty() || !via_request && !rest.starts_with("///")) && rest.starts_with("//") {
        let authority = &rest[2..];
        let (authority, path) = authority
            .find('/')
            .map_or((authority, ""), |i| authority.split_at(i));
        parse_authority(authority, &mut u)?;
        rest = path;
    }
    u.path = unescape(rest, Mode::Path)?;
    if escape_path(&u.path) != rest {
        u.raw_path = rest.to_owned();
    }
    Ok(u)
}

/// Go's `url.Parse`: the fragment cut off first.
fn parse(raw: &str) -> Result<Url, String> {
    let (u, fragment) = raw.split_once('#').unwrap_or((raw, ""));
    let mut url = parse_go(u, false).map_err(|e| format!("parse {u:?}: {e}"))?;
    url.fragment = unescape(fragment, Mode::Fragment).map_err(|e| format!("parse {raw:?}: {e}"))?;
    Ok(url)
}

/// Go's `url.ParseRequestURI`: an absolute URI or an absolute path.
fn parse_request_uri(raw: &str) -> Result<Url, String> {
    parse_go(raw, true).map_err(|e| format!("parse {raw:?}: {e}"))
}

/// Go's `splitHostPort`, behind `Hostname()` and `Port()`.
fn split_host_port(host_port: &str) -> (&str, &str) {
    let (mut host, mut port) = (host_port, "");
    if let Some(colon) = host.rfind(':')
        && valid_optional_port(&host[colon..])
    {
        (host, port) = (&host[..colon], &host[colon + 1..]);
    }
    if host.starts_with('[') && host.ends_with(']') && host.len() >= 2 {
        host = &host[1..host.len() - 1];
    }
    (host, port)
}

impl Url {
    /// Go's `EscapedPath()`: the path as written when that is a valid encoding of it.
    fn escaped_path(&self) -> String {
        if !self.raw_path.is_empty()
            && valid_encoded_path(&self.raw_path)
            && unescape(&self.raw_path, Mode::Path).is_ok_and(|p| p == self.path)
        {
            return self.raw_path.clone();
        }
        if self.path == "*" {
            return "*".to_owned();
        }
        escape_path(&self.path)
    }

    /// Go's `Query()`: `ParseQuery` of the raw query, pairs that do not decode skipped.
    fn query(&self) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for pair in self.raw_query.split('&') {
            if pair.is_empty() || pair.contains(';') {
                continue;
            }
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let (Ok(key), Ok(value)) = (
                unescape(key, Mode::QueryComponent),
                unescape(value, Mode::QueryComponent),
            ) else {
                continue;
            };
            match out.iter_mut().find(|(k, _)| *k == key) {
                Some((_, values)) => values.push(value),
                None => out.push((key, vec![value])),
            }
        }
        out
    }
}

// ---------------------------------------------------------------------------------------------
// The CEL functions.

fn text(v: &Value) -> Option<&str> {
    match v {
        Value::String(s) => Some(s.as_str()),
        _ => None,
    }
}

fn url(s: Value) -> Res {
    let Some(raw) = text(&s) else {
        return Err(ExecutionError::no_such_overload(
            "url",
            vec![s.type_of().to_string()],
        ));
    };
    // As upstream: ParseRequestURI decides what is a URL, Parse reads its parts (ParseRequestURI
    // would leave a fragment inside the path or the query).
    let parsed = parse_request_uri(raw).and_then(|_| parse(raw)).map_err(|e| {
        ExecutionError::function_error(
            "url",
            format!("URL parse error during conversion from string: {e}"),
        )
    })?;
    Ok(Value::Opaque(Arc::new(parsed)))
}

fn is_url(s: Value) -> Res {
    let Some(raw) = text(&s) else {
        return Err(ExecutionError::no_such_overload(
            "isURL",
            vec![s.type_of().to_string()],
        ));
    };
    Ok(Value::Bool(parse_request_uri(raw).is_ok()))
}

fn this_url<'a>(function: &str, v: &'a Value) -> Result<&'a Url, ExecutionError> {
    match v {
        Value::Opaque(o) => o.downcast_ref::<Url>(),
        _ => None,
    }
    .ok_or_else(|| ExecutionError::no_such_member_overload(function, vec![v.type_of().to_string()]))
}

fn string(s: &str) -> Res {
    Ok(Value::String(Arc::new(s.to_owned())))
}

fn get_scheme(This(this): This<Value>) -> Res {
    string(&this_url("getScheme", &this)?.scheme)
}

fn get_host(This(this): This<Value>) -> Res {
    string(&this_url("getHost", &this)?.host)
}

fn get_hostname(This(this): This<Value>) -> Res {
    string(split_host_port(&this_url("getHostname", &this)?.host).0)
}

fn get_port(This(this): This<Value>) -> Res {
    string(split_host_port(&this_url("getPort", &this)?.host).1)
}

fn get_escaped_path(This(this): This<Value>) -> Res {
    string(&this_url("getEscapedPath", &this)?.escaped_path())
}

fn get_query(This(this): This<Value>) -> Res {
    let entries = this_url("getQuery", &this)?
        .query()
        .into_iter()
        .map(|(k, values)| {
            let list = values.into_iter().map(|v| Value::String(Arc::new(v))).collect();
            (k, Value::List(Arc::new(list)))
        })
        .collect();
    Ok(map_of(entries))
}

#[cfg(test)]
mod tests {
    use super::super::cel::eval;

    /// Upstream's URL cases: apiextensions-apiserver `schema/cel/validation_test.go` "URL parsing"
    /// (the library's own examples in `library/urls.go` are the same), its cost case, and
    /// `url()`'s documented errors.
    #[test]
    fn urls() {
        let object = "'https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c#anchor'";
        for e in [
            "url('/path').getScheme() == ''",
            "url('https://example.com/').getScheme() == 'https'",
            "url('https://example.com:80/').getHost() == 'example.com:80'",
            "url('https://example.com/').getHost() == 'example.com'",
            "url('https://[::1]:80/').getHost() == '[::1]:80'",
            "url('https://[::1]/').getHost() == '[::1]'",
            "url('/path').getHost() == ''",
            "url('https://example.com:80/').getHostname() == 'example.com'",
            "url('https://127.0.0.1/').getHostname() == '127.0.0.1'",
            "url('https://[::1]/').getHostname() == '::1'",
            "url('/path').getHostname() == ''",
            "url('https://example.com:80/').getPort() == '80'",
            "url('https://example.com/').getPort() == ''",
            "url('/path').getPort() == ''",
            "url('https://example.com/path').getEscapedPath() == '/path'",
            "url('https://example.com/with space/').getEscapedPath() == '/with%20space/'",
            "url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'",
            "url('https://example.com').getEscapedPath() == ''",
            "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == { 'k1': ['a'], 'k2': ['b', 'c']}",
            "url('https://example.com/path?key with spaces=value with spaces').getQuery() == { 'key with spaces': ['value with spaces']}",
            "url('https://example.com/path?').getQuery() == {}",
            "url('https://example.com/path').getQuery() == {}",
            "isURL('https://user:pass@example.com:80/path?query=val#fragment')",
            "isURL('/path') == true",
            "isURL('/absolute-path')",
            "isURL('https://a:b:c/') == false",
            "isURL('../relative-path') == false",
            // The cost case: a scheme followed by a rootless part is opaque, so this is a URL.
            "url('https:://kubernetes.io/').getHostname() != 'test'",
        ] {
            assert_eq!(eval(e), Ok(cel::Value::Bool(true)), "{e}");
        }
        for (getter, want) in [
            ("getScheme()", "'https'"),
            ("getHost()", "'kubernetes.io:80'"),
            ("getHostname()", "'kubernetes.io'"),
            ("getPort()", "'80'"),
            ("getEscapedPath()", "'/docs/home'"),
            ("getQuery()", "{'k1': ['a'], 'k2': ['b', 'c']}"),
        ] {
            let e = format!("url({object}).{getter} == {want}");
            assert_eq!(eval(&e), Ok(cel::Value::Bool(true)), "{e}");
        }
        for bad in ["https://a:b:c/", "../relative-path", ""] {
            let e = eval(&format!("url('{bad}')")).unwrap_err();
            assert!(
                e.contains("URL parse error during conversion from string"),
                "{bad}: {e}"
            );
        }
        let e = eval("isURL(1)").unwrap_err();
        assert!(e.contains("isURL"), "{e}");
    }

    /// Go's net/url rules the library inherits, beyond upstream's cases: each as Go answers.
    #[test]
    fn go_url_rules() {
        for e in [
            // ParseRequestURI: absolute URIs and absolute paths only.
            "!isURL('example.com/path')",
            "!isURL('')",
            "!isURL(':no-scheme')",
            "isURL('mailto:someone@example.com')",
            "isURL('*')",
            // Ports are digits; IPv6 literals must be IPv6 addresses.
            "!isURL('http://example.com:8o/')",
            "!isURL('http://[127.0.0.1]/')",
            "!isURL('http://[::1/')",
            "!isURL('http://exa mple.com/')",
            "!isURL('http://example.com/%zz')",
            "!isURL('http://example.com/\\x01')",
            // Schemes are lowercased, hosts and default ports kept as written.
            "url('HTTPS://Example.COM:443').getScheme() == 'https'",
            "url('https://Example.COM:443').getHost() == 'Example.COM:443'",
            "url('https://example.com:443').getPort() == '443'",
            "url('https://example.com:').getPort() == ''",
            "url('https://[fe80::1%25eth0]:8080/').getHostname() == 'fe80::1%eth0'",
            // Without a scheme, '//' starts a path in a request URI but a host in Parse.
            "url('//example.com/x').getHost() == 'example.com'",
            "url('/a%2Fb').getEscapedPath() == '/a%2Fb'",
            "url('/caf\u{e9}').getEscapedPath() == '/caf%C3%A9'",
            "url('https://example.com/p#frag').getEscapedPath() == '/p'",
            "url('https://example.com/?a=1&a=2&b=%20x+y&c').getQuery() == {'a': ['1', '2'], 'b': [' x y'], 'c': ['']}",
            "url('https://example.com/?a=%zz&b=1;2&c=3').getQuery() == {'c': ['3']}",
            "url('https://example.com/?x=1#y=2').getQuery() == {'x': ['1']}",
            "url('https://example.com/a') == url('https://example.com/a')",
            "url('https://example.com/a') != url('https://example.com/b')",
        ] {
            assert_eq!(eval(e), Ok(cel::Value::Bool(true)), "{e}");
        }
    }
}
