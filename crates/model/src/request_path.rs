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
    pub const fn as_str(self) -> &'static str {
        match self {
            Subresource::None => "none",
            Subresource::Dynamic => "dynamic",
            Subresource::EphemeralContainers => "ephemeralcontainers",
            Subresource::Resize => "resize",
            Subresource::Status => "status",
        }
    }

    /// The AdmissionReview `request.subResource` value.
    pub const fn api_name(self) -> &'static str {
        match self {
            Subresource::None => "",
            other => other.as_str(),
        }
    }

    /// The resource as admission rules and policies name it (`pods`, `pods/dynamic`, ...).
    pub const fn resource(self) -> &'static str {
        match self {
            Subresource::None => "pods",
            Subresource::Dynamic => "pods/dynamic",
            Subresource::EphemeralContainers => "pods/ephemeralcontainers",
            Subresource::Resize => "pods/resize",
            Subresource::Status => "pods/status",
        }
    }

    /// The path named `name` in an AdmissionReview's `request.subResource` (`""` for the main
    /// resource): [`Subresource::api_name`] read back, without the CLI's spellings.
    pub fn from_api_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.api_name() == name)
    }
}

/// Spellings [`Subresource::from_str`] takes besides [`Subresource::as_str`] and
/// [`Subresource::api_name`]: the WIT enum's case name.
const ALIASES: [(&str, Subresource); 1] = [("ephemeral-containers", Subresource::EphemeralContainers)];

impl fmt::Display for Subresource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Subresource {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|sub| sub.as_str() == s || sub.api_name() == s)
            .or_else(|| ALIASES.iter().find(|(alias, _)| *alias == s).map(|(_, sub)| *sub))
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|sub| sub.as_str()).collect();
                format!("unknown subresource {s:?}: expected one of {}", names.join(", "))
            })
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
    pub const fn as_str(self) -> &'static str {
        match self {
            RequestPath::Create => "create",
            RequestPath::Update => "update",
            other => other.subresource().as_str(),
        }
    }

    /// The subresource a check on this path names (creates and plain updates: none).
    pub const fn subresource(self) -> Subresource {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back() {
        for sub in Subresource::ALL {
            assert_eq!(sub.as_str().parse::<Subresource>(), Ok(sub));
            assert_eq!(sub.api_name().parse::<Subresource>(), Ok(sub));
            assert_eq!(Subresource::from_api_name(sub.api_name()), Some(sub));
            assert_eq!(
                sub.resource(),
                match sub.api_name() {
                    "" => "pods".to_owned(),
                    name => format!("pods/{name}"),
                }
            );
        }
        assert_eq!(
            "ephemeral-containers".parse::<Subresource>(),
            Ok(Subresource::EphemeralContainers)
        );
        assert_eq!(Subresource::from_api_name("none"), None);
        assert_eq!(
            "bogus".parse::<Subresource>(),
            Err(r#"unknown subresource "bogus": expected one of none, dynamic, ephemeralcontainers, resize, status"#.to_owned())
        );
        for path in RequestPath::ALL {
            let sub = path.subresource();
            if sub != Subresource::None {
                assert_eq!(path.as_str(), sub.as_str());
            }
        }
    }
}
