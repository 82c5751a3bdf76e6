//! Image pull policies: what containers and image volumes share.

use podmut_model::field::{ErrorList, FieldError, Path};

/// `validatePullPolicy`.
pub(crate) fn validate_pull_policy(policy: &str, path: &Path) -> ErrorList {
    match policy {
        "Always" | "IfNotPresent" | "Never" => ErrorList::new(),
        "" => vec![FieldError::required(path, "").with_origin("container/pull-policy")],
        other => vec![
            FieldError::not_supported(path, other, &["Always", "IfNotPresent", "Never"])
                .with_origin("container/pull-policy"),
        ],
    }
}
