//! podmut-validation: the API server's answer to a Pod change, as a given Kubernetes release
//! gives it.
//!
//! `validation` dispatches a change to its request path; each path is one pipeline: its REST
//! strategy step (`strategy` and the path module's `prepare_update`), the request handling around
//! validation (`rest`), the options derived from the old Pod (`pod::options_from`), the shared
//! validation of `pod` (laid out like upstream's `pkg/apis/core/validation`), then the path's own
//! rules: `ephemeral` (`pods/ephemeralcontainers`), `resize` (`pods/resize`), `dynamic`
//! (`pods/dynamic`, KEP-5972, with the strict profile's `strict`), `status_update`
//! (`pods/status`). `disabled_fields` drops the fields of disabled gates, `node_admission`
//! emulates the admission plugins that read the Pod's Node, `guards` holds podmut's own policy
//! rules that settings turn on, `inputs` reads user documents and
//! judges them, `rules` is the table of every rule origin, and `verdict` the answer. It may use
//! podmut-model only.

pub mod disabled_fields;
pub mod dynamic;
pub mod ephemeral;
pub mod guards;
pub mod inputs;
pub mod node_admission;
pub mod pod;
pub mod resize;
pub mod rest;
pub mod rollout;
pub mod rules;
pub mod selector;
pub mod status_update;
pub mod strategy;
pub mod strict;
pub mod validation;
pub mod verdict;
pub mod workload;
