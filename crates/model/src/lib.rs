//! podmut-model: the Kubernetes Pod API as podmut models it, with no rule of any request path.
//!
//! It owns what every other podmut crate reads Pods through: documents as the API server decodes
//! them (`document`, `field_validation` for unknown and duplicate fields, `patch` for the three
//! patch types), field paths and errors (`field`, also the places in a document), Go's
//! JSON and quoting (`gojson`, how upstream prints bad values), quantities (`quantity`), the
//! request paths (`request_path`), settings with the release profiles and feature gates
//! (`settings`), and the API helpers upstream keeps beside its types: defaulting (`defaults`),
//! QoS (`qos`), semantic equality (`semantic`), resource sums (`resource_helper`) and facts about
//! a Pod (`podutil`). It depends on serde, k8s-openapi and parsing libraries only: no other podmut
//! crate, no I/O.

pub mod defaults;
pub mod document;
pub mod field;
pub mod field_validation;
pub mod gojson;
pub mod order;
pub mod patch;
pub mod podutil;
pub mod qos;
pub mod quantity;
pub mod request_path;
pub mod resource_helper;
pub mod semantic;
pub mod settings;
pub mod template_pods;
pub mod workload;
pub mod workload_defaults;
pub mod yaml;
