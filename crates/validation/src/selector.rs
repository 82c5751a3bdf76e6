//! Label selectors as the API server reads them (`metav1.LabelSelectorAsSelector`): whether one
//! converts, whether it is empty, and whether it selects a label set (kube-core's [`Selector`]).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube_core::labels::{Selector, SelectorExt};

use crate::pod::util::items;

/// Whether a selector selects a label set (upstream `LabelSelectorAsSelector(...).Matches`), by
/// kube-core's [`Selector`].
///
/// Upstream refuses to convert a selector with an unknown operator, `In`/`NotIn` without values or
/// `Exists`/`DoesNotExist` with some ([`converts`]); where such a selector is matched anyway,
/// podmut's answer is: an unknown operator selects nothing, `In`/`NotIn` without values compare
/// with the empty set, and the values of `Exists`/`DoesNotExist` are not looked at.
pub fn selector_matches(sel: &LabelSelector, labels: &BTreeMap<String, String>) -> bool {
    let mut sel = sel.clone();
    for req in sel.match_expressions.iter_mut().flatten() {
        // kube-core refuses `In`/`NotIn` whose `values` are absent, not empty ones.
        req.values.get_or_insert_with(Vec::new);
    }
    // kube-core refuses only an unknown operator now: that selector selects nothing.
    Selector::try_from(sel).is_ok_and(|s| s.matches(labels))
}

/// Whether `LabelSelectorAsSelector` converts the selector: every operator known, `In`/`NotIn`
/// with values, `Exists`/`DoesNotExist` without, keys and values valid label names and values.
/// No selector converts (to the selector of nothing).
pub fn converts(sel: Option<&LabelSelector>) -> bool {
    crate::pod::scheduling::validate_label_selector(sel, false, &podmut_model::field::Path::new("selector"))
        .is_empty()
}

/// Whether the converted selector is empty (`labels.Selector.Empty`): one with neither labels nor
/// expressions. No selector converts to `labels.Nothing()`, which is not empty and selects nothing
/// ([`selects`]).
pub fn is_empty(sel: &LabelSelector) -> bool {
    sel.match_labels.as_ref().is_none_or(BTreeMap::is_empty) && items(&sel.match_expressions).is_empty()
}

/// Whether the converted selector selects `labels`: no selector selects nothing, an empty one
/// everything.
pub fn selects(sel: Option<&LabelSelector>, labels: &BTreeMap<String, String>) -> bool {
    sel.is_some_and(|s| is_empty(s) || selector_matches(s, labels))
}
