//! The API-server side entry point: which rules a Pod change on a given request path goes through.

use k8s_openapi::api::core::v1::Pod;

use crate::pod::PodValidationOptions;
use crate::verdict::Verdict;
use podmut_model::defaults::apply_pod_defaults;
use podmut_model::document::InputError;
use podmut_model::field::ErrorList;
use podmut_model::request_path::Subresource;
use podmut_model::settings::Settings;

/// What happened to a request before it reached podmut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// The request as a client sends it (`check`): with `applyDefaults`, podmut models the API
    /// server's request handling around validation too ([`crate::rest`]).
    Request,
    /// The object an admission webhook receives: the API server has handled the request already.
    Admitted,
}

/// Validate a Pod create (`old` is `None`) or update arriving on `sub`.
///
/// Defaulting is applied to both Pods first when `settings.apply_defaults` is set (the Pods are
/// taken by value so that defaulting needs no copy), and then the API server's handling of the
/// request around validation ([`crate::rest`]: decoding, the URL's name and namespace, the stock
/// admission plugins, the registry's metadata rules), which may refuse the request without causes.
/// Each request path is one pipeline: its REST strategy step (what the API server ignores is
/// reported as a warning), the options derived from the old Pod, the shared validation of
/// `crate::pod`, then the path's own rules.
pub fn check(
    old: Option<Pod>,
    new: Pod,
    sub: Subresource,
    settings: &Settings,
) -> Result<Verdict, InputError> {
    check_arrived(old, new, sub, settings, Arrival::Request)
}

/// [`check`] of a request that arrived as `arrival` says.
pub fn check_arrived(
    old: Option<Pod>,
    new: Pod,
    sub: Subresource,
    settings: &Settings,
    arrival: Arrival,
) -> Result<Verdict, InputError> {
    let settings = &*settings.for_subresource(sub);
    let defaulted = |mut p: Pod| {
        if settings.apply_defaults {
            apply_pod_defaults(&mut p, settings);
        }
        p
    };
    let request = settings.apply_defaults && arrival == Arrival::Request;
    let new = defaulted(new);
    let old = old
        .map(defaulted)
        .map(|o| if request { crate::rest::stored(o) } else { o });
    let handled = match (old.as_ref(), sub) {
        (None, Subresource::None) if request => crate::rest::before_create(new),
        (Some(old), sub) if request => crate::rest::before_update(new, old, sub),
        _ => Ok(new),
    };
    let new = match handled {
        Ok(new) => new,
        Err(message) => return Ok(Verdict::refused(message)),
    };
    let (mut errors, warnings) = match (old.as_ref(), sub) {
        (None, Subresource::None) => validate_create(&new, settings),
        (None, other) => {
            return Err(InputError::malformed(
                "old-pod",
                format!("pods/{other} updates an existing Pod: the old Pod is required"),
            ));
        }
        (Some(old), sub) => match validate_update_on(sub, &new, old, settings, request) {
            Ok(found) => found,
            Err(admission) => return Ok(admission),
        },
    };
    let release = settings.release();
    podmut_model::field::resolve_go_values(&mut errors, release);
    if release >= 37 {
        // Declarative validation (on for Pods from 1.37) filters the hand-written errors through
        // `ErrorList.Filter`, which goes through `ToAggregate`: identical errors are kept once.
        podmut_model::field::dedup_as_aggregate(&mut errors);
    }
    Ok(Verdict::from_errors(
        podmut_model::podutil::pod_name(&new),
        errors,
        warnings,
    ))
}

/// A create: `podStrategy.PrepareForCreate` drops the fields of disabled gates, `Validate` derives
/// the options of a new Pod and runs `ValidatePodCreate`, and a Pod that passes gets
/// `WarningsOnCreate`.
fn validate_create(new: &Pod, settings: &Settings) -> (ErrorList, Vec<String>) {
    let mut prepared = crate::disabled_fields::prepare(new, None, settings);
    if let Some(spec) = prepared.pod.spec.as_mut() {
        podmut_model::defaults::default_pod_level_resources(spec, settings);
    }
    let pod = &prepared.pod;
    let errors = crate::pod::validate_pod_create(pod, &PodValidationOptions::for_create(pod, settings));
    if errors.is_empty() {
        let spec = podmut_model::podutil::spec(pod);
        prepared
            .warnings
            .extend(crate::pod::warnings::warnings_on_create(&spec));
    }
    (errors, prepared.warnings)
}

