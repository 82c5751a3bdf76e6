//! A deliberately misbehaving implementation of podmut's `policy` world, for testing how hosts
//! survive guest failures. It is a test artifact: never embedded, shipped or published.
//!
//! Built for `wasm32-wasip2` it is the component. Natively (what host tests depend on) it is a
//! library holding that component's bytes in [`COMPONENT`]: `build.rs` builds this same crate for
//! wasm32 with a nested cargo.
//!
//! `admission.review` looks for a marker anywhere in the AdmissionReview text (tests put it in the
//! Pod's name):
//!
//! | marker                      | behaviour                                           |
//! |-----------------------------|-----------------------------------------------------|
//! | `podmut-misbehave-panic`    | panics (a trap, with the message on stderr)         |
//! | `podmut-misbehave-loop`     | spins forever (the epoch deadline must stop it)     |
//! | `podmut-misbehave-oom`      | allocates until memory runs out                     |
//! | `podmut-misbehave-garbage`  | returns text that is not an AdmissionReview         |
//! | `podmut-misbehave-wrong-uid`| returns a response for another request's uid        |
//! | `podmut-misbehave-remember` | allows, with a warning telling what earlier calls left in this instance's memory |
//! | anything else               | allows the request, echoing its uid                 |
//!
//! Every other function answers `not-implemented`. It does not export `documents` (the
//! `policy` world before that interface was added).

#[cfg(not(target_arch = "wasm32"))]
/// The misbehaving component (`wasm32-wasip2`), built by `build.rs`.
pub const COMPONENT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/podmut_misbehave.wasm"));

#[cfg(not(target_arch = "wasm32"))]
/// The function names split off [`COMPONENT`]'s core module (its `podmut.wasm.names` file): the
/// component itself has none, as the shipped podmut component.
pub const NAMES: &str = include_str!(concat!(env!("OUT_DIR"), "/podmut_misbehave.wasm.names"));

#[cfg(target_arch = "wasm32")]
#[expect(
    unsafe_code,
    reason = "wit-bindgen's export! glue expands to unsafe extern functions"
)]
mod guest {
    mod bindings {
        wit_bindgen::generate!({
            path: "../../wit",
            // The `policy` world as it was before `documents` was added: this component also
            // stands for one built then, which hosts must still run (podmut's host then reads and
            // judges with `inputs.read-documents` and `validate.check`).
            inline: "
                package podmut:misbehave;
                world policy-before-documents {
                    export podmut:policy/validate@0.1.0;
                    export podmut:policy/node@0.1.0;
                    export podmut:policy/admission@0.1.0;
                    export podmut:policy/inputs@0.1.0;
                    export podmut:policy/report@0.1.0;
                    export podmut:policy/policies@0.1.0;
                }
            ",
            world: "policy-before-documents",
            // The world is in this inline package; the interfaces it exports are podmut's.
            generate_all,
        });
        use super::Component;
        export!(Component);
    }

    use bindings::exports::podmut::policy::{admission, inputs, node, policies, report, validate};
    use bindings::podmut::policy::types;
    use std::sync::atomic::{AtomicU32, Ordering};

    struct Component;

    /// Calls this instance has answered, plus one: initialised, so it lives in the data segment
    /// (a reset must restore the image's bytes there, not zero them).
    static CALLS: AtomicU32 = AtomicU32::new(1);
    /// 64 KiB of zero-initialised memory (`.bss`): a reset must clear what a call wrote here.
    static MARKS: [AtomicU32; 16 << 10] = [const { AtomicU32::new(0) }; 16 << 10];

    /// What earlier calls left in this instance's memory; then leave traces for the next one.
    fn remember() -> String {
        let calls = CALLS.fetch_add(1, Ordering::Relaxed);
        let marked = MARKS.iter().filter(|m| m.swap(1, Ordering::Relaxed) != 0).count();
        format!(
            "earlier calls in this instance: {}, marked words: {marked}",
            calls - 1
        )
    }

    fn not_implemented<T>() -> Result<T, types::InputError> {
        Err(types::InputError::NotImplemented(
            "podmut-misbehave implements admission.review only".into(),
        ))
    }

