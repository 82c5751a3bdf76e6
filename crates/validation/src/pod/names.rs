//! String-format checks from `k8s.io/apimachinery/pkg/util/validation` (`IsDNS1123Label`,
//! `IsQualifiedName`, `IsValidLabelValue`, port names, env var names, ...) and the field-level
//! wrappers upstream builds on them (`ValidateDNS1123Label`, `ValidateLabels`,
//! `ValidateAnnotations`, `NameIsDNSSubdomain`).
//!
//! The functions returning `Vec<String>` return upstream's messages word for word; an empty vector
//! means valid. The grammars are tiny regular languages, so they are written as character checks
//! instead of pulling a regex engine into the WebAssembly component; each function names the
//! upstream regular expression it implements, and the unit tests below pin the boundary cases.

use std::collections::BTreeMap;

use podmut_model::field::{ErrorList, FieldError, Path};

/// `DNS1123LabelMaxLength`.
pub(crate) const DNS1123_LABEL_MAX_LENGTH: usize = 63;
/// `DNS1123SubdomainMaxLength`.
pub(crate) const DNS1123_SUBDOMAIN_MAX_LENGTH: usize = 253;
/// `TotalAnnotationSizeLimitB` (256 kB).
pub(crate) const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * (1 << 10);

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_ERR: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_ERR: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_US_FMT: &str =
    "_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_US_ERR: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character";
const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_ERR: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_ERR: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const ENV_VAR_FMT: &str = "[-._a-zA-Z][-._a-zA-Z0-9]*";
const ENV_VAR_ERR: &str = "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit";
const RELAXED_ENV_VAR_ERR: &str =
    "a valid environment variable name must consist only of printable ASCII characters other than '='";
const CONFIG_MAP_KEY_FMT: &str = "[-._a-zA-Z0-9]+";
const CONFIG_MAP_KEY_ERR: &str =
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const HTTP_HEADER_FMT: &str = "[-A-Za-z0-9]+";
const HTTP_HEADER_ERR: &str = "a valid HTTP header must consist of alphanumeric characters or '-'";

/// `MaxLenError`.
pub(crate) fn max_len_error(length: usize) -> String {
    format!("must be no more than {length} characters")
}

/// `content.MaxLenError` (`k8s.io/apimachinery/pkg/api/validate/content`, which `IsQualifiedName`
/// and `IsValidLabelValue` are since 1.34): the same limit, counted in bytes.
fn content_max_len_error(length: usize) -> String {
    format!("must be no more than {length} bytes")
}

/// `RegexError(msg, fmt, examples...)`.
pub(crate) fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{msg} (regex used for validation is '{fmt}')");
    }
    let mut out = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            out.push_str(" or ");
        }
        out.push('\'');
        out.push_str(e);
        out.push_str("', ");
    }
    out.push_str("regex used for validation is '");
    out.push_str(fmt);
    out.push_str("')");
    out
}

/// `EmptyError`.
pub(crate) fn empty_error() -> &'static str {
    "must be non-empty"
}

/// `InclusiveRangeError(lo, hi)`.
pub(crate) fn inclusive_range_error(lo: i64, hi: i64) -> String {
    format!("must be between {lo} and {hi}, inclusive")
}