/// A plain update (`podStrategy.ValidateUpdate`): the main resource's strategy keeps the stored
/// status (podmut's input already carries it), the options derived from the old Pod, then
/// `ValidatePodUpdate`.
fn validate_plain_update(new: &Pod, old: &Pod, settings: &Settings) -> ErrorList {
    let opts = PodValidationOptions::for_update(new, old, settings);
    crate::pod::validate_pod_update(new, old, &opts, settings)
}

/// A path's validation of the prepared Pod against the stored one.
type PathValidation = fn(&Pod, &Pod, &Settings) -> ErrorList;

/// An update on `sub`: the path's strategy step, then its validation (which derives the options),
/// after the registry's common metadata validation when `request` ([`crate::rest`]); a valid
/// request then meets the admission plugins that read the Node ([`crate::node_admission`]), whose
/// refusal is the `Err`, and then the guards the settings turn on ([`crate::guards`]).
fn validate_update_on(
    sub: Subresource,
    new: &Pod,
    old: &Pod,
    settings: &Settings,
    request: bool,
) -> Result<(ErrorList, Vec<String>), Verdict> {
    let common = |pod: &Pod| {
        if request {
            crate::rest::validate_common_fields(pod, old, settings.release())
        } else {
            ErrorList::new()
        }
    };
    let validate: PathValidation = match sub {
        Subresource::None => validate_plain_update,
        Subresource::Dynamic => crate::dynamic::validate_dynamic_update,
        Subresource::EphemeralContainers => crate::ephemeral::validate_ephemeral_containers_update,
        Subresource::Resize => crate::resize::validate_pod_resize,
        Subresource::Status => crate::status_update::validate_pod_status_update,
    };
    let prepared = prepare_update(sub, new, old, settings);
    let mut errors = common(&prepared.pod);
    errors.extend(validate(&prepared.pod, old, settings));
    if request
        && errors.is_empty()
        && let Some(refusal) = crate::node_admission::admit(sub, &prepared.pod, old, settings)
    {
        return Err(refusal);
    }
    if errors.is_empty() {
        errors = crate::guards::check(sub, &prepared.pod, old, settings);
    }
    let warnings = match sub {
        // the status strategy's warnings are sent only with an accepted update
        Subresource::Status if errors.is_empty() => {
            crate::status_update::warnings_on_update(&prepared.pod, settings.release())
        }
        Subresource::Status => Vec::new(),
        _ => prepared.warnings,
    };
    Ok((errors, warnings))
}

/// [`check`] on documents: parse the settings and both Pods (JSON or YAML), then validate.
pub fn check_documents(
    old: Option<&str>,
    new: &str,
    sub: Subresource,
    settings: &str,
) -> Result<Verdict, InputError> {
    check_pod_texts(old.map(PodText::text), PodText::text(new), sub, settings)
}

/// A Pod document for [`check_documents`]: its text, and the Pod a reader already decoded from
/// it, so that it is not decoded a second time ([`crate::inputs::read_and_check`]).
pub(crate) struct PodText<'a> {
    /// The document (JSON or YAML).
    text: &'a str,
    /// `text` decoded in one pass by the component's one JSON decoder (tracked, without a repeated
    /// key): the Pod [`podmut_model::document::parse_pod`] decodes from it.
    pod: Option<Pod>,
}

impl<'a> PodText<'a> {
    /// A document nobody has decoded yet.
    pub(crate) fn text(text: &'a str) -> Self {
        Self { text, pod: None }
    }

    /// A JSON document (without leading blanks) and the Pod decoded from it.
    pub(crate) fn decoded(text: &'a str, pod: Pod) -> Self {
        Self { text, pod: Some(pod) }
    }

    /// The Pod and its field warnings at `level`, as [`podmut_model::field_validation::read_pod`] reads
    /// them. Under `ignore` that is [`podmut_model::document::parse_pod`]: the one-pass decoding of the same text,
    /// so a Pod already decoded is that Pod (unless the text is over the settings' limit, which
    /// `read_pod` refuses). Under `warn`/`strict` the text is read again, as before.
    fn read(
        self,
        input: &str,
        level: podmut_model::field_validation::FieldValidation,
        limit: u64,
    ) -> Result<(Pod, Vec<String>), InputError> {
        match self.pod {
            Some(pod)
                if level == podmut_model::field_validation::FieldValidation::Ignore
                    && self.text.len() as u64 <= limit =>
            {
                Ok((pod, Vec::new()))
            }
            _ => podmut_model::field_validation::read_pod(self.text, input, level, limit),
        }
    }
}

