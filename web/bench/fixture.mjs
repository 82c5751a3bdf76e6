// The benchmark input shared by every host: an UPDATE AdmissionReview of a Pod with `n` containers
// (old + new, the new one with one image changed), about 10 KB of JSON for n = 5.
export function pod(n, image = 'registry.example/app:1.0') {
  const containers = Array.from({ length: n }, (_, i) => ({
    name: `c${i}`,
    image: i === 0 ? image : `registry.example/side-${i}:2.3`,
    command: ['/bin/app', '--serve', `--port=${8080 + i}`],
    ports: [{ name: `http-${i}`, containerPort: 8080 + i, protocol: 'TCP' }],
    env: [{ name: 'MODE', value: 'production' }, { name: 'REPLICA', value: String(i) }],
    resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '500m', memory: '512Mi' } },
    livenessProbe: { httpGet: { path: '/healthz', port: 8080 + i }, periodSeconds: 10, failureThreshold: 3 },
    readinessProbe: { httpGet: { path: '/ready', port: 8080 + i }, periodSeconds: 5 },
    volumeMounts: [{ name: 'data', mountPath: '/data' }],
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
  }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'bench', namespace: 'default', uid: 'b0', resourceVersion: '7', labels: { app: 'bench', tier: 'web' } },
    spec: {
      nodeName: 'node-1',
      containers,
      volumes: [{ name: 'data', emptyDir: {} }],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      securityContext: {},
    },
    status: { phase: 'Running', qosClass: 'Burstable' },
  };
}

export function review(n = 5) {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      name: 'bench', namespace: 'default', operation: 'UPDATE',
      userInfo: { username: 'admin' },
      object: pod(n, 'registry.example/app:1.1'),
      oldObject: pod(n),
    },
  };
}

// `node fixture.mjs [n] > review.json`
if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(JSON.stringify(review(Number(process.argv[2] ?? 5))) + '\n');
}
