# shellcheck shell=bash
# What the smoke tests of scripts/k8s-local and scripts/kind share (sourced,
# not run): the check runner and its counters, the smoke Deployment and
# Service, and the throttling check. The sourcing script defines kc (its
# kubectl), ns, image and node_name before calling them.

# shellcheck source=scripts/lib/poll.sh
. "$(dirname "${BASH_SOURCE[0]}")/poll.sh"

passed=0 failed=0
# check NAME COMMAND...: runs COMMAND and prints one line, ok or FAIL.
check() {
  local name=$1 out
  shift
  if out=$("$@" 2>&1); then
    passed=$((passed + 1))
    echo "ok    $name${out:+: $(head -c 200 <<<"$out" | tr '\n' ' ')}"
  else
    failed=$((failed + 1))
    echo "FAIL  $name: $(tail -c 600 <<<"$out")"
  fi
}

# smoke_manifest [REPLICAS]: the namespace, a Deployment of the smoke image
# with limits == requests (cpu 250m, memory 64Mi; QoS Guaranteed) and
# imagePullPolicy: Never, and a ClusterIP Service in front of it.
smoke_manifest() {
  cat <<YAML
apiVersion: v1
kind: Namespace
metadata: {name: $ns}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: smoke, namespace: $ns}
spec:
  replicas: ${1:-1}
  selector: {matchLabels: {app: smoke}}
  template:
    metadata: {labels: {app: smoke}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: smoke
        image: $image
        imagePullPolicy: Never
        ports: [{containerPort: 8080}]
        resources:
          requests: {cpu: 250m, memory: 64Mi}
          limits: {cpu: 250m, memory: 64Mi}
        readinessProbe: {httpGet: {path: /, port: 8080}, periodSeconds: 1}
---
apiVersion: v1
kind: Service
metadata: {name: smoke, namespace: $ns}
spec:
  selector: {app: smoke}
  ports: [{port: 80, targetPort: 8080}]
YAML
}

# smoke_client_job URL: a Job whose pod GETs URL once with the smoke image.
smoke_client_job() {
  kc apply -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: smoke-client, namespace: $ns}
spec:
  backoffLimit: 0
  activeDeadlineSeconds: 60
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: client
        image: $image
        imagePullPolicy: Never
        args: [get, "$1"]
YAML
}

# throttled: the kubelet's cAdvisor reports CFS throttling of the smoke
# container (after it was driven past its 250m).
throttled() {
  kc get --raw "/api/v1/nodes/$node_name/proxy/metrics/cadvisor" |
    grep -E "^container_cpu_cfs_throttled_periods_total\{.*container=\"smoke\".*namespace=\"$ns\"" |
    awk '{ if ($NF > 0) { print; found = 1 } } END { exit !found }'
}
