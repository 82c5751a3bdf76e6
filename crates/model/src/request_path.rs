//! The request paths a Pod change arrives on: the one table validation, plans, admission
//! coverage and the webhook name them from.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The Pod request path a change arrives on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Subresource {
    /// The main resource (`pods`), or a create.
    #[default]
    None,
    /// `pods/dynamic` (KEP-5972).
    Dynamic,
    /// `pods/ephemeralcontainers`.
    #[serde(rename = "ephemeralcontainers")]
    EphemeralContainers,
    /// `pods/resize`.
    Resize,
    /// `pods/status`.
    Status,
}

impl Subresource {
    /// Every request path.
    pub const ALL: [Subresource; 5] = [
        Subresource::None,
        Subresource::Dynamic,
        Subresource::EphemeralContainers,
        Subresource::Resize,
        Subresource::Status,
    ];

    /// The name as it appears in `request.subResource` (`""` for the main resource) and on the CLI
    /// (`none`).
    pub fn as_str(self) -> &'static str {
        match self {
            Subresource::None => "none",
            Subresource::Dynamic => "dynamic",
            Subresource::EphemeralContainers => "ephemeralcontainers",
            Subresource::Resize => "resize",
            Subresource::Status => "status",
        }
    }

    /// The AdmissionReview `request.subResource` value.
    pub fn api_name(self) -> &'static str {
        match self {
            Subresource::None => "",
            other => other.as_str(),
        }
    }
}

impl fmt::Display for Subresource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Subresource {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "" | "none" => Ok(Subresource::None),
            "dynamic" => Ok(Subresource::Dynamic),
            "ephemeralcontainers" | "ephemeral-containers" => Ok(Subresource::EphemeralContainers),
            "resize" => Ok(Subresource::Resize),
            "status" => Ok(Subresource::Status),
            other => Err(format!(
                "unknown subresource {other:?}: expected one of none, dynamic, ephemeralcontainers, resize, status"
            )),
        }
    }
}

/// A request path a Pod change arrives on, with creates and plain updates told apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestPath {
    /// A create (`POST pods`).
    Create,
    /// A plain update of the main resource (`PUT pods/NAME`).
    Update,
    /// `pods/dynamic` (KEP-5972).
    Dynamic,
    /// `pods/ephemeralcontainers`.
    EphemeralContainers,
    /// `pods/resize`.
    Resize,
    /// `pods/status`.
    Status,
}

impl RequestPath {
    /// Every request path, in the order the table lists them.
    pub const ALL: [RequestPath; 6] = [
        RequestPath::Create,
        RequestPath::Update,
        RequestPath::Dynamic,
        RequestPath::EphemeralContainers,
        RequestPath::Resize,
        RequestPath::Status,
    ];

    /// The name podmut prints (`create`, `update`, or the subresource's name).
    pub fn as_str(self) -> &'static str {
        match self {
            RequestPath::Create => "create",
            RequestPath::Update => "update",
            RequestPath::Dynamic => "dynamic",
            RequestPath::EphemeralContainers => "ephemeralcontainers",
            RequestPath::Resize => "resize",
            RequestPath::Status => "status",
        }
    }

    /// The subresource a check on this path names (creates and plain updates: none).
    pub fn subresource(self) -> Subresource {
        use Subresource as S;
        match self {
            RequestPath::Create | RequestPath::Update => S::None,
            RequestPath::Dynamic => S::Dynamic,
            RequestPath::EphemeralContainers => S::EphemeralContainers,
            RequestPath::Resize => S::Resize,
            RequestPath::Status => S::Status,
        }
    }
}

impl fmt::Display for RequestPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
