//! The `inputs` interface: documents as users have them, patches, AdmissionReview requests; and
//! the `documents` interface, `podmut check`'s reading and judging in one call.

use podmut_core::DocumentKind;
use podmut_core::FieldValidation;
use podmut_core::PatchType;
use podmut_core::{Operation, RequestOptions};

use crate::bindings::exports::podmut::policy::{documents, inputs};
use crate::bindings::podmut::policy::types;
use crate::{Component, input_error_to_wit, sub_from_wit, verdict_to_wit};

/// The largest document read (the default settings' `maxInputBytes`, the API server's own limit).
fn limit() -> u64 {
    podmut_core::Settings::default().max_input_bytes
}

fn kind_from_wit(k: inputs::DocumentKind) -> DocumentKind {
    match k {
        inputs::DocumentKind::Pod => DocumentKind::Pod,
        inputs::DocumentKind::Node => DocumentKind::Node,
        inputs::DocumentKind::AdmissionReview => DocumentKind::AdmissionReview,
        inputs::DocumentKind::AllocationRequest => DocumentKind::AllocationRequest,
        inputs::DocumentKind::RetryRequest => DocumentKind::RetryRequest,
        inputs::DocumentKind::StatusesRequest => DocumentKind::StatusesRequest,
    }
}

fn documents_to_wit(docs: Vec<podmut_core::Document>) -> Vec<inputs::Document> {
    docs.into_iter()
        .map(|d| inputs::Document {
            index: d.index,
            namespace: d.namespace,
            name: d.name,
            json: d.json,
            warnings: d.warnings,
            error: d.error,
        })
        .collect()
}

fn validation_from_wit(v: inputs::FieldValidation) -> FieldValidation {
    match v {
        inputs::FieldValidation::Strict => FieldValidation::Strict,
        inputs::FieldValidation::Warn => FieldValidation::Warn,
        inputs::FieldValidation::Ignore => FieldValidation::Ignore,
    }
}

impl inputs::Guest for Component {
    fn read_documents(
        text: String,
        input: String,
        kind: inputs::DocumentKind,
        validation: inputs::FieldValidation,
    ) -> Result<Vec<inputs::Document>, types::InputError> {
        podmut_core::read_documents(
            &text,
            &input,
            kind_from_wit(kind),
            validation_from_wit(validation),
            limit(),
        )
        .map(documents_to_wit)
        .map_err(input_error_to_wit)
    }

    fn apply_patch(
        old_pod: String,
        patch: String,
        type_: inputs::PatchType,
    ) -> Result<String, types::InputError> {
        let patch_type = match type_ {
            inputs::PatchType::Strategic => PatchType::Strategic,
            inputs::PatchType::Merge => PatchType::Merge,
            inputs::PatchType::Json => PatchType::Json,
        };
        podmut_core::apply_patch(&old_pod, &patch, patch_type, limit())
            .map(|v| v.to_string())
            .map_err(input_error_to_wit)
    }

    fn admission_request(
        old_pod: Option<String>,
        new_pod: Option<String>,
        options: inputs::RequestOptions,
    ) -> Result<String, types::InputError> {
        let options = RequestOptions {
            operation: match options.operation {
                inputs::Operation::Create => Operation::Create,
                inputs::Operation::Update => Operation::Update,
                inputs::Operation::Delete => Operation::Delete,
            },
            subresource: sub_from_wit(options.sub),
            dry_run: options.dry_run,
            user: options.user,
            uid: options.uid,
        };
        podmut_core::admission_request(old_pod.as_deref(), new_pod.as_deref(), &options, limit())
            .map(|v| v.to_string())
            .map_err(input_error_to_wit)
    }
}

impl documents::Guest for Component {
    fn read_and_check(
        old_pod: Option<String>,
        new_pod: String,
        validation: inputs::FieldValidation,
        sub: types::Subresource,
        settings: String,
    ) -> Result<documents::CheckedDocuments, types::InputError> {
        podmut_core::read_and_check(
            old_pod.as_deref(),
            &new_pod,
            validation_from_wit(validation),
            sub_from_wit(sub),
            &settings,
            limit(),
        )
        .map(|read| documents::CheckedDocuments {
            old: documents_to_wit(read.old),
            new: documents_to_wit(read.new),
            verdict: read
                .verdict
                .map(|v| v.map(|v| verdict_to_wit(&v)).map_err(input_error_to_wit)),
        })
        .map_err(input_error_to_wit)
    }
}
