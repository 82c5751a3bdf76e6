//! GENERATED from k8s-openapi's Pod, ConfigMap and Secret by tests/src/vap_schema.rs (the
//! format is described there): do not edit. `cargo xtask bless -- vap/` rewrites it; the
//! conformance trial `vap/schema-table` fails when it is stale.

/// `(object, [(field, type)])`, sorted by object and by field.
#[rustfmt::skip]
pub(super) static OBJECTS: &[(&str, &[(&str, &str)])] = &[
    (
        "AWSElasticBlockStoreVolumeSource",
        &[
            ("fsType", "s"),
            ("partition", "i"),
            ("readOnly", "b"),
            ("volumeID", "s"),
        ],
    ),
    (
        "Affinity",
        &[
            ("nodeAffinity", "NodeAffinity"),
            ("podAffinity", "PodAffinity"),
            ("podAntiAffinity", "PodAntiAffinity"),
        ],
    ),
    (
        "AppArmorProfile",
        &[
            ("localhostProfile", "s"),
            ("type", "s"),
        ],
    ),
    (
        "AzureDiskVolumeSource",
        &[
            ("cachingMode", "s"),
            ("diskName", "s"),
            ("diskURI", "s"),
            ("fsType", "s"),
            ("kind", "s"),
            ("readOnly", "b"),
        ],
    ),
    (
        "AzureFileVolumeSource",
        &[
            ("readOnly", "b"),
            ("secretName", "s"),
            ("shareName", "s"),
        ],
    ),
    (
        "CSIVolumeSource",
        &[
            ("driver", "s"),
            ("fsType", "s"),
            ("nodePublishSecretRef", "LocalObjectReference"),
            ("readOnly", "b"),
            ("volumeAttributes", "{s"),
        ],
    ),
    (
        "Capabilities",
        &[
            ("add", "[s"),
            ("drop", "[s"),
        ],
    ),
    (
        "CephFSVolumeSource",
        &[
            ("monitors", "[s"),
            ("path", "s"),
            ("readOnly", "b"),
            ("secretFile", "s"),
            ("secretRef", "LocalObjectReference"),
            ("user", "s"),
        ],
    ),
    (
        "CinderVolumeSource",
        &[
            ("fsType", "s"),
            ("readOnly", "b"),
            ("secretRef", "LocalObjectReference"),
            ("volumeID", "s"),
        ],
    ),
    (
        "ClusterTrustBundleProjection",
        &[
            ("labelSelector", "LabelSelector"),
            ("name", "s"),
            ("optional", "b"),
            ("path", "s"),
            ("signerName", "s"),
            ("user", "i"),
        ],
    ),
    (
        "ConfigMap",
        &[
            ("apiVersion", "s"),
            ("binaryData", "{y"),
            ("data", "{s"),
            ("immutable", "b"),
            ("kind", "s"),
            ("metadata", "ObjectMeta"),
        ],
    ),
    (
        "ConfigMapEnvSource",
        &[
            ("name", "s"),
            ("optional", "b"),
        ],
    ),
    (
        "ConfigMapKeySelector",
        &[
            ("key", "s"),
            ("name", "s"),
            ("optional", "b"),
        ],
    ),
    (
        "ConfigMapProjection",
        &[
            ("items", "[KeyToPath"),
            ("name", "s"),
            ("optional", "b"),
        ],
    ),
    (
        "ConfigMapVolumeSource",
        &[
            ("defaultMode", "i"),
            ("defaultUser", "i"),
            ("items", "[KeyToPath"),
            ("name", "s"),
            ("optional", "b"),
        ],
    ),
    (
        "Container",
        &[
            ("args", "[s"),
            ("command", "[s"),
            ("env", "[EnvVar"),
            ("envFrom", "[EnvFromSource"),
            ("image", "s"),
            ("imagePullPolicy", "s"),
            ("lifecycle", "Lifecycle"),
            ("livenessProbe", "Probe"),
            ("name", "s"),
            ("ports", "[ContainerPort"),
            ("readinessProbe", "Probe"),
            ("resizePolicy", "[ContainerResizePolicy"),
            ("resources", "ResourceRequirements"),
            ("restartPolicy", "s"),
            ("restartPolicyRules", "[ContainerRestartRule"),
            ("securityContext", "SecurityContext"),
            ("startupProbe", "Probe"),
            ("stdin", "b"),
            ("stdinOnce", "b"),
            ("terminationMessagePath", "s"),
            ("terminationMessagePolicy", "s"),
            ("tty", "b"),
            ("volumeDevices", "[VolumeDevice"),
            ("volumeMounts", "[VolumeMount"),
            ("workingDir", "s"),
        ],
    ),
    (
        "ContainerExtendedResourceRequest",
        &[
            ("containerName", "s"),
            ("requestName", "s"),
            ("resourceName", "s"),
        ],
    ),
    (
        "ContainerPort",
        &[
            ("containerPort", "i"),
            ("hostIP", "s"),
            ("hostPort", "i"),
            ("name", "s"),
            ("protocol", "s"),
        ],
    ),
    (
        "ContainerResizePolicy",
        &[
            ("resourceName", "s"),
            ("restartPolicy", "s"),
        ],
    ),
    (
        "ContainerRestartRule",
        &[
            ("action", "s"),
            ("exitCodes", "ContainerRestartRuleOnExitCodes"),
        ],
    ),
    (
        "ContainerRestartRuleOnExitCodes",
        &[
            ("operator", "s"),
            ("values", "[i"),
        ],
    ),
    (
        "ContainerState",
        &[
            ("running", "ContainerStateRunning"),
            ("terminated", "ContainerStateTerminated"),
            ("waiting", "ContainerStateWaiting"),
        ],
    ),
    (
        "ContainerStateRunning",
        &[
            ("startedAt", "*"),
        ],
    ),
    (
        "ContainerStateTerminated",
        &[
            ("containerID", "s"),
            ("exitCode", "i"),
            ("finishedAt", "*"),
            ("message", "s"),
            ("reason", "s"),
            ("signal", "i"),
            ("startedAt", "*"),
        ],
    ),
    (
        "ContainerStateWaiting",
        &[
            ("message", "s"),
            ("reason", "s"),
        ],
    ),
    (
        "ContainerStatus",
        &[
            ("allocatedResources", "{*"),
            ("allocatedResourcesStatus", "[ResourceStatus"),
            ("containerID", "s"),
            ("image", "s"),
            ("imageID", "s"),
            ("lastState", "ContainerState"),
            ("name", "s"),
            ("ready", "b"),
            ("resources", "ResourceRequirements"),
            ("restartCount", "i"),
            ("started", "b"),
            ("state", "ContainerState"),
            ("stopSignal", "s"),
            ("user", "ContainerUser"),
            ("volumeMounts", "[VolumeMountStatus"),
        ],
    ),
    (
        "ContainerUser",
        &[
            ("linux", "LinuxContainerUser"),
        ],
    ),
    (
        "DownwardAPIProjection",
        &[
            ("items", "[DownwardAPIVolumeFile"),
        ],
    ),
    (
        "DownwardAPIVolumeFile",
        &[
            ("fieldRef", "ObjectFieldSelector"),
            ("mode", "i"),
            ("path", "s"),
            ("resourceFieldRef", "ResourceFieldSelector"),
            ("user", "i"),
        ],
    ),
    (
        "DownwardAPIVolumeSource",
        &[
            ("defaultMode", "i"),
            ("defaultUser", "i"),
            ("items", "[DownwardAPIVolumeFile"),
        ],
    ),
    (
        "EmptyDirVolumeSource",
        &[
            ("medium", "s"),
            ("mode", "i"),
            ("sizeLimit", "*"),
        ],
    ),
    (
        "EnvFromSource",
        &[
            ("configMapRef", "ConfigMapEnvSource"),
            ("prefix", "s"),
            ("secretRef", "SecretEnvSource"),
        ],
    ),
    (
        "EnvVar",
        &[
            ("name", "s"),
            ("value", "s"),
            ("valueFrom", "EnvVarSource"),
        ],
    ),
    (
        "EnvVarSource",
        &[
            ("configMapKeyRef", "ConfigMapKeySelector"),
            ("fieldRef", "ObjectFieldSelector"),
            ("fileKeyRef", "FileKeySelector"),
            ("resourceFieldRef", "ResourceFieldSelector"),
            ("secretKeyRef", "SecretKeySelector"),
        ],
    ),
    (
        "EphemeralContainer",
        &[
            ("args", "[s"),
            ("command", "[s"),
            ("env", "[EnvVar"),
            ("envFrom", "[EnvFromSource"),
            ("image", "s"),
            ("imagePullPolicy", "s"),
            ("lifecycle", "Lifecycle"),
            ("livenessProbe", "Probe"),
            ("name", "s"),
            ("ports", "[ContainerPort"),
            ("readinessProbe", "Probe"),
            ("resizePolicy", "[ContainerResizePolicy"),
            ("resources", "ResourceRequirements"),
            ("restartPolicy", "s"),
            ("restartPolicyRules", "[ContainerRestartRule"),
            ("securityContext", "SecurityContext"),
            ("startupProbe", "Probe"),
            ("stdin", "b"),
            ("stdinOnce", "b"),
            ("targetContainerName", "s"),
            ("terminationMessagePath", "s"),
            ("terminationMessagePolicy", "s"),
            ("tty", "b"),
            ("volumeDevices", "[VolumeDevice"),
            ("volumeMounts", "[VolumeMount"),
            ("workingDir", "s"),
        ],
    ),
    (
        "EphemeralVolumeSource",
        &[
            ("volumeClaimTemplate", "PersistentVolumeClaimTemplate"),
        ],
    ),
    (
        "EvictionResponder",
        &[
            ("name", "s"),
            ("priority", "i"),
        ],
    ),
    (
        "ExecAction",
        &[
            ("command", "[s"),
        ],
    ),
    (
        "FCVolumeSource",
        &[
            ("fsType", "s"),
            ("lun", "i"),
            ("readOnly", "b"),
            ("targetWWNs", "[s"),
            ("wwids", "[s"),
        ],
    ),
    (
        "FileKeySelector",
        &[
            ("key", "s"),
            ("optional", "b"),
            ("path", "s"),
            ("volumeName", "s"),
        ],
    ),
    (
        "FlexVolumeSource",
        &[
            ("driver", "s"),
            ("fsType", "s"),
            ("options", "{s"),
            ("readOnly", "b"),
            ("secretRef", "LocalObjectReference"),
        ],
    ),
    (
        "FlockerVolumeSource",
        &[
            ("datasetName", "s"),
            ("datasetUUID", "s"),
        ],
    ),
    (
        "GCEPersistentDiskVolumeSource",
        &[
            ("fsType", "s"),
            ("partition", "i"),
            ("pdName", "s"),
            ("readOnly", "b"),
        ],
    ),
    (
        "GRPCAction",
        &[
            ("mode", "s"),
            ("port", "i"),
            ("service", "s"),
        ],
    ),
    (
        "GitRepoVolumeSource",
        &[
            ("directory", "s"),
            ("repository", "s"),
            ("revision", "s"),
        ],
    ),
    (
        "GlusterfsVolumeSource",
        &[
            ("endpoints", "s"),
            ("path", "s"),
            ("readOnly", "b"),
        ],
    ),
    (
        "HTTPGetAction",
        &[
            ("host", "s"),
            ("httpHeaders", "[HTTPHeader"),
            ("path", "s"),
            ("port", "*"),
            ("protocol", "s"),
            ("scheme", "s"),
        ],
    ),
    (
        "HTTPHeader",
        &[
            ("name", "s"),
            ("value", "s"),
        ],
    ),
    (
        "HostAlias",
        &[
            ("hostnames", "[s"),
            ("ip", "s"),
        ],
    ),
    (
        "HostIP",
        &[
            ("ip", "s"),
        ],
    ),
    (
        "HostPathVolumeSource",
        &[
            ("path", "s"),
            ("type", "s"),
        ],
    ),
    (
        "ISCSIVolumeSource",
        &[
            ("chapAuthDiscovery", "b"),
            ("chapAuthSession", "b"),
            ("fsType", "s"),
            ("initiatorName", "s"),
            ("iqn", "s"),
            ("iscsiInterface", "s"),
            ("lun", "i"),
            ("portals", "[s"),
            ("readOnly", "b"),
            ("secretRef", "LocalObjectReference"),
            ("targetPortal", "s"),
        ],
    ),
    (
        "ImageVolumeSource",
        &[
            ("pullPolicy", "s"),
            ("reference", "s"),
        ],
    ),
    (
        "ImageVolumeStatus",
        &[
            ("imageRef", "s"),
        ],
    ),
    (
        "KeyToPath",
        &[
            ("key", "s"),
            ("mode", "i"),
            ("path", "s"),
            ("user", "i"),
        ],
    ),
    (
        "LabelSelector",
        &[
            ("matchExpressions", "[LabelSelectorRequirement"),
            ("matchLabels", "{s"),
        ],
    ),
    (
        "LabelSelectorRequirement",
        &[
            ("key", "s"),
            ("operator", "s"),
            ("values", "[s"),
        ],
    ),
    (
        "Lifecycle",
        &[
            ("postStart", "LifecycleHandler"),
            ("preStop", "LifecycleHandler"),
            ("stopSignal", "s"),
        ],
    ),
    (
        "LifecycleHandler",
        &[
            ("exec", "ExecAction"),
            ("httpGet", "HTTPGetAction"),
            ("sleep", "SleepAction"),
            ("tcpSocket", "TCPSocketAction"),
        ],
    ),
    (
        "LinuxContainerUser",
        &[
            ("gid", "i"),
            ("supplementalGroups", "[i"),
            ("uid", "i"),
        ],
    ),
    (
        "LocalObjectReference",
        &[
            ("name", "s"),
        ],
    ),
    (
        "ManagedFieldsEntry",
        &[
            ("apiVersion", "s"),
            ("fieldsType", "s"),
            ("fieldsV1", "*"),
            ("manager", "s"),
            ("operation", "s"),
            ("subresource", "s"),
            ("time", "*"),
        ],
    ),
    (
        "NFSVolumeSource",
        &[
            ("path", "s"),
            ("readOnly", "b"),
            ("server", "s"),
        ],
    ),
    (
        "NodeAffinity",
        &[
            ("preferredDuringSchedulingIgnoredDuringExecution", "[PreferredSchedulingTerm"),
            ("requiredDuringSchedulingIgnoredDuringExecution", "NodeSelector"),
        ],
    ),
    (
        "NodeAllocatableMappedResources",
        &[
            ("name", "s"),
            ("quantity", "*"),
        ],
    ),
    (
        "NodeAllocatableOverheadResources",
        &[
            ("name", "s"),
            ("perContainer", "*"),
            ("perPod", "*"),
        ],
    ),
    (
        "NodeAllocatableResourceClaimStatus",
        &[
            ("containers", "[s"),
            ("mapping", "[NodeAllocatableMappedResources"),
            ("overhead", "[NodeAllocatableOverheadResources"),
            ("resourceClaimName", "s"),
        ],
    ),
    (
        "NodeSelector",
        &[
            ("nodeSelectorTerms", "[NodeSelectorTerm"),
        ],
    ),
    (
        "NodeSelectorRequirement",
        &[
            ("key", "s"),
            ("operator", "s"),
            ("values", "[s"),
        ],
    ),
    (
        "NodeSelectorTerm",
        &[
            ("matchExpressions", "[NodeSelectorRequirement"),
            ("matchFields", "[NodeSelectorRequirement"),
        ],
    ),
    (
        "ObjectFieldSelector",
        &[
            ("apiVersion", "s"),
            ("fieldPath", "s"),
        ],
    ),
    (
        "ObjectMeta",
        &[
            ("annotations", "{s"),
            ("creationTimestamp", "*"),
            ("deletionGracePeriodSeconds", "i"),
            ("deletionTimestamp", "*"),
            ("finalizers", "[s"),
            ("generateName", "s"),
            ("generation", "i"),
            ("labels", "{s"),
            ("managedFields", "[ManagedFieldsEntry"),
            ("name", "s"),
            ("namespace", "s"),
            ("ownerReferences", "[OwnerReference"),
            ("resourceVersion", "s"),
            ("selfLink", "s"),
            ("uid", "s"),
        ],
    ),
    (
        "OwnerReference",
        &[
            ("apiVersion", "s"),
            ("blockOwnerDeletion", "b"),
            ("controller", "b"),
            ("kind", "s"),
            ("name", "s"),
            ("uid", "s"),
        ],
    ),
    (
        "PersistentVolumeClaimSpec",
        &[
            ("accessModes", "[s"),
            ("dataSource", "TypedLocalObjectReference"),
            ("dataSourceRef", "TypedObjectReference"),
            ("resources", "VolumeResourceRequirements"),
            ("selector", "LabelSelector"),
            ("storageClassName", "s"),
            ("volumeAttributesClassName", "s"),
            ("volumeMode", "s"),
            ("volumeName", "s"),
        ],
    ),
    (
        "PersistentVolumeClaimTemplate",
        &[
            ("metadata", "ObjectMeta"),
            ("spec", "PersistentVolumeClaimSpec"),
        ],
    ),
    (
        "PersistentVolumeClaimVolumeSource",
        &[
            ("claimName", "s"),
            ("readOnly", "b"),
        ],
    ),
    (
        "PhotonPersistentDiskVolumeSource",
        &[
            ("fsType", "s"),
            ("pdID", "s"),
        ],
    ),
    (
        "Pod",
        &[
            ("apiVersion", "s"),
            ("kind", "s"),
            ("metadata", "ObjectMeta"),
            ("spec", "PodSpec"),
            ("status", "PodStatus"),
        ],
    ),
    (
        "PodAffinity",
        &[
            ("preferredDuringSchedulingIgnoredDuringExecution", "[WeightedPodAffinityTerm"),
            ("requiredDuringSchedulingIgnoredDuringExecution", "[PodAffinityTerm"),
        ],
    ),
    (
        "PodAffinityTerm",
        &[
            ("labelSelector", "LabelSelector"),
            ("matchLabelKeys", "[s"),
            ("mismatchLabelKeys", "[s"),
            ("namespaceSelector", "LabelSelector"),
            ("namespaces", "[s"),
            ("topologyKey", "s"),
        ],
    ),
    (
        "PodAntiAffinity",
        &[
            ("preferredDuringSchedulingIgnoredDuringExecution", "[WeightedPodAffinityTerm"),
            ("requiredDuringSchedulingIgnoredDuringExecution", "[PodAffinityTerm"),
        ],
    ),
    (
        "PodCertificateProjection",
        &[
            ("certificateChainPath", "s"),
            ("credentialBundlePath", "s"),
            ("keyPath", "s"),
            ("keyType", "s"),
            ("maxExpirationSeconds", "i"),
            ("signerName", "s"),
            ("user", "i"),
            ("userAnnotations", "{s"),
        ],
    ),
    (
        "PodCondition",
        &[
            ("lastProbeTime", "*"),
            ("lastTransitionTime", "*"),
            ("message", "s"),
            ("observedGeneration", "i"),
            ("reason", "s"),
            ("status", "s"),
            ("type", "s"),
        ],
    ),
    (
        "PodDNSConfig",
        &[
            ("nameservers", "[s"),
            ("options", "[PodDNSConfigOption"),
            ("searches", "[s"),
        ],
    ),
    (
        "PodDNSConfigOption",
        &[
            ("name", "s"),
            ("value", "s"),
        ],
    ),
    (
        "PodExtendedResourceClaimStatus",
        &[
            ("requestMappings", "[ContainerExtendedResourceRequest"),
            ("resourceClaimName", "s"),
        ],
    ),
    (
        "PodIP",
        &[
            ("ip", "s"),
        ],
    ),
    (
        "PodOS",
        &[
            ("name", "s"),
        ],
    ),
    (
        "PodReadinessGate",
        &[
            ("conditionType", "s"),
        ],
    ),
    (
        "PodResourceClaim",
        &[
            ("name", "s"),
            ("resourceClaimName", "s"),
            ("resourceClaimTemplateName", "s"),
        ],
    ),
    (
        "PodResourceClaimStatus",
        &[
            ("name", "s"),
            ("resourceClaimName", "s"),
        ],
    ),
    (
        "PodSchedulingGate",
        &[
            ("name", "s"),
        ],
    ),
    (
        "PodSchedulingGroup",
        &[
            ("podGroupName", "s"),
        ],
    ),
    (
        "PodSecurityContext",
        &[
            ("appArmorProfile", "AppArmorProfile"),
            ("fsGroup", "i"),
            ("fsGroupChangePolicy", "s"),
            ("runAsGroup", "i"),
            ("runAsNonRoot", "b"),
            ("runAsUser", "i"),
            ("seLinuxChangePolicy", "s"),
            ("seLinuxOptions", "SELinuxOptions"),
            ("seccompProfile", "SeccompProfile"),
            ("supplementalGroups", "[i"),
            ("supplementalGroupsPolicy", "s"),
            ("sysctls", "[Sysctl"),
            ("windowsOptions", "WindowsSecurityContextOptions"),
        ],
    ),
    (
        "PodSpec",
        &[
            ("activeDeadlineSeconds", "i"),
            ("affinity", "Affinity"),
            ("automountServiceAccountToken", "b"),
            ("containers", "[Container"),
            ("dnsConfig", "PodDNSConfig"),
            ("dnsPolicy", "s"),
            ("enableServiceLinks", "b"),
            ("ephemeralContainers", "[EphemeralContainer"),
            ("evictionResponders", "[EvictionResponder"),
            ("hostAliases", "[HostAlias"),
            ("hostIPC", "b"),
            ("hostNetwork", "b"),
            ("hostPID", "b"),
            ("hostUsers", "b"),
            ("hostname", "s"),
            ("hostnameOverride", "s"),
            ("imagePullSecrets", "[LocalObjectReference"),
            ("initContainers", "[Container"),
            ("nodeName", "s"),
            ("nodeSelector", "{s"),
            ("os", "PodOS"),
            ("overhead", "{*"),
            ("preemptionPolicy", "s"),
            ("priority", "i"),
            ("priorityClassName", "s"),
            ("readinessGates", "[PodReadinessGate"),
            ("resourceClaims", "[PodResourceClaim"),
            ("resources", "ResourceRequirements"),
            ("restartPolicy", "s"),
            ("runtimeClassName", "s"),
            ("schedulerName", "s"),
            ("schedulingGates", "[PodSchedulingGate"),
            ("schedulingGroup", "PodSchedulingGroup"),
            ("securityContext", "PodSecurityContext"),
            ("serviceAccount", "s"),
            ("serviceAccountName", "s"),
            ("setHostnameAsFQDN", "b"),
            ("shareProcessNamespace", "b"),
            ("subdomain", "s"),
            ("terminationGracePeriodSeconds", "i"),
            ("tolerations", "[Toleration"),
            ("topologySpreadConstraints", "[TopologySpreadConstraint"),
            ("volumes", "[Volume"),
        ],
    ),
    (
        "PodStatus",
        &[
            ("allocatedResources", "{*"),
            ("conditions", "[PodCondition"),
            ("containerStatuses", "[ContainerStatus"),
            ("ephemeralContainerStatuses", "[ContainerStatus"),
            ("extendedResourceClaimStatus", "PodExtendedResourceClaimStatus"),
            ("hostIP", "s"),
            ("hostIPs", "[HostIP"),
            ("initContainerStatuses", "[ContainerStatus"),
            ("message", "s"),
            ("nodeAllocatableResourceClaimStatuses", "[NodeAllocatableResourceClaimStatus"),
            ("nominatedNodeName", "s"),
            ("observedGeneration", "i"),
            ("phase", "s"),
            ("podIP", "s"),
            ("podIPs", "[PodIP"),
            ("qosClass", "s"),
            ("reason", "s"),
            ("resize", "s"),
            ("resourceClaimStatuses", "[PodResourceClaimStatus"),
            ("resources", "ResourceRequirements"),
            ("startTime", "*"),
            ("volumeHealth", "[PodVolumeHealth"),
        ],
    ),
    (
        "PodVolumeHealth",
        &[
            ("healthConditions", "[VolumeHealthCondition"),
            ("lastTransitionTime", "*"),
            ("name", "s"),
        ],
    ),
    (
        "PortworxVolumeSource",
        &[
            ("fsType", "s"),
            ("readOnly", "b"),
            ("volumeID", "s"),
        ],
    ),
    (
        "PreferredSchedulingTerm",
        &[
            ("preference", "NodeSelectorTerm"),
            ("weight", "i"),
        ],
    ),
    (
        "Probe",
        &[
            ("exec", "ExecAction"),
            ("failureThreshold", "i"),
            ("grpc", "GRPCAction"),
            ("httpGet", "HTTPGetAction"),
            ("initialDelaySeconds", "i"),
            ("periodSeconds", "i"),
            ("successThreshold", "i"),
            ("tcpSocket", "TCPSocketAction"),
            ("terminationGracePeriodSeconds", "i"),
            ("timeoutSeconds", "i"),
        ],
    ),
    (
        "ProjectedVolumeSource",
        &[
            ("defaultMode", "i"),
            ("defaultUser", "i"),
            ("sources", "[VolumeProjection"),
        ],
    ),
    (
        "QuobyteVolumeSource",
        &[
            ("group", "s"),
            ("readOnly", "b"),
            ("registry", "s"),
            ("tenant", "s"),
            ("user", "s"),
            ("volume", "s"),
        ],
    ),
    (
        "RBDVolumeSource",
        &[
            ("fsType", "s"),
            ("image", "s"),
            ("keyring", "s"),
            ("monitors", "[s"),
            ("pool", "s"),
            ("readOnly", "b"),
            ("secretRef", "LocalObjectReference"),
            ("user", "s"),
        ],
    ),
    (
        "ResourceClaim",
        &[
            ("name", "s"),
            ("request", "s"),
        ],
    ),
    (
        "ResourceFieldSelector",
        &[
            ("containerName", "s"),
            ("divisor", "*"),
            ("resource", "s"),
        ],
    ),
    (
        "ResourceHealth",
        &[
            ("health", "s"),
            ("message", "s"),
            ("resourceID", "s"),
        ],
    ),
    (
        "ResourceRequirements",
        &[
            ("claims", "[ResourceClaim"),
            ("limits", "{*"),
            ("requests", "{*"),
        ],
    ),
    (
        "ResourceStatus",
        &[
            ("name", "s"),
            ("resources", "[ResourceHealth"),
        ],
    ),
    (
        "SELinuxOptions",
        &[
            ("level", "s"),
            ("role", "s"),
            ("type", "s"),
            ("user", "s"),
        ],
    ),
    (
        "ScaleIOVolumeSource",
        &[
            ("fsType", "s"),
            ("gateway", "s"),
            ("protectionDomain", "s"),
            ("readOnly", "b"),
            ("secretRef", "LocalObjectReference"),
            ("sslEnabled", "b"),
            ("storageMode", "s"),
            ("storagePool", "s"),
            ("system", "s"),
            ("volumeName", "s"),
        ],
    ),
    (
        "SeccompProfile",
        &[
            ("localhostProfile", "s"),
            ("type", "s"),
        ],
    ),
    (
        "Secret",
        &[
            ("apiVersion", "s"),
            ("data", "{y"),
            ("immutable", "b"),
            ("kind", "s"),
            ("metadata", "ObjectMeta"),
            ("stringData", "{s"),
            ("type", "s"),
        ],
    ),
    (
        "SecretEnvSource",
        &[
            ("name", "s"),
            ("optional", "b"),
        ],
    ),
    (
        "SecretKeySelector",
        &[
            ("key", "s"),
            ("name", "s"),
            ("optional", "b"),
        ],
    ),
    (
        "SecretProjection",
        &[
            ("items", "[KeyToPath"),
            ("name", "s"),
            ("optional", "b"),
        ],
    ),
    (
        "SecretVolumeSource",
        &[
            ("defaultMode", "i"),
            ("defaultUser", "i"),
            ("items", "[KeyToPath"),
            ("optional", "b"),
            ("secretName", "s"),
        ],
    ),
    (
        "SecurityContext",
        &[
            ("allowPrivilegeEscalation", "b"),
            ("appArmorProfile", "AppArmorProfile"),
            ("capabilities", "Capabilities"),
            ("privileged", "b"),
            ("procMount", "s"),
            ("readOnlyRootFilesystem", "b"),
            ("runAsGroup", "i"),
            ("runAsNonRoot", "b"),
            ("runAsUser", "i"),
            ("seLinuxOptions", "SELinuxOptions"),
            ("seccompProfile", "SeccompProfile"),
            ("windowsOptions", "WindowsSecurityContextOptions"),
        ],
    ),
    (
        "ServiceAccountTokenProjection",
        &[
            ("audience", "s"),
            ("expirationSeconds", "i"),
            ("path", "s"),
            ("user", "i"),
        ],
    ),
    (
        "SleepAction",
        &[
            ("seconds", "i"),
        ],
    ),
    (
        "StorageOSVolumeSource",
        &[
            ("fsType", "s"),
            ("readOnly", "b"),
            ("secretRef", "LocalObjectReference"),
            ("volumeName", "s"),
            ("volumeNamespace", "s"),
        ],
    ),
    (
        "Sysctl",
        &[
            ("name", "s"),
            ("value", "s"),
        ],
    ),
    (
        "TCPSocketAction",
        &[
            ("host", "s"),
            ("port", "*"),
        ],
    ),
    (
        "Toleration",
        &[
            ("effect", "s"),
            ("key", "s"),
            ("operator", "s"),
            ("tolerationSeconds", "i"),
            ("value", "s"),
        ],
    ),
    (
        "TopologySpreadConstraint",
        &[
            ("labelSelector", "LabelSelector"),
            ("matchLabelKeys", "[s"),
            ("maxSkew", "i"),
            ("minDomains", "i"),
            ("nodeAffinityPolicy", "s"),
            ("nodeTaintsPolicy", "s"),
            ("topologyKey", "s"),
            ("whenUnsatisfiable", "s"),
        ],
    ),
    (
        "TypedLocalObjectReference",
        &[
            ("apiGroup", "s"),
            ("kind", "s"),
            ("name", "s"),
        ],
    ),
    (
        "TypedObjectReference",
        &[
            ("apiGroup", "s"),
            ("kind", "s"),
            ("name", "s"),
            ("namespace", "s"),
        ],
    ),
    (
        "Volume",
        &[
            ("awsElasticBlockStore", "AWSElasticBlockStoreVolumeSource"),
            ("azureDisk", "AzureDiskVolumeSource"),
            ("azureFile", "AzureFileVolumeSource"),
            ("cephfs", "CephFSVolumeSource"),
            ("cinder", "CinderVolumeSource"),
            ("configMap", "ConfigMapVolumeSource"),
            ("csi", "CSIVolumeSource"),
            ("downwardAPI", "DownwardAPIVolumeSource"),
            ("emptyDir", "EmptyDirVolumeSource"),
            ("ephemeral", "EphemeralVolumeSource"),
            ("fc", "FCVolumeSource"),
            ("flexVolume", "FlexVolumeSource"),
            ("flocker", "FlockerVolumeSource"),
            ("gcePersistentDisk", "GCEPersistentDiskVolumeSource"),
            ("gitRepo", "GitRepoVolumeSource"),
            ("glusterfs", "GlusterfsVolumeSource"),
            ("hostPath", "HostPathVolumeSource"),
            ("image", "ImageVolumeSource"),
            ("iscsi", "ISCSIVolumeSource"),
            ("name", "s"),
            ("nfs", "NFSVolumeSource"),
            ("persistentVolumeClaim", "PersistentVolumeClaimVolumeSource"),
            ("photonPersistentDisk", "PhotonPersistentDiskVolumeSource"),
            ("portworxVolume", "PortworxVolumeSource"),
            ("projected", "ProjectedVolumeSource"),
            ("quobyte", "QuobyteVolumeSource"),
            ("rbd", "RBDVolumeSource"),
            ("scaleIO", "ScaleIOVolumeSource"),
            ("secret", "SecretVolumeSource"),
            ("storageos", "StorageOSVolumeSource"),
            ("vsphereVolume", "VsphereVirtualDiskVolumeSource"),
        ],
    ),
    (
        "VolumeDevice",
        &[
            ("devicePath", "s"),
            ("name", "s"),
        ],
    ),
    (
        "VolumeHealthCondition",
        &[
            ("message", "s"),
            ("reason", "s"),
            ("status", "s"),
        ],
    ),
    (
        "VolumeMount",
        &[
            ("bindMountOptions", "[s"),
            ("mountPath", "s"),
            ("mountPropagation", "s"),
            ("name", "s"),
            ("readOnly", "b"),
            ("recursiveReadOnly", "s"),
            ("subPath", "s"),
            ("subPathExpr", "s"),
        ],
    ),
    (
        "VolumeMountStatus",
        &[
            ("mountPath", "s"),
            ("name", "s"),
            ("readOnly", "b"),
            ("recursiveReadOnly", "s"),
            ("volumeStatus", "VolumeStatus"),
        ],
    ),
    (
        "VolumeProjection",
        &[
            ("clusterTrustBundle", "ClusterTrustBundleProjection"),
            ("configMap", "ConfigMapProjection"),
            ("downwardAPI", "DownwardAPIProjection"),
            ("podCertificate", "PodCertificateProjection"),
            ("secret", "SecretProjection"),
            ("serviceAccountToken", "ServiceAccountTokenProjection"),
        ],
    ),
    (
        "VolumeResourceRequirements",
        &[
            ("limits", "{*"),
            ("requests", "{*"),
        ],
    ),
    (
        "VolumeStatus",
        &[
            ("image", "ImageVolumeStatus"),
        ],
    ),
    (
        "VsphereVirtualDiskVolumeSource",
        &[
            ("fsType", "s"),
            ("storagePolicyID", "s"),
            ("storagePolicyName", "s"),
            ("volumePath", "s"),
        ],
    ),
    (
        "WeightedPodAffinityTerm",
        &[
            ("podAffinityTerm", "PodAffinityTerm"),
            ("weight", "i"),
        ],
    ),
    (
        "WindowsSecurityContextOptions",
        &[
            ("gmsaCredentialSpec", "s"),
            ("gmsaCredentialSpecName", "s"),
            ("hostProcess", "b"),
            ("runAsUserName", "s"),
        ],
    ),
];
