//! The Kubernetes CEL format library (`k8s.io/apiserver/pkg/cel/library/format.go`):
//! `format.dns1123Label().validate(name)` and friends, `format.named(name)`. Each format is the
//! apimachinery validation podmut already has for Pods (`pod::names`), so a name is judged the
//! same way here as in a Pod's own validation; `validate` answers `optional.none()` when valid,
//! else `optional.of([error, ...])` with upstream's messages.

#![expect(
    clippy::needless_pass_by_value,
    reason = "the cel crate's function adapters hand arguments over by value"
)]

use std::sync::Arc;

use cel::extractors::This;
use cel::objects::{Opaque, OptionalValue};
use cel::{Context, ExecutionError, Value};

use podmut_validation::pod::names;

type Res = Result<Value, ExecutionError>;

/// A named format and its validation.
#[derive(Debug)]
pub(crate) struct Format {
    name: &'static str,
    check: fn(&str) -> Vec<String>,
}

impl PartialEq for Format {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for Format {}

impl Opaque for Format {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.NamedFormat"
    }
}

fn dns1123_label_prefix(s: &str) -> Vec<String> {
    // A prefix is valid when it can start a valid name: what a trailing "-" would make invalid
    // is fine (upstream appends "a" before validating).
    names::is_dns1123_label(&format!("{s}a"))
}

fn dns1123_subdomain_prefix(s: &str) -> Vec<String> {
    names::is_dns1123_subdomain(&format!("{s}a"))
}

/// The formats this library knows, by `format.named()` name.
const FORMATS: &[Format] = &[
    Format {
        name: "dns1123Label",
        check: names::is_dns1123_label,
    },
    Format {
        name: "dns1123Subdomain",
        check: names::is_dns1123_subdomain,
    },
    Format {
        name: "dns1123LabelPrefix",
        check: dns1123_label_prefix,
    },
    Format {
        name: "dns1123SubdomainPrefix",
        check: dns1123_subdomain_prefix,
    },
    Format {
        name: "qualifiedName",
        check: names::is_qualified_name,
    },
    Format {
        name: "labelValue",
        check: names::is_valid_label_value,
    },
];

fn format_value(f: &'static Format) -> Value {
    Value::Opaque(Arc::new(Format {
        name: f.name,
        check: f.check,
    }))
}

fn by_name(name: &str) -> Option<&'static Format> {
    FORMATS.iter().find(|f| f.name == name)
}

/// Add the functions to a context.
pub(crate) fn register(ctx: &mut Context<'_, '_>) {
    // A clash with the environment is a bug every test shows, never an input's fault.
    let _ = ctx.add_function("format.named", named);
    let _ = ctx.add_function("format.dns1123Label", || format_of("dns1123Label"));
    let _ = ctx.add_function("format.dns1123Subdomain", || format_of("dns1123Subdomain"));
    let _ = ctx.add_function("format.dns1123LabelPrefix", || format_of("dns1123LabelPrefix"));
    let _ = ctx.add_function("format.dns1123SubdomainPrefix", || {
        format_of("dns1123SubdomainPrefix")
    });
    let _ = ctx.add_function("format.qualifiedName", || format_of("qualifiedName"));
    let _ = ctx.add_function("format.labelValue", || format_of("labelValue"));
    let _ = ctx.add_function("validate", validate);
}

fn format_of(name: &str) -> Res {
    by_name(name)
        .map(format_value)
        .ok_or_else(|| ExecutionError::function_error("format", format!("unknown format {name:?}")))
}

fn named(name: Value) -> Res {
    let Value::String(n) = &name else {
        return Err(ExecutionError::no_such_overload(
            "format.named",
            vec![name.type_of().to_string()],
        ));
    };
    let found = by_name(n).map(|f| OptionalValue::of(format_value(f)));
    Ok(Value::Opaque(Arc::new(found.unwrap_or_else(OptionalValue::none))))
}

fn validate(This(this): This<Value>, text: Value) -> Res {
    let format = match &this {
        Value::Opaque(o) => o.downcast_ref::<Format>(),
        _ => None,
    };
    let (Some(format), Value::String(s)) = (format, &text) else {
        return Err(ExecutionError::no_such_member_overload(
            "validate",
            vec![this.type_of().to_string(), text.type_of().to_string()],
        ));
    };
    let errors = (format.check)(s);
    let result = if errors.is_empty() {
        OptionalValue::none()
    } else {
        OptionalValue::of(Value::List(Arc::new(
            errors.into_iter().map(|e| Value::String(Arc::new(e))).collect(),
        )))
    };
    Ok(Value::Opaque(Arc::new(result)))
}

#[cfg(test)]
mod tests {
    use super::super::cel::eval;

    /// Upstream `library/format_test.go` (the formats this library implements).
    #[test]
    fn formats() {
        for e in [
            "!format.dns1123Label().validate('my-label-name').hasValue()",
            "format.dns1123Label().validate('MY-LABEL').hasValue()",
            "format.dns1123Label().validate('MY-LABEL').value()[0].contains('a lowercase RFC 1123 label')",
            "!format.dns1123Subdomain().validate('apiextensions.k8s.io').hasValue()",
            "format.dns1123Subdomain().validate('-apiextensions.k8s.io').hasValue()",
            "!format.dns1123LabelPrefix().validate('my-label-prefix-').hasValue()",
            "!format.qualifiedName().validate('example.com/name').hasValue()",
            "format.qualifiedName().validate('-bad').hasValue()",
            "!format.labelValue().validate('my-cool-label-Value').hasValue()",
            "format.labelValue().validate('-bad').hasValue()",
            "format.named('dns1123Label').hasValue()",
            "!format.named('not-a-format').hasValue()",
            "!format.named('dns1123Label').value().validate('ok').hasValue()",
        ] {
            assert_eq!(eval(e), Ok(cel::Value::Bool(true)), "{e}");
        }
    }
}
