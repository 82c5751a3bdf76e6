//! The node facts allocation depends on: what a v1 Node carries (`status.allocatable`, the
//! operating system, swap capacity) and what only the kubelet's configuration knows, supplied as
//! the request's `nodeConfig`.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Node;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;
use serde::{Deserialize, Serialize};

use podmut_model::document::InputError;
use podmut_model::quantity::Quantity;
use podmut_model::resource_helper::{ResourceMap, parse_list};

/// Kubelet configuration a v1 Node does not publish (the request's `nodeConfig`; every key optional).
///
/// ```yaml
/// nodeConfig:
///   cpuManagerPolicy: static        # kubelet --cpu-manager-policy: none (default) | static
///   memoryManagerPolicy: Static     # kubelet --memory-manager-policy: None (default) | Static
///   swapBehavior: LimitedSwap       # kubelet memorySwap.swapBehavior: NoSwap (default) | LimitedSwap
///   allocatableAbsolute:            # capacity minus reserved, without eviction thresholds
///     cpu: "4"                      # (GetNodeAllocatableAbsolute); default: status.allocatable
///     memory: 8Gi
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct NodeConfig {
    /// The kubelet's CPU manager policy: `none` or `static`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cpu_manager_policy: Option<String>,
    /// The kubelet's Memory manager policy: `None` or `Static`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) memory_manager_policy: Option<String>,
    /// The kubelet's `memorySwap.swapBehavior`: `NoSwap` or `LimitedSwap`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) swap_behavior: Option<String>,
    /// Upstream `GetNodeAllocatableAbsolute` (capacity minus system and kube reserved): the figure
    /// the Infeasible check compares with. Defaults to `status.allocatable`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) allocatable_absolute: Option<BTreeMap<String, K8sQuantity>>,
}

/// Everything about the node the allocation rules read, checked.
#[derive(Clone, Debug)]
pub(crate) struct NodeFacts {
    /// `status.allocatable` (the admission predicate's capacity).
    pub(crate) allocatable: ResourceMap,
    /// `allocatableAbsolute` (the Infeasible capacity check).
    pub(crate) allocatable_absolute: ResourceMap,
    /// `windows`, `linux`, ...
    pub(crate) os: String,
    /// `cpuManagerPolicy: static`.
    pub(crate) static_cpu_manager: bool,
    /// `memoryManagerPolicy: Static`.
    pub(crate) static_memory_manager: bool,
    /// `LimitedSwap` configured and swap present on the node.
    pub(crate) limited_swap: bool,
}

fn one_of(input: &str, field: &str, value: &str, allowed: &[&str]) -> Result<(), InputError> {
    if allowed.contains(&value) {
        Ok(())
    } else {
        let quoted: Vec<String> = allowed.iter().map(|a| format!("{a:?}")).collect();
        Err(InputError::malformed(
            input,
            format!(
                "{field}: unsupported value {value:?}: supported values: {}",
                quoted.join(", ")
            ),
        ))
    }
}

impl NodeFacts {
    /// Read the facts, rejecting a Node without `status.allocatable` and unknown policy names.
    pub(crate) fn read(node: &Node, config: &NodeConfig, input: &str) -> Result<Self, InputError> {
        let status = node.status.as_ref();
        let Some(alloc) = status.and_then(|s| s.allocatable.as_ref()) else {
            return Err(InputError::malformed(
                input,
                "node: status.allocatable: required: the Node has no allocatable resources \
                 (the kubelet publishes them; write at least cpu and memory)",
            ));
        };
        let cpu = config.cpu_manager_policy.as_deref().unwrap_or("none");
        one_of(input, "nodeConfig: cpuManagerPolicy", cpu, &["none", "static"])?;
        let mem = config.memory_manager_policy.as_deref().unwrap_or("None");
        one_of(input, "nodeConfig: memoryManagerPolicy", mem, &["None", "Static"])?;
        let swap = config.swap_behavior.as_deref().unwrap_or("NoSwap");
        one_of(
            input,
            "nodeConfig: swapBehavior",
            swap,
            &["", "NoSwap", "LimitedSwap"],
        )?;
        for (name, q) in config.allocatable_absolute.iter().flatten() {
            if let Err(e) = Quantity::from_k8s(q) {
                return Err(InputError::malformed(
                    input,
                    format!(
                        "nodeConfig: allocatableAbsolute[{name}]: invalid quantity {:?}: {e}",
                        q.0
                    ),
                ));
            }
        }
        let allocatable = parse_list(Some(alloc));
        let allocatable_absolute = match config.allocatable_absolute.as_ref() {
            Some(a) => parse_list(Some(a)),
            None => allocatable.clone(),
        };
        let info = status.and_then(|s| s.node_info.as_ref());
        let os = info
            .map(|i| i.operating_system.clone())
            .filter(|o| !o.is_empty())
            .or_else(|| {
                node.metadata
                    .labels
                    .as_ref()
                    .and_then(|l| l.get("kubernetes.io/os"))
                    .cloned()
            })
            .unwrap_or_else(|| "linux".to_owned());
        // Swap is in effect with LimitedSwap unless the Node reports a swap capacity of zero.
        let swap_capacity = info.and_then(|i| i.swap.as_ref()).and_then(|s| s.capacity);
        let limited_swap = swap == "LimitedSwap" && swap_capacity != Some(0);
        Ok(Self {
            allocatable,
            allocatable_absolute,
            os,
            static_cpu_manager: cpu == "static",
            static_memory_manager: mem == "Static",
            limited_swap,
        })
    }

    /// Whether this is a Windows node.
    pub(crate) fn is_windows(&self) -> bool {
        self.os.eq_ignore_ascii_case("windows")
    }
}
