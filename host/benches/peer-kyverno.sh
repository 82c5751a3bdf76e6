#!/usr/bin/env bash
# The same ValidatingAdmissionPolicy applied to the same 3,000 Pod files by the Kyverno CLI
# (`kyverno apply`) and by `podmut vap --new DIR`, interleaved, ROUNDS times (BENCHMARKS.md, Peers).
#
#   host/benches/peer-kyverno.sh PODMUT_BINARY [ROUNDS]
#
# Builds kubectl-kyverno v1.19.1 from the Go module proxy once (about 8 minutes on 2 cores) into
# ~/.cache/podmut/peers, writes the Pods and the policy into a scratch directory, checks that both
# tools deny the same Pods, then prints each run's wall time.
set -euo pipefail
podmut=${1:?usage: peer-kyverno.sh PODMUT_BINARY [ROUNDS]}
rounds=${2:-3}
version=v1.19.1
cache="$HOME/.cache/podmut/peers"
kyverno="$cache/kubectl-kyverno-$version"
if [ ! -x "$kyverno" ]; then
  mkdir -p "$cache"
  # kyverno's go.mod has replace directives: it builds only as the main module.
  dir=$(go mod download -json "github.com/kyverno/kyverno@$version" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
  src=$(mktemp -d)
  cp -r "$dir/." "$src" && chmod -R u+w "$src"
  (cd "$src" && go build -o "$kyverno" ./cmd/cli/kubectl-kyverno)
  rm -rf "$src"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/pods"
cat > "$work/vap.yaml" <<'POLICY'
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: pinned-and-limited}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}
  validations:
  - expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))"
    message: images are pinned
  - expression: "object.spec.containers.all(c, has(c.resources) && has(c.resources.limits) && 'memory' in c.resources.limits)"
    message: every container has a memory limit
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: pinned-and-limited}
spec: {policyName: pinned-and-limited, validationActions: [Deny]}
POLICY
for i in $(seq 1 3000); do
  if [ $((i % 10)) -eq 0 ]; then image="nginx:latest"; else image="nginx:1.27.$((i % 7))"; fi
  printf 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-%04d\n  namespace: shop\n  labels: {app: web}\nspec:\n  containers:\n  - name: app\n    image: "%s"\n    resources:\n      requests: {cpu: 100m, memory: 128Mi}\n      limits: {memory: 256Mi}\n  - name: sidecar\n    image: "busybox:1.36"\n    resources:\n      limits: {memory: 64Mi}\n' "$i" "$image" > "$work/pods/pod-$i.yaml"
done
# Both must deny the same 300 Pods (every tenth uses :latest).
k_fail=$("$kyverno" apply "$work/vap.yaml" --resource "$work/pods" 2>&1 | sed -n 's/^pass: \([0-9]*\), fail: \([0-9]*\).*/\2/p' || true)
p_denied=$("$podmut" vap --policy "$work/vap.yaml" --new "$work/pods" -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["denied"])' || true)
echo "denied: kyverno $k_fail, podmut $p_denied (of 3000)"
[ "$k_fail" = 300 ] && [ "$p_denied" = 300 ]
for r in $(seq 1 "$rounds"); do
  s=$(date +%s.%N); "$kyverno" apply "$work/vap.yaml" --resource "$work/pods" > /dev/null 2>&1 || true; e=$(date +%s.%N)
  k=$(echo "$e - $s" | bc)
  s=$(date +%s.%N); "$podmut" vap --policy "$work/vap.yaml" --new "$work/pods" > /dev/null || true; e=$(date +%s.%N)
  p=$(echo "$e - $s" | bc)
  echo "round $r: kyverno ${k}s podmut ${p}s ratio $(echo "scale=2; $k / $p" | bc)"
done
