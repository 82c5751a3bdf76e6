//! podmut-kubelet: what the kubelet does with a Pod change the API server accepted.
//!
//! It owns the resize allocation decision and the retry order of pending resizes
//! (`allocation`), the reconciliation of changed probes (`probe_plan`) and the container
//! statuses a change leads to (`statuses`). The API server's QoS helper it reads lives in
//! podmut-model, as upstream keeps it beside the API types. It may use podmut-model only: what
//! the kubelet sees has already passed validation.
//!
//! Each module computes on decoded values ([`allocation::allocate`], [`probe_plan::probe_plan`],
//! [`statuses::container_statuses`]); its `*_document` function, the WIT contract's entry, is the
//! edge that reads a document once and calls it.

pub mod allocation;
pub mod probe_plan;
pub mod statuses;
