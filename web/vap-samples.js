// KEP-5972's two sample ValidatingAdmissionPolicies, exactly as policies/vap/ holds them (a browser
// test checks each text against its file). The policies panel offers them to pick.

export const VAP_SAMPLES = {
  'disable-dynamic-containers': {
    title: 'disable-dynamic-containers (no container added or removed through pods/dynamic)',
    file: 'policies/vap/disable-dynamic-containers.yaml',
    text: `# KEP-5972's sample ValidatingAdmissionPolicy: forbid adding or removing main containers through
# pods/dynamic (the cluster keeps the feature gate on for resizes and probe changes, but no Pod may
# grow or lose containers). Applied cluster-wide by the binding below.
#
# It intercepts only pods/dynamic, never Pod create/update, so it never trips the fail-closed rule
# (\`podmut coverage policies/vap/disable-dynamic-containers.yaml\`).
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: disable-dynamic-containers
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: ["UPDATE"]
        resources: ["pods/dynamic"]
  validations:
    - expression: >-
        object.spec.containers.map(c, c.name) == oldObject.spec.containers.map(c, c.name)
      message: "Dynamic Containers are disabled: adding or removing main containers is not allowed."
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: disable-dynamic-containers
spec:
  policyName: disable-dynamic-containers
  validationActions: [Deny]
`,
  },
  'pod-intent-immutable': {
    title: 'pod-intent-immutable (only resources, tolerations, deadlines, scheduling gates change)',
    file: 'policies/vap/pod-intent-immutable.yaml',
    text: `# KEP-5972's sample ValidatingAdmissionPolicy "pod-intent-immutable": a Pod's spec is immutable
# except for an allow-list of fields (tolerations, activeDeadlineSeconds, schedulingGates, and each
# container's resources); containers may not be added, removed or reordered on any path.
#
# It matches UPDATE on pods and every subresource except pods/status, so it covers pods/dynamic and
# passes the fail-closed rule (\`podmut coverage policies/vap/pod-intent-immutable.yaml\`).
# The binding applies it to namespaces labelled podmut.io/pod-intent=immutable; drop the
# matchResources to apply it everywhere.
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: pod-intent-immutable
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: ["UPDATE"]
        resources: ["pods", "pods/*"]
    excludeResourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        # Skip kubelet status updates, which cannot mutate spec.
        operations: ["UPDATE"]
        resources: ["pods/status"]
  variables:
    # Assigning spec to variables widens its static CEL type to \`dyn\`, enabling
    # dynamic map key iteration (.all) across all present (non-omitted) JSON fields.
    - name: oldSpec
      expression: oldObject.spec
    - name: newSpec
      expression: object.spec
    # Top-level PodSpec fields allowed to be added, modified, or removed.
    - name: mutablePodFields
      expression: "['tolerations', 'activeDeadlineSeconds', 'schedulingGates']"
    # Per-container fields allowed to be added, modified, or removed.
    - name: mutableContainerFields
      expression: "['resources']"
    # Container lists are validated separately in the second rule rather than by deep equality.
    - name: containerListFields
      expression: "['containers', 'initContainers', 'ephemeralContainers']"
    # Pair each container list's [oldList, newList], defaulting omitted lists to [].
    - name: containerListPairs
      expression: >
        variables.containerListFields.map(f, [
          f in variables.oldSpec ? variables.oldSpec[f] : [],
          f in variables.newSpec ? variables.newSpec[f] : []
        ])
  validations:
    # 1. PodSpec check: every non-allowlisted field in oldSpec must still exist and be
    # deeply equal in newSpec, and newSpec cannot introduce new non-allowlisted fields.
    - expression: >
        variables.oldSpec.all(k,
          k in variables.containerListFields ||
          k in variables.mutablePodFields ||
          (k in variables.newSpec && variables.newSpec[k] == variables.oldSpec[k])
        ) &&
        variables.newSpec.all(k,
          k in variables.containerListFields ||
          k in variables.mutablePodFields ||
          k in variables.oldSpec
        )
      message: "pod spec field is immutable"
      reason: Invalid
    # 2. Container check: forbid adding, removing, or reordering containers in any list,
    # and require each container's fields to remain equal except mutableContainerFields.
    - expression: >
        variables.containerListPairs.all(p,
          p[0].map(c, c.name) == p[1].map(c, c.name) &&
          p[0].all(oc, p[1].exists(nc, nc.name == oc.name &&
            oc.all(k, k in variables.mutableContainerFields || (k in nc && nc[k] == oc[k])) &&
            nc.all(k, k in variables.mutableContainerFields || k in oc)
          ))
        )
      message: "containers are immutable, except allowed fields"
      reason: Invalid
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: pod-intent-immutable
spec:
  policyName: pod-intent-immutable
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        podmut.io/pod-intent: immutable
`,
  },
};