    impl validate::Guest for Component {
        fn check(
            _old: Option<String>,
            _new: String,
            _sub: types::Subresource,
            _settings: String,
        ) -> Result<types::Verdict, types::InputError> {
            not_implemented()
        }
    }

    impl node::Guest for Component {
        fn qos(_pod: String, _options: node::QosOptions) -> Result<types::QosClass, types::InputError> {
            not_implemented()
        }
        fn allocate(_request: String) -> Result<node::AllocationDecision, types::InputError> {
            not_implemented()
        }
        fn retry_order(_pending: String) -> Result<node::RetryPlan, types::InputError> {
            not_implemented()
        }
        fn probe_plan(
            _old: String,
            _new: String,
            _settings: String,
        ) -> Result<node::ProbeReconciliation, types::InputError> {
            not_implemented()
        }
        fn container_statuses(_request: String) -> Result<String, types::InputError> {
            not_implemented()
        }
    }

    #[expect(clippy::panic, reason = "panicking on request is this component's purpose")]
    impl admission::Guest for Component {
        fn review(review: String, _settings: String) -> Result<String, types::InputError> {
            if review.contains("podmut-misbehave-panic") {
                panic!("podmut-misbehave: deliberate panic");
            }
            if review.contains("podmut-misbehave-loop") {
                let mut n: u64 = 0;
                loop {
                    n = std::hint::black_box(n.wrapping_add(1));
                }
            }
            if review.contains("podmut-misbehave-oom") {
                let mut hoard: Vec<Vec<u8>> = Vec::new();
                loop {
                    hoard.push(vec![1; 1 << 20]);
                    std::hint::black_box(&hoard);
                }
            }
            if review.contains("podmut-misbehave-garbage") {
                return Ok("this is not an AdmissionReview".into());
            }
            let value: serde_json::Value = serde_json::from_str(&review).map_err(|e| {
                types::InputError::Malformed(types::InputProblem {
                    input: "admission-review".into(),
                    message: e.to_string(),
                })
            })?;
            let uid = if review.contains("podmut-misbehave-wrong-uid") {
                "not-the-request-uid".to_owned()
            } else {
                value
                    .pointer("/request/uid")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            };
            let mut response = serde_json::json!({"uid": uid, "allowed": true});
            if review.contains("podmut-misbehave-remember") {
                response["warnings"] = serde_json::json!([remember()]);
            }
            Ok(serde_json::json!({
                "apiVersion": "admission.k8s.io/v1",
                "kind": "AdmissionReview",
                "response": response,
            })
            .to_string())
        }

        fn coverage(
            _configs: String,
            _scope: Option<admission::CoverageScope>,
        ) -> Result<admission::CoverageReport, types::InputError> {
            not_implemented()
        }
    }

    impl inputs::Guest for Component {
        fn read_documents(
            _text: String,
            _input: String,
            _kind: inputs::DocumentKind,
            _validation: inputs::FieldValidation,
        ) -> Result<Vec<inputs::Document>, types::InputError> {
            not_implemented()
        }
        fn apply_patch(
            _old: String,
            _patch: String,
            _type: inputs::PatchType,
        ) -> Result<String, types::InputError> {
            not_implemented()
        }
        fn admission_request(
            _old: Option<String>,
            _new: Option<String>,
            _options: inputs::RequestOptions,
        ) -> Result<String, types::InputError> {
            not_implemented()
        }
    }

    impl report::Guest for Component {
        fn plan(
            _old: String,
            _new: String,
            _sub: types::Subresource,
            _node: Option<String>,
            _pods: Option<String>,
            _settings: String,
        ) -> Result<report::ChangePlan, types::InputError> {
            not_implemented()
        }
        fn rules() -> report::RuleTable {
            // No rules here: an empty table (the host prints "0 rules").
            report::RuleTable {
                upstream: String::new(),
                rules: Vec::new(),
            }
        }
    }

    impl policies::Guest for Component {
        fn evaluate(_request: policies::VapRequest) -> Result<policies::VapReport, types::InputError> {
            not_implemented()
        }

        fn type_check(_policies: Vec<String>) -> Result<Vec<policies::VapTypeCheck>, types::InputError> {
            not_implemented()
        }
    }
}