fn is_lower_alnum(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

/// `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
fn matches_dns_label(v: &[u8]) -> bool {
    match (v.first(), v.last()) {
        (Some(&f), Some(&l)) => {
            is_lower_alnum(f) && is_lower_alnum(l) && v.iter().all(|&c| is_lower_alnum(c) || c == b'-')
        }
        _ => false,
    }
}

/// `^_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`
fn matches_dns_label_underscore(v: &[u8]) -> bool {
    let v = v.strip_prefix(b"_").unwrap_or(v);
    match (v.first(), v.last()) {
        (Some(&f), Some(&l)) => {
            is_lower_alnum(f)
                && is_lower_alnum(l)
                && v.iter().all(|&c| is_lower_alnum(c) || c == b'-' || c == b'_')
        }
        _ => false,
    }
}

fn matches_dns_subdomain(v: &str) -> bool {
    v.split('.').all(|part| matches_dns_label(part.as_bytes()))
}

/// `IsDNS1123Label`.
pub fn is_dns1123_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_LABEL_MAX_LENGTH {
        errs.push(max_len_error(DNS1123_LABEL_MAX_LENGTH));
    }
    if !matches_dns_label(value.as_bytes()) {
        if matches_dns_subdomain(value) {
            errs.push("must not contain dots".to_owned());
        } else {
            errs.push(regex_error(
                DNS1123_LABEL_ERR,
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

/// `IsDNS1123Subdomain`.
pub fn is_dns1123_subdomain(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_SUBDOMAIN_MAX_LENGTH {
        errs.push(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH));
    }
    if !matches_dns_subdomain(value) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_ERR,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// `IsDNS1123SubdomainWithUnderscore`.
pub(crate) fn is_dns1123_subdomain_with_underscore(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_SUBDOMAIN_MAX_LENGTH {
        errs.push(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH));
    }
    if !value
        .split('.')
        .all(|part| matches_dns_label_underscore(part.as_bytes()))
    {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_US_ERR,
            DNS1123_SUBDOMAIN_US_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// `^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`
fn matches_label_key_name(v: &[u8]) -> bool {
    match (v.first(), v.last()) {
        (Some(&f), Some(&l)) => {
            f.is_ascii_alphanumeric()
                && l.is_ascii_alphanumeric()
                && v.iter()
                    .all(|&c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_' || c == b'.')
        }
        _ => false,
    }
}

/// `IsQualifiedName` (= `content.IsLabelKey`): an optional DNS-subdomain prefix and `/`, then a
/// name of at most 63 characters.
pub fn is_qualified_name(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    // One '/' at most: `prefix/name` or `name` (split without collecting the parts).
    let name = match value.split_once('/') {
        None => value,
        Some((prefix, name)) if !name.contains('/') => {
            if prefix.is_empty() {
                errs.push(format!("prefix part {}", empty_error()));
            } else {
                let mut msgs = is_dns1123_subdomain(prefix);
                if prefix.len() > DNS1123_SUBDOMAIN_MAX_LENGTH
                    && let Some(first) = msgs.first_mut()
                {
                    *first = content_max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH);
                }
                for m in msgs {
                    errs.push(format!("prefix part {m}"));
                }
            }
            name
        }
        Some(_) => {
            // `content.IsLabelKey`'s wording (1.34 on; 1.33 said "a qualified name").
            errs.push(format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(LABEL_KEY_ERR, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push(format!("name part {}", empty_error()));
    } else if name.len() > DNS1123_LABEL_MAX_LENGTH {
        errs.push(format!(
            "name part {}",
            content_max_len_error(DNS1123_LABEL_MAX_LENGTH)
        ));
    }
    if !matches_label_key_name(name.as_bytes()) {
        errs.push(format!(
            "name part {}",
            regex_error(LABEL_KEY_ERR, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])
        ));
    }
    errs
}

/// `IsValidLabelValue` (= `content.IsLabelValue`).
pub fn is_valid_label_value(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_LABEL_MAX_LENGTH {
        errs.push(content_max_len_error(DNS1123_LABEL_MAX_LENGTH));
    }
    if !value.is_empty() && !matches_label_key_name(value.as_bytes()) {
        errs.push(regex_error(
            LABEL_VALUE_ERR,
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

fn has_chdir_prefix(value: &str) -> Option<String> {
    match value {
        "." => Some("must not be '.'".to_owned()),
        ".." => Some("must not be '..'".to_owned()),
        v if v.starts_with("..") => Some("must not start with '..'".to_owned()),
        _ => None,
    }
}

/// `IsEnvVarName` (strict rules).
pub(crate) fn is_env_var_name(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let b = value.as_bytes();
    let ok = b
        .first()
        .is_some_and(|&c| c.is_ascii_alphabetic() || b"-._".contains(&c))
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || b"-._".contains(&c));
    if !ok {
        errs.push(regex_error(
            ENV_VAR_ERR,
            ENV_VAR_FMT,
            &["my.env-name", "MY_ENV.NAME", "MyEnvName1"],
        ));
    }
    errs.extend(has_chdir_prefix(value));
    errs
}

/// `IsRelaxedEnvVarName`: any printable ASCII except `=` (gate `RelaxedEnvironmentVariableValidation`,
/// on by default since 1.32).
pub(crate) fn is_relaxed_env_var_name(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.is_empty() {
        errs.push(format!("environment variable name {}", empty_error()));
    }
    if value
        .chars()
        .any(|c| !c.is_ascii() || c.is_ascii_control() || c == '=')
    {
        errs.push(RELAXED_ENV_VAR_ERR.to_owned());
    }
    errs
}

/// `IsConfigMapKey`.
pub(crate) fn is_config_map_key(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_SUBDOMAIN_MAX_LENGTH {
        errs.push(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH));
    }
    if value.is_empty()
        || !value
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"-._".contains(&c))
    {
        errs.push(regex_error(
            CONFIG_MAP_KEY_ERR,
            CONFIG_MAP_KEY_FMT,
            &["key.name", "KEY_NAME", "key-name"],
        ));
    }
    errs.extend(has_chdir_prefix(value));
    errs
}

/// `IsValidPortNum`: 1..=65535.
pub(crate) fn is_valid_port_num(port: i64) -> Vec<String> {
    if (1..=65535).contains(&port) {
        Vec::new()
    } else {
        vec![inclusive_range_error(1, 65535)]
    }
}

/// `IsValidPortName`.
pub(crate) fn is_valid_port_name(port: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if port.len() > 15 {
        errs.push(max_len_error(15));
    }
    if port.is_empty()
        || !port
            .bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
    {
        errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)".to_owned());
    }
    if !port.bytes().any(|c| c.is_ascii_lowercase()) {
        errs.push("must contain at least one letter (a-z)".to_owned());
    }
    if port.contains("--") {
        errs.push("must not contain consecutive hyphens".to_owned());
    }
    if port.starts_with('-') || port.ends_with('-') {
        errs.push("must not begin or end with a hyphen".to_owned());
    }
    errs
}

/// `IsValidUserID`: 0..=2147483647 (`minUserID`, `maxUserID = math.MaxInt32`).
pub(crate) fn is_valid_user_id(uid: i64) -> Vec<String> {
    let max = i64::from(i32::MAX);
    if (0..=max).contains(&uid) {
        Vec::new()
    } else {
        vec![inclusive_range_error(0, max)]
    }
}

/// `IsValidGroupID`: 0..=2147483647, like [`is_valid_user_id`].
pub(crate) fn is_valid_group_id(gid: i64) -> Vec<String> {
    is_valid_user_id(gid)
}

/// `IsHTTPHeaderName`.
pub(crate) fn is_http_header_name(value: &str) -> Vec<String> {
    if !value.is_empty() && value.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-') {
        Vec::new()
    } else {
        vec![regex_error(HTTP_HEADER_ERR, HTTP_HEADER_FMT, &["X-Header-Name"])]
    }
}

/// The detail of an invalid IP address (`validation.IsValidIP`).
pub(crate) const IP_DETAIL: &str = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

/// Go's pre-1.17 IPv4 parsing (`k8s.io/utils/net` `parseIPv4`): four decimal octets, each any
/// number of digits (leading zeros allowed, read as decimal) with a value of at most 255.
fn parse_ipv4_sloppy(value: &str) -> Option<std::net::Ipv4Addr> {
    let mut octets = [0u8; 4];
    let mut parts = value.split('.');
    for octet in &mut octets {
        let part = parts.next()?;
        if part.is_empty() || !part.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let mut n: u32 = 0;
        for c in part.bytes() {
            n = n * 10 + u32::from(c - b'0');
            if n > 255 {
                return None;
            }
        }
        *octet = u8::try_from(n).ok()?;
    }
    if parts.next().is_some() {
        return None;
    }
    Some(std::net::Ipv4Addr::from(octets))
}

/// `netutils.ParseIPSloppy`: like Go's `net.ParseIP`, but IPv4 octets — also those of an IPv6
/// address's embedded IPv4 tail (`::ffff:010.0.0.1`) — may have leading zeros.
pub(crate) fn parse_ip_sloppy(value: &str) -> Option<std::net::IpAddr> {
    if !value.contains(':') {
        return parse_ipv4_sloppy(value).map(std::net::IpAddr::V4);
    }
    if let Ok(v6) = value.parse::<std::net::Ipv6Addr>() {
        return Some(std::net::IpAddr::V6(v6));
    }
    // Rust's parser refuses leading zeros in the embedded IPv4 part; Go's sloppy one does not.
    let (head, tail) = value.rsplit_once(':')?;
    let v4 = parse_ipv4_sloppy(tail)?;
    format!("{head}:{v4}")
        .parse::<std::net::Ipv6Addr>()
        .ok()
        .map(std::net::IpAddr::V6)
}

/// Whether an address is IPv6 in Go's sense (`netutils.IsIPv6`: IPv4-mapped addresses count as
/// IPv4).
pub(crate) fn is_ipv6(ip: &std::net::IpAddr) -> bool {
    match ip {
        std::net::IpAddr::V4(_) => false,
        std::net::IpAddr::V6(v6) => v6.to_ipv4_mapped().is_none(),
    }
}

/// `validation.IsValidIPForLegacyField(fldPath, value, strict, nil)` (`parseIP`) with the
/// caller's origin: `ParseIPSloppy`, and with `strict` (`StrictIPCIDRValidation`) no leading zeros
/// and no IPv4-mapped IPv6 address.
pub(crate) fn validate_ip_with_origin(
    path: &Path,
    value: &str,
    strict: bool,
    origin: &'static str,
) -> ErrorList {
    if parse_ip_sloppy(value).is_none() {
        return vec![FieldError::invalid(path, value, IP_DETAIL).with_origin(origin)];
    }
    if !strict {
        return Vec::new();
    }
    // `netip.ParseAddr`, which refuses what only the sloppy parser reads (leading zeros).
    match value.parse::<std::net::IpAddr>() {
        Err(_) => vec![FieldError::invalid(path, value, "must not have leading 0s").with_origin(origin)],
        Ok(std::net::IpAddr::V6(v6)) if v6.to_ipv4_mapped().is_some() => vec![
            FieldError::invalid(path, value, "must not be an IPv4-mapped IPv6 address").with_origin(origin),
        ],
        Ok(_) => Vec::new(),
    }
}

/// [`validate_ip_with_origin`] with origin `format/ip`.
pub(crate) fn validate_ip(path: &Path, value: &str, strict: bool) -> ErrorList {
    validate_ip_with_origin(path, value, strict, "format/ip")
}

/// Upstream `maskTrailingDash`: a generated-name prefix may end in `-`.
fn mask_trailing_dash(name: &str) -> String {
    match name.strip_suffix('-') {
        Some(rest) if !rest.is_empty() => format!("{rest}a"),
        _ => name.to_owned(),
    }
}

/// `NameIsDNSSubdomain(name, prefix)` (`ValidatePodName`, node names, secret names, ...).
pub(crate) fn name_is_dns_subdomain(name: &str, prefix: bool) -> Vec<String> {
    if prefix {
        is_dns1123_subdomain(&mask_trailing_dash(name))
    } else {
        is_dns1123_subdomain(name)
    }
}

/// `NameIsDNSLabel(name, prefix)` (`ValidateNamespaceName`).
pub(crate) fn name_is_dns_label(name: &str, prefix: bool) -> Vec<String> {
    if prefix {
        is_dns1123_label(&mask_trailing_dash(name))
    } else {
        is_dns1123_label(name)
    }
}

/// Turn messages into `Invalid` errors at `path` with `value`.
pub(crate) fn invalid_each(path: &Path, value: &str, msgs: Vec<String>, origin: &'static str) -> ErrorList {
    msgs.into_iter()
        .map(|m| FieldError::invalid(path, value, m).with_origin(origin))
        .collect()
}

/// `ValidateDNS1123Label(value, path)`.
pub(crate) fn validate_dns1123_label(value: &str, path: &Path) -> ErrorList {
    invalid_each(path, value, is_dns1123_label(value), "format/dns-label")
}

/// `ValidateDNS1123Subdomain(value, path)`.
pub(crate) fn validate_dns1123_subdomain(value: &str, path: &Path) -> ErrorList {
    invalid_each(path, value, is_dns1123_subdomain(value), "format/dns-subdomain")
}

/// `ValidateQualifiedName(value, path)`.
pub(crate) fn validate_qualified_name(value: &str, path: &Path) -> ErrorList {
    invalid_each(path, value, is_qualified_name(value), "format/qualified-name")
}

/// `metav1validation.ValidateLabelName(value, path)`.
pub(crate) fn validate_label_name(value: &str, path: &Path) -> ErrorList {
    invalid_each(path, value, is_qualified_name(value), "format/label-key")
}

/// `metav1validation.ValidateLabels(labels, path)`: keys and values, errors at the map's path.
pub(crate) fn validate_labels(labels: Option<&BTreeMap<String, String>>, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    for (k, v) in labels.into_iter().flatten() {
        errs.extend(validate_label_name(k, path));
        errs.extend(invalid_each(
            path,
            v,
            is_valid_label_value(v),
            "format/label-value",
        ));
    }
    errs
}

/// `apimachineryvalidation.ValidateAnnotations(annotations, path)`: keys are qualified names
/// (case-insensitive), total size at most 256 kB.
pub(crate) fn validate_annotations(annotations: Option<&BTreeMap<String, String>>, path: &Path) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut total = 0usize;
    for (k, v) in annotations.into_iter().flatten() {
        errs.extend(invalid_each(
            path,
            k,
            is_qualified_name(&k.to_lowercase()),
            "format/annotation-key",
        ));
        total = total.saturating_add(k.len()).saturating_add(v.len());
    }
    if total > TOTAL_ANNOTATION_SIZE_LIMIT {
        errs.push(
            FieldError::too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT).with_origin("meta/annotations-size"),
        );
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations_may_total_at_most_256_kib() {
        let path = Path::new("metadata").child("annotations");
        let at_limit = BTreeMap::from([("a".to_string(), "x".repeat(TOTAL_ANNOTATION_SIZE_LIMIT - 1))]);
        assert!(validate_annotations(Some(&at_limit), &path).is_empty());
        let over = BTreeMap::from([("a".to_string(), "x".repeat(TOTAL_ANNOTATION_SIZE_LIMIT))]);
        let errs = validate_annotations(Some(&over), &path);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].error_type, podmut_model::field::ErrorType::TooLong);
        assert_eq!(errs[0].field.to_string(), "metadata.annotations");
        assert_eq!(errs[0].origin, "meta/annotations-size");
    }

    #[test]
    fn dns_labels() {
        for ok in ["a", "abc", "a-b", "123", "0-a", &"a".repeat(63)] {
            assert!(is_dns1123_label(ok).is_empty(), "{ok}");
        }
        for bad in ["", "A", "-a", "a-", "a_b", "a b", "é"] {
            assert_eq!(is_dns1123_label(bad).len(), 1, "{bad}");
        }
        assert_eq!(
            is_dns1123_label("a.b.c"),
            vec!["must not contain dots".to_owned()]
        );
        assert_eq!(is_dns1123_label(&"a".repeat(64)), vec![max_len_error(63)]);
        assert_eq!(
            is_dns1123_label("Abc"),
            vec!["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')".to_owned()]
        );
    }

    #[test]
    fn dns_subdomains() {
        for ok in ["a", "a.b", "example.com", "a-1.b-2"] {
            assert!(is_dns1123_subdomain(ok).is_empty(), "{ok}");
        }
        for bad in ["", ".a", "a.", "a..b", "A.b", "a_b"] {
            assert_eq!(is_dns1123_subdomain(bad).len(), 1, "{bad}");
        }
        assert!(is_dns1123_subdomain_with_underscore("_a.b_c").is_empty());
        assert!(!is_dns1123_subdomain_with_underscore("a_").is_empty());
        assert!(name_is_dns_subdomain("web-", true).is_empty());
        assert!(!name_is_dns_subdomain("web-", false).is_empty());
    }

    #[test]
    fn qualified_names_and_label_values() {
        for ok in ["a", "A.b_c-d", "example.com/Name", "a/b", &"a".repeat(63)] {
            assert!(is_qualified_name(ok).is_empty(), "{ok}");
        }
        assert_eq!(
            is_qualified_name("/a"),
            vec!["prefix part must be non-empty".to_owned()]
        );
        assert_eq!(is_qualified_name("a/"), {
            let mut v = vec!["name part must be non-empty".to_owned()];
            v.push(format!(
                "name part {}",
                regex_error(LABEL_KEY_ERR, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])
            ));
            v
        });
        assert_eq!(is_qualified_name("a/b/c").len(), 1);
        assert!(is_qualified_name("a/b/c")[0].starts_with("a valid label key must consist of"));
        assert_eq!(is_qualified_name("Bad_/x").len(), 1);
        assert_eq!(is_qualified_name(&"a".repeat(64)).len(), 1);
        for ok in ["", "a", "A-b_c.d", "12345"] {
            assert!(is_valid_label_value(ok).is_empty(), "{ok}");
        }
        for bad in ["-1", "a-", "a b", &"a".repeat(64)] {
            assert!(!is_valid_label_value(bad).is_empty(), "{bad}");
        }
    }

    #[test]
    fn env_and_keys() {
        assert!(is_env_var_name("MY_ENV.NAME").is_empty());
        assert_eq!(is_env_var_name("1abc").len(), 1);
        assert_eq!(is_env_var_name("ev!1").len(), 1);
        assert_eq!(
            is_env_var_name("..a"),
            vec!["must not start with '..'".to_owned()]
        );
        assert!(is_relaxed_env_var_name("ev!1").is_empty());
        assert!(is_relaxed_env_var_name("1 a").is_empty());
        assert_eq!(is_relaxed_env_var_name("a=b").len(), 1);
        assert_eq!(is_relaxed_env_var_name("").len(), 1);
        assert!(is_config_map_key("key.name").is_empty());
        assert_eq!(is_config_map_key("a/b").len(), 1);
        assert_eq!(is_config_map_key(".."), vec!["must not be '..'".to_owned()]);
    }

    #[test]
    fn ports_ids_headers_ips() {
        assert!(is_valid_port_num(1).is_empty() && is_valid_port_num(65535).is_empty());
        assert_eq!(
            is_valid_port_num(0),
            vec!["must be between 1 and 65535, inclusive".to_owned()]
        );
        assert!(is_valid_port_name("http").is_empty());
        assert_eq!(is_valid_port_name("80").len(), 1);
        assert_eq!(is_valid_port_name("a--b").len(), 1);
        assert_eq!(is_valid_port_name("-ab").len(), 1);
        assert_eq!(is_valid_port_name("abcdefghijklmnop").len(), 1);
        assert!(is_valid_user_id(0).is_empty() && is_valid_user_id(2_147_483_647).is_empty());
        assert_eq!(is_valid_user_id(-1).len(), 1);
        assert_eq!(
            is_valid_user_id(2_147_483_648).len(),
            1,
            "maxUserID is math.MaxInt32"
        );
        assert!(is_http_header_name("X-Header").is_empty());
        assert_eq!(is_http_header_name("X Header").len(), 1);
        assert!(parse_ip_sloppy("10.0.0.010").is_some());
        assert!(parse_ip_sloppy("::1").is_some());
        assert!(parse_ip_sloppy("1.2.3").is_none());
        assert!(parse_ip_sloppy("1.2.3.256").is_none());
        assert!(parse_ip_sloppy("invalid").is_none());
        assert!(parse_ip_sloppy("010.000.000.001").is_some());
        assert!(
            parse_ip_sloppy("0000010.0.0.1").is_some(),
            "any number of digits, like Go's dtoi"
        );
        assert!(parse_ip_sloppy("::ffff:010.0.0.1").is_some());
        assert!(parse_ip_sloppy("::ffff:1.2.3").is_none());
        assert!(!is_ipv6(&parse_ip_sloppy("::ffff:10.0.0.1").unwrap()));
        assert!(is_ipv6(&parse_ip_sloppy("fd00::1").unwrap()));
    }

    #[test]
    fn regex_error_matches_go_format() {
        assert_eq!(
            regex_error("m", "f", &["a", "b"]),
            "m (e.g. 'a',  or 'b', regex used for validation is 'f')"
        );
        assert_eq!(regex_error("m", "f", &[]), "m (regex used for validation is 'f')");
    }
}