/// [`check_documents`] on Pods that may be decoded already.
pub(crate) fn check_pod_texts(
    old: Option<PodText<'_>>,
    new: PodText<'_>,
    sub: Subresource,
    settings: &str,
) -> Result<Verdict, InputError> {
    let settings = Settings::parse(settings)?;
    let (limit, level) = (settings.max_input_bytes, settings.field_validation);
    let texts = (old.as_ref().map(|p| p.text), new.text);
    let read = |p: PodText<'_>, input: &str| p.read(input, level, limit);
    let pods = old
        .map(|p| read(p, "old-pod"))
        .transpose()
        .and_then(|old| Ok((old, read(new, "new-pod")?)));
    match pods {
        Ok((old, new)) => check_read(old, new, sub, &settings),
        Err(e @ InputError::WrongKind { .. }) => {
            check_workload_texts(texts, sub, &settings).unwrap_or(Err(e))
        }
        Err(e) => Err(e),
    }
}

/// A workload create or update (`(old, new)` texts), when the new text is one workload document
/// and the request is on the main resource: [`crate::workload::check_workload`], the documents'
/// field warnings first.
fn check_workload_texts(
    (old, new): (Option<&str>, &str),
    sub: Subresource,
    settings: &Settings,
) -> Option<Result<Verdict, InputError>> {
    let (limit, level) = (settings.max_input_bytes, settings.field_validation);
    let read = |text: &str, input: &str| crate::workload::read_workload_text(text, input, level, limit);
    let new = read(new, "new-pod")?;
    if sub != Subresource::None {
        return Some(Err(InputError::wrong_kind(
            "new-pod",
            format!("a workload has no {sub} subresource podmut judges"),
        )));
    }
    let old = match old.map(|t| read(t, "old-pod")) {
        None => None,
        Some(None) => {
            return Some(Err(InputError::wrong_kind(
                "old-pod",
                "expected a workload of the new object's kind",
            )));
        }
        Some(Some(r)) => Some(r),
    };
    Some(check_read_workloads(old.transpose(), new, settings))
}

/// A workload document read with its field warnings.
type ReadWorkload = Result<(crate::workload::WorkloadDocument, Vec<String>), InputError>;

/// Workloads read with their field warnings (the old one when there is one) judged by
/// [`crate::workload::check_workload`]; the field warnings come first, the old object's marked
/// `old object: `.
fn check_read_workloads(
    old: Result<Option<(crate::workload::WorkloadDocument, Vec<String>)>, InputError>,
    new: ReadWorkload,
    settings: &Settings,
) -> Result<Verdict, InputError> {
    let (new, mut warnings) = new?;
    let (old, old_warnings) = old?.map_or((None, Vec::new()), |(d, w)| (Some(d), w));
    let mut verdict = crate::workload::check_workload(old, new, settings)?;
    warnings.extend(old_warnings.into_iter().map(|w| format!("old object: {w}")));
    warnings.append(&mut verdict.warnings);
    verdict.warnings = warnings;
    Ok(verdict)
}

/// [`check`] of Pods read with their field warnings, as
/// [`podmut_model::field_validation::read_pod`] returns them (`(pod, warnings)`; the old Pod first
/// when there is one): the answer [`check_documents`] gives on the documents they were read from.
/// The field warnings come first, as the API server sends them before admission's, the old Pod's
/// marked `old Pod: `.
pub fn check_read(
    old: Option<(Pod, Vec<String>)>,
    new: (Pod, Vec<String>),
    sub: Subresource,
    settings: &Settings,
) -> Result<Verdict, InputError> {
    let (new, mut warnings) = new;
    let (old, old_warnings) = old.map_or((None, Vec::new()), |(p, w)| (Some(p), w));
    let mut verdict = check(old, new, sub, settings)?;
    warnings.extend(old_warnings.into_iter().map(|w| format!("old Pod: {w}")));
    warnings.append(&mut verdict.warnings);
    verdict.warnings = warnings;
    Ok(verdict)
}

