//! The patch metadata of a Pod: which lists merge, by which key, and which keep only the keys a
//! patch names (`retainKeys`).
//!
//! Transcribed from the `patchStrategy`/`patchMergeKey` struct tags of `k8s.io/api/core/v1`
//! (`types.go`) and `k8s.io/apimachinery/pkg/apis/meta/v1` (`ObjectMeta`), the facts upstream's
//! `strategicpatch.PatchMetaFromStruct` reads by reflection. Only the part of the Pod tree that
//! reaches a tagged field is spelled out; every other field has no tag, so a map merges key by key
//! and a list is replaced whole, exactly as upstream treats an untagged field.
//!
//! Not tagged on purpose (upstream replaces them whole): `tolerations`, `readinessGates`,
//! `envFrom`, `command`/`args`, `resizePolicy`, `resources.claims`, `dnsConfig.*`,
//! `securityContext.sysctls`, the container status lists.

/// How a field's value is combined with the original.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Strategy {
    /// No tag: maps merge key by key, lists are replaced.
    Default,
    /// `patchStrategy:"merge"`: lists merge (by `merge_key` for lists of objects, as a set for
    /// lists of scalars).
    Merge,
}

/// The patch metadata of one field.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Field {
    /// `patchStrategy`.
    pub(crate) strategy: Strategy,
    /// `patchMergeKey` (lists of objects with the merge strategy).
    pub(crate) merge_key: Option<&'static str>,
    /// The metadata of the field's value (a struct) or of each list element.
    pub(crate) schema: &'static Schema,
}

/// The patch metadata of one struct type: its fields that need any (others are [`Field::PLAIN`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Schema {
    /// The Go type name, for upstream's error messages.
    pub name: &'static str,
    /// The tagged fields.
    pub(crate) fields: &'static [(&'static str, Field)],
}

impl Field {
    /// A field without a tag and without tagged fields below it.
    pub(crate) const PLAIN: Field = Field {
        strategy: Strategy::Default,
        merge_key: None,
        schema: &Schema::EMPTY,
    };
}

impl Schema {
    /// A type without tagged fields.
    pub(crate) const EMPTY: Schema = Schema {
        name: "",
        fields: &[],
    };

    /// The metadata of `key`.
    pub(crate) fn field(&self, key: &str) -> Field {
        self.fields
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(Field::PLAIN, |(_, f)| *f)
    }
}

pub(crate) const fn merge_on(key: &'static str, schema: &'static Schema) -> Field {
    Field {
        strategy: Strategy::Merge,
        merge_key: Some(key),
        schema,
    }
}

pub(crate) const fn nested(schema: &'static Schema) -> Field {
    Field {
        strategy: Strategy::Default,
        merge_key: None,
        schema,
    }
}

/// `patchStrategy:"merge"` on a list of scalars (a set).
pub(crate) const MERGE_SET: Field = Field {
    strategy: Strategy::Merge,
    merge_key: None,
    schema: &Schema::EMPTY,
};

/// `v1.ObjectMeta`.
const OBJECT_META: Schema = Schema {
    name: "ObjectMeta",
    fields: &[
        ("finalizers", MERGE_SET),
        ("ownerReferences", merge_on("uid", &Schema::EMPTY)),
    ],
};

/// `v1.Container` and `v1.EphemeralContainerCommon` carry the same tags.
const CONTAINER: Schema = Schema {
    name: "Container",
    fields: &[
        ("ports", merge_on("containerPort", &Schema::EMPTY)),
        ("env", merge_on("name", &Schema::EMPTY)),
        ("volumeMounts", merge_on("mountPath", &Schema::EMPTY)),
        ("volumeDevices", merge_on("devicePath", &Schema::EMPTY)),
    ],
};

const EPHEMERAL_CONTAINER: Schema = Schema {
    name: "EphemeralContainer",
    fields: CONTAINER.fields,
};

/// `v1.PodSpec`. `volumes` and `resourceClaims` are also `retainKeys`: that strategy only builds
/// the `$retainKeys` directive when upstream *computes* a patch; applying one honours a
/// `$retainKeys` list wherever it appears.
const POD_SPEC: Schema = Schema {
    name: "PodSpec",
    fields: &[
        ("volumes", merge_on("name", &Schema::EMPTY)),
        ("initContainers", merge_on("name", &CONTAINER)),
        ("containers", merge_on("name", &CONTAINER)),
        ("ephemeralContainers", merge_on("name", &EPHEMERAL_CONTAINER)),
        ("imagePullSecrets", merge_on("name", &Schema::EMPTY)),
        ("hostAliases", merge_on("ip", &Schema::EMPTY)),
        (
            "topologySpreadConstraints",
            merge_on("topologyKey", &Schema::EMPTY),
        ),
        ("schedulingGates", merge_on("name", &Schema::EMPTY)),
        ("resourceClaims", merge_on("name", &Schema::EMPTY)),
    ],
};

/// `v1.PodStatus`.
const POD_STATUS: Schema = Schema {
    name: "PodStatus",
    fields: &[
        ("conditions", merge_on("type", &Schema::EMPTY)),
        ("podIPs", merge_on("ip", &Schema::EMPTY)),
        ("hostIPs", merge_on("ip", &Schema::EMPTY)),
        ("resourceClaimStatuses", merge_on("name", &Schema::EMPTY)),
    ],
};

/// `v1.Pod`.
pub(crate) const POD: Schema = Schema {
    name: "Pod",
    fields: &[
        ("metadata", nested(&OBJECT_META)),
        ("spec", nested(&POD_SPEC)),
        ("status", nested(&POD_STATUS)),
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_follow_upstream() {
        let spec = POD.field("spec").schema;
        let containers = spec.field("containers");
        assert_eq!(containers.strategy, Strategy::Merge);
        assert_eq!(containers.merge_key, Some("name"));
        let c = containers.schema;
        assert_eq!(c.field("ports").merge_key, Some("containerPort"));
        assert_eq!(c.field("volumeMounts").merge_key, Some("mountPath"));
        assert_eq!(c.field("volumeDevices").merge_key, Some("devicePath"));
        assert_eq!(c.field("env").merge_key, Some("name"));
        assert_eq!(c.field("envFrom").strategy, Strategy::Default);
        assert_eq!(c.field("resizePolicy").strategy, Strategy::Default);
        assert_eq!(
            spec.field("ephemeralContainers").schema.field("env").merge_key,
            Some("name")
        );
        assert_eq!(spec.field("tolerations").strategy, Strategy::Default);
        assert_eq!(
            spec.field("topologySpreadConstraints").merge_key,
            Some("topologyKey")
        );
        let meta = POD.field("metadata").schema;
        assert_eq!(meta.field("finalizers").strategy, Strategy::Merge);
        assert_eq!(meta.field("finalizers").merge_key, None);
        assert_eq!(meta.field("ownerReferences").merge_key, Some("uid"));
        let status = POD.field("status").schema;
        assert_eq!(status.field("conditions").merge_key, Some("type"));
        assert_eq!(status.field("containerStatuses").strategy, Strategy::Default);
    }
}
