//! The CEL of the guards' generated policies (`resizeLimits`, `debugContainers`,
//! `freezeRunningPodMetadata`): each mirrors its rule in `crates/validation/src/guards.rs`, and
//! sums where that rule multiplies, so that both compare the same exact quantities.

use podmut_model::settings::{DebugContainers, ResizeLimits};
use serde_json::{Value, json};

use super::cel::validation;

/// A CEL string literal (JSON's escapes are CEL's).
fn literal(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// The main and init containers of `object` (`obj`), names being unique across both.
fn containers(obj: &str) -> String {
    format!("{obj}.spec.containers + ({obj}.spec.?initContainers.orValue([]))")
}

/// `resizeLimits`: its variables and validations, or `None` when it sets nothing.
pub(crate) fn resize_limits(limits: &ResizeLimits) -> Option<(Value, Vec<Value>)> {
    let variables = json!([
        {"name": "after", "expression": containers("object")},
        {"name": "before", "expression": containers("oldObject")},
    ]);
    let mut validations = Vec::new();
    let ceilings: Vec<(&str, String)> = ["cpu", "memory"]
        .into_iter()
        .filter_map(|r| limits.ceiling(r).map(|c| (r, c.text().to_owned())))
        .collect();
    if !ceilings.is_empty() {
        let under = ceilings
            .iter()
            .map(|(r, max)| {
                format!(
                    "(!('{r}' in c.resources[k]) || !quantity(c.resources[k]['{r}']).isGreaterThan(quantity({})))",
                    literal(max)
                )
            })
            .collect::<Vec<_>>()
            .join(" && ");
        let said = ceilings
            .iter()
            .map(|(r, max)| format!("{r} above {max}"))
            .collect::<Vec<_>>()
            .join(" or ");
        validations.push(validation(
            format!(
                "variables.after.all(c, !has(c.resources) || ['requests', 'limits'].all(k, !(k in c.resources) || ({under})))"
            ),
            &format!("a resize may not set a container's {said}"),
        ));
    }
    if let Some(step) = limits.max_step {
        let old = "quantity(o.resources[k][r])";
        let product = format!("{old}{}", format!(".add({old})").repeat(step as usize - 1));
        validations.push(validation(
            format!(
                "variables.after.all(c, !has(c.resources) || variables.before.filter(o, o.name == c.name && has(o.resources)).all(o, \
                 ['requests', 'limits'].all(k, !(k in c.resources) || !(k in o.resources) || ['cpu', 'memory'].all(r, \
                 !(r in c.resources[k]) || !(r in o.resources[k]) || !quantity(c.resources[k][r]).isGreaterThan({product})))))"
            ),
            &format!("a resize may multiply a container's cpu or memory by at most {step}"),
        ));
    }
    (!validations.is_empty()).then_some((variables, validations))
}

/// `debugContainers.forbidEscalation`: its variables and validations.
pub(crate) fn debug_escalation(debug: &DebugContainers) -> (Value, Vec<Value>) {
    let label = literal(&debug.break_glass_label);
    let variables = json!([
        {"name": "breakGlass", "expression": format!("object.metadata.?labels[?{label}].orValue('') == 'true'")},
        {"name": "added", "expression": "object.spec.?ephemeralContainers.orValue([]).filter(e, !oldObject.spec.?ephemeralContainers.orValue([]).exists(o, o.name == e.name))"},
    ]);
    let need = format!("the Pod label {}=true", debug.break_glass_label);
    let validations = vec![
        validation(
            "variables.breakGlass || variables.added.all(e, !e.?securityContext.?privileged.orValue(false))",
            &format!("a privileged debug container needs {need}"),
        ),
        validation(
            "variables.breakGlass || variables.added.all(e, size(e.?securityContext.?capabilities.?add.orValue([])) == 0)",
            &format!("a debug container that adds capabilities needs {need}"),
        ),
    ];
    (variables, validations)
}

/// `freezeRunningPodMetadata`: its match condition (the old Pod is running) and validations.
pub(crate) fn frozen_metadata() -> (Value, Vec<Value>) {
    let conditions =
        json!([{"name": "running", "expression": "oldObject.?status.?phase.orValue('') == 'Running'"}]);
    let same = |field: &str| {
        format!("object.metadata.?{field}.orValue({{}}) == oldObject.metadata.?{field}.orValue({{}})")
    };
    let validations = vec![
        validation(same("labels"), "the labels of a running Pod are frozen"),
        validation(same("annotations"), "the annotations of a running Pod are frozen"),
    ];
    (conditions, validations)
}
