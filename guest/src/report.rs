//! The `report` interface: `plan`, one report of what a Pod change does, and `rules`, the
//! rule-origin table.

use podmut_core::{PlanInput, Section};

use crate::bindings::exports::podmut::policy::report;
use crate::bindings::podmut::policy::types;
use crate::{
    Component, allocation_to_wit, input_error_to_wit, probe_reconciliation_to_wit, qos_to_wit, sub_from_wit,
    verdict_to_wit,
};

fn split<T, U>(s: Section<T>, f: impl FnOnce(T) -> U) -> (Option<U>, String) {
    match s {
        Section::Done(v) => (Some(f(v)), String::new()),
        Section::Skipped(why) => (None, why),
    }
}

impl report::Guest for Component {
    fn plan(
        old_pod: String,
        new_pod: String,
        sub: types::Subresource,
        node: Option<String>,
        pods: Option<String>,
        settings: String,
    ) -> Result<report::ChangePlan, types::InputError> {
        let input = PlanInput {
            old: &old_pod,
            new: &new_pod,
            sub: sub_from_wit(sub),
            node: node.as_deref(),
            pods: pods.as_deref(),
            settings: &settings,
        };
        let plan = podmut_core::plan(&input).map_err(input_error_to_wit)?;
        let (allocation, allocation_skipped) = split(plan.allocation, allocation_to_wit);
        let (probes, probes_skipped) = split(plan.probes, probe_reconciliation_to_wit);
        let (statuses, statuses_skipped) = split(plan.statuses, |s| s);
        Ok(report::ChangePlan {
            admission: verdict_to_wit(&plan.admission),
            qos: report::QosChange {
                before: qos_to_wit(plan.qos.before),
                after: qos_to_wit(plan.qos.after),
            },
            allocation,
            allocation_skipped,
            probes,
            probes_skipped,
            statuses,
            statuses_skipped,
        })
    }

    fn rules() -> report::RuleTable {
        report::RuleTable {
            upstream: podmut_core::UPSTREAM.to_owned(),
            rules: podmut_core::rules()
                .iter()
                .map(|r| report::RuleEntry {
                    origin: r.origin.to_owned(),
                    paths: r.paths.iter().map(|p| p.as_str().to_owned()).collect(),
                    source: r.source.to_owned(),
                    text: r.text.to_owned(),
                    fixtures: r.fixtures(),
                })
                .collect(),
        }
    }
}
