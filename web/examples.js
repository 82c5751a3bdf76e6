// Ready-made Pod changes, one per KEP story. Each is {title, sub, old, new} with YAML Pods, and the
// release to judge as when it is not stock 1.37 (`preview`: the KEP gates on).

const meta = `apiVersion: v1
kind: Pod
metadata:
  name: trainer
  namespace: ml
  uid: 3f1c2a9e-5c7b-4d8e-9f00-1a2b3c4d5e6f
  resourceVersion: "4711"`;

const running = `status:
  phase: Running
  qosClass: Burstable
  conditions:
  - {type: Initialized, status: "True"}
  - {type: Ready, status: "True"}`;

const warmOld = `${meta}
spec:
  nodeName: node-1
  containers:
  - name: coordinator
    image: registry.example/ray:2.40
    resources:
      requests: {cpu: 500m, memory: 1Gi}
      limits: {memory: 2Gi}
${running}
`;

const warmNew = `${meta}
spec:
  nodeName: node-1
  containers:
  - name: coordinator
    image: registry.example/ray:2.40
    resources:
      requests: {cpu: 500m, memory: 1Gi}
      limits: {memory: 2Gi}
  - name: worker-1
    image: registry.example/ray:2.40
    resources:
      requests: {cpu: "1", memory: 2Gi}
      limits: {memory: 4Gi}
${running}
`;

const sidecarOld = `${meta}
spec:
  nodeName: node-1
  containers:
  - name: app
    image: registry.example/app:1.8
    resources:
      requests: {cpu: 250m, memory: 256Mi}
  - name: log-shipper-v1
    image: registry.example/shipper:1.0
    resources:
      requests: {cpu: 50m, memory: 64Mi}
${running}
`;

const sidecarNew = `${meta}
spec:
  nodeName: node-1
  containers:
  - name: app
    image: registry.example/app:1.8
    resources:
      requests: {cpu: 250m, memory: 256Mi}
  - name: log-shipper-v2
    image: registry.example/shipper:2.0
    resources:
      requests: {cpu: 50m, memory: 64Mi}
${running}
`;

const probeOld = `${meta}
spec:
  nodeName: node-1
  containers:
  - name: api
    image: registry.example/api:3.1
    resources:
      requests: {cpu: 500m, memory: 512Mi}
      limits: {cpu: 500m, memory: 512Mi}
    livenessProbe:
      httpGet: {path: /healthz, port: 8080}
      periodSeconds: 10
      timeoutSeconds: 1
      failureThreshold: 3
${running}
`;

const probeNew = `${meta}
spec:
  nodeName: node-1
  containers:
  - name: api
    image: registry.example/api:3.1
    resources:
      requests: {cpu: 500m, memory: 512Mi}
      limits: {cpu: 500m, memory: 512Mi}
    livenessProbe:
      httpGet: {path: /healthz, port: 8080}
      periodSeconds: 30
      timeoutSeconds: 5
      failureThreshold: 10
${running}
`;

const debugOld = sidecarOld;

const debugNew = sidecarOld.replace(
  running,
  `  ephemeralContainers:
  - name: debugger-x7k2p
    image: busybox:1.36
    command: [sh]
    stdin: true
    tty: true
    targetContainerName: app
${running}`,
);

const mainAddNew = warmNew;

/** The examples, by id. */
export const EXAMPLES = {
  'warm-pool-add': {
    title: 'Warm pool: add a worker container (pods/dynamic, KEP-5972)',
    sub: 'dynamic',
    release: 'preview',
    old: warmOld,
    new: warmNew,
  },
  'sidecar-swap': {
    title: 'Sidecar swap: replace log-shipper v1 by v2 in one request (pods/dynamic)',
    sub: 'dynamic',
    release: 'preview',
    old: sidecarOld,
    new: sidecarNew,
  },
  'relax-liveness': {
    title: 'Incident: relax a liveness probe in place (KEP-6318)',
    sub: 'none',
    release: 'preview',
    old: probeOld,
    new: probeNew,
  },
  'debug-container': {
    title: 'Debug: inject an ephemeral container (kubectl debug, pods/ephemeralcontainers)',
    sub: 'ephemeral-containers',
    old: debugOld,
    new: debugNew,
  },
  'add-on-main-resource': {
    title: 'Denied: add a container through a plain Pod update',
    sub: 'none',
    old: warmOld,
    new: mainAddNew,
  },
};
