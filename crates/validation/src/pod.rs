//! The validation every Pod request path shares, laid out by domain like upstream's
//! `pkg/apis/core/validation`. The request paths themselves (`crate::validation` dispatches to
//! them) compose these steps; none of these modules knows about a path.
//!
//! - [`options`] — the validation options; [`options_from`] derives them from the old Pod
//!   (`GetValidationOptionsFromPodSpecAndMeta`);
//! - [`meta`] — ObjectMeta (create and update);
//! - [`annotations`] — the Pod-specific annotations and their update rules;
//! - [`spec`] — `ValidatePodSpec`, `validatePodMetadataAndSpec`, `ValidatePodCreate`;
//! - [`update`] — `ValidatePodUpdate`, split into its metadata/full-validation prefix and its
//!   spec-update step;
//! - [`container`], [`ephemeral`] — containers, init and ephemeral containers; [`images`] — pull
//!   policies;
//! - [`restart_rules`] — container-level restart policies and rules;
//! - [`probes`] — probes and lifecycle handlers;
//! - [`resources`], [`resize`] — resources, resource claims, resize policy, pod-level resources,
//!   and the in-place resize rules;
//! - [`security`] — security contexts, Windows/Linux OS rules, host namespaces;
//! - [`scheduling`] — tolerations, scheduling gates, affinity, topology spread, DNS;
//! - [`volumes`] — volumes and their sources;
//! - [`warnings`] — the warnings of a successful create;
//! - [`names`] — apimachinery's string formats (DNS labels, qualified names, IPs, ...).

pub(crate) mod annotations;
pub(crate) mod container;
pub(crate) mod ephemeral;
pub(crate) mod images;
pub(crate) mod meta;
pub mod names;
pub(crate) mod options;
pub(crate) mod options_from;
pub(crate) mod probes;
pub(crate) mod resize;
pub(crate) mod resources;
pub(crate) mod restart_rules;
pub(crate) mod scheduling;
pub(crate) mod security;
pub(crate) mod spec;
pub(crate) mod update;
pub(crate) mod util;
pub(crate) mod volumes;
pub(crate) mod warnings;

pub(crate) use annotations::validate_pod_specific_annotation_updates;
pub(crate) use meta::validate_object_meta_update;
pub(crate) use options::PodValidationOptions;
pub(crate) use spec::{validate_pod_create, validate_pod_metadata_and_spec, validate_pod_template_spec};
pub(crate) use update::{validate_pod_update, validate_spec_update, validate_update_prefix};