/// The strategy step of an update on `sub` (`PrepareForUpdate`): what the path keeps of the
/// request and what it takes from the stored Pod; on the main resource, the fields of disabled
/// gates dropped.
pub fn prepare_update(
    sub: Subresource,
    new: &Pod,
    old: &Pod,
    settings: &Settings,
) -> crate::strategy::Prepared {
    match sub {
        Subresource::None => crate::disabled_fields::prepare(
            &keep_pod_level_resources(new, old, settings),
            Some(old),
            settings,
        ),
        Subresource::Dynamic => crate::dynamic::prepare_update(new, old),
        Subresource::EphemeralContainers => crate::ephemeral::prepare_update(new, old),
        Subresource::Resize => crate::resize::prepare_update(new, old, settings),
        Subresource::Status => crate::status_update::prepare_update(new, old, settings),
    }
}

/// `podStrategy.PrepareForUpdate` with `PodLevelResourcesFixDefaulting` (1.37): an update that
/// drops `spec.resources` keeps the stored ones (a client that does not know the field).
fn keep_pod_level_resources<'a>(new: &'a Pod, old: &Pod, settings: &Settings) -> std::borrow::Cow<'a, Pod> {
    let dropped = new.spec.as_ref().is_some_and(|s| s.resources.is_none())
        && old.spec.as_ref().is_some_and(|s| s.resources.is_some());
    if !(dropped && settings.gate(podmut_model::settings::Gate::PodLevelResourcesFixDefaulting)) {
        return std::borrow::Cow::Borrowed(new);
    }
    let mut kept = new.clone();
    if let (Some(spec), Some(old)) = (kept.spec.as_mut(), old.spec.as_ref()) {
        spec.resources.clone_from(&old.resources);
    }
    std::borrow::Cow::Owned(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use podmut_model::field::ErrorType;

    const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: default}\nspec:\n  containers:\n  - {name: app, image: nginx:1.25}\n";

    #[test]
    fn adding_a_container_on_the_main_resource_is_forbidden() {
        let new = POD.replace(
            "  - {name: app, image: nginx:1.25}\n",
            "  - {name: app, image: nginx:1.25}\n  - {name: two, image: busybox}\n",
        );
        let v = check_documents(Some(POD), &new, Subresource::None, "").unwrap();
        assert!(!v.allowed);
        assert_eq!(v.errors.len(), 1);
        assert_eq!(v.errors[0].error_type, ErrorType::Forbidden);
        assert_eq!(v.errors[0].field.to_string(), "spec.containers");
        assert_eq!(v.errors[0].origin, "update/container-list");
    }

    #[test]
    fn image_change_is_allowed_and_other_changes_hit_the_catch_all() {
        let v = check_documents(
            Some(POD),
            &POD.replace("nginx:1.25", "nginx:1.26"),
            Subresource::None,
            "",
        )
        .unwrap();
        assert!(v.allowed, "{:?}", v.errors);
        let changed = POD.replace("image: nginx:1.25}", "image: nginx:1.25, command: [sh]}");
        let v = check_documents(Some(POD), &changed, Subresource::None, "").unwrap();
        assert_eq!(v.errors.len(), 1);
        assert_eq!(v.errors[0].field.to_string(), "spec");
        assert_eq!(v.errors[0].origin, "update/immutable-spec");
    }

    #[test]
    fn subresources_need_an_old_pod() {
        let e = check_documents(None, POD, Subresource::Resize, "").unwrap_err();
        assert_eq!(e.input(), "old-pod");
    }

    #[test]
    fn every_subresource_is_judged() {
        let old = POD.replace("namespace: default}", "namespace: default, resourceVersion: '1'}");
        for sub in [
            Subresource::Dynamic,
            Subresource::EphemeralContainers,
            Subresource::Resize,
            Subresource::Status,
        ] {
            let v = check_documents(Some(&old), &old, sub, "").unwrap();
            assert!(v.allowed, "{sub}: {:?}", v.errors);
            assert!(v.warnings.is_empty(), "{sub}: {:?}", v.warnings);
        }
    }

    #[test]
    fn ignored_changes_are_silent() {
        let old = POD.replace("namespace: default}", "namespace: default, resourceVersion: '1'}");
        let new = old.replace("nginx:1.25", "nginx:1.26");
        let v = check_documents(Some(&old), &new, Subresource::Resize, "").unwrap();
        assert!(v.allowed, "{:?}", v.errors);
        // the API server ignores the image change on pods/resize, and says nothing
        assert!(v.warnings.is_empty(), "{:?}", v.warnings);
    }

    #[test]
    fn subresource_names() {
        for s in Subresource::ALL {
            assert_eq!(s.as_str().parse::<Subresource>().unwrap(), s);
        }
        assert!("bogus".parse::<Subresource>().is_err());
    }
}
