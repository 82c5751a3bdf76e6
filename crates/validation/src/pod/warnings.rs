//! The warnings the API server returns on a successful create (`podStrategy.WarningsOnCreate`,
//! `GetWarningsForPod` in `pkg/api/pod/warnings.go`; updates get none). podmut follows only the
//! rules listed here:
//!
//! - a projected volume source that sets nothing (`volume "v" (Projected) has no sources
//!   provided`), which is also what a source whose only field the strategy dropped leaves
//!   ([`crate::disabled_fields`]).

use k8s_openapi::api::core::v1::{PodSpec, VolumeProjection};

use crate::pod::util::items;

/// The create warnings podmut follows for `spec`, in upstream's order.
pub(crate) fn warnings_on_create(spec: &PodSpec) -> Vec<String> {
    let empty = VolumeProjection::default();
    let mut warnings = Vec::new();
    for v in items(&spec.volumes) {
        let Some(p) = &v.projected else { continue };
        for source in items(&p.sources) {
            if *source == empty {
                warnings.push(format!(
                    "volume {} (Projected) has no sources provided",
                    podmut_model::gojson::go_quote(&v.name)
                ));
            }
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_projected_source_is_reported() {
        let spec: PodSpec = serde_yaml_ng::from_str(
            "{containers: [], volumes: [{name: v, projected: {sources: [{}, {configMap: {name: c}}]}}, {name: e, emptyDir: {}}]}",
        )
        .unwrap();
        assert_eq!(
            warnings_on_create(&spec),
            vec!["volume \"v\" (Projected) has no sources provided".to_owned()]
        );
    }
}
