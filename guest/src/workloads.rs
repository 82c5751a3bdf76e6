//! The `workloads` interface: what a workload update does to the Pods it runs.

use podmut_core::{InPlace, Rollout, RolloutEffect};

use crate::bindings::exports::podmut::policy::workloads;
use crate::bindings::podmut::policy::types;
use crate::{Component, input_error_to_wit};

fn effect_to_wit(e: RolloutEffect) -> workloads::RolloutEffect {
    match e {
        RolloutEffect::Unchanged => workloads::RolloutEffect::Unchanged,
        RolloutEffect::Rollout => workloads::RolloutEffect::Rollout,
        RolloutEffect::OnDelete => workloads::RolloutEffect::OnDelete,
        RolloutEffect::NewPodsOnly => workloads::RolloutEffect::NewPodsOnly,
        RolloutEffect::NextRun => workloads::RolloutEffect::NextRun,
        RolloutEffect::NoPods => workloads::RolloutEffect::NoPods,
    }
}

fn rollout_to_wit(r: Rollout) -> workloads::RolloutReport {
    let (in_place, in_place_refused) = match &r.in_place {
        Some(InPlace::No(why)) => (Vec::new(), why.clone()),
        Some(p) => (p.paths().iter().map(|s| (*s).to_owned()).collect(), String::new()),
        None => (Vec::new(), String::new()),
    };
    workloads::RolloutReport {
        effect: effect_to_wit(r.effect),
        summary: r.summary,
        template_changes: r.template_changes,
        other_changes: r.other_changes,
        in_place,
        in_place_refused,
        in_place_judged: r.in_place.is_some(),
    }
}

impl workloads::Guest for Component {
    fn rollout(
        old: String,
        new: String,
        settings: String,
    ) -> Result<Option<workloads::RolloutReport>, types::InputError> {
        podmut_core::rollout_texts(&old, &new, &settings)
            .map(|r| r.map(rollout_to_wit))
            .map_err(input_error_to_wit)
    }
}
