#!/usr/bin/env bash
# Runs inside the runner-like VM as runner (suite.sh ships it): the engine
# of the example service through `sudo -n`, the way the Action starts it,
# and checks what the runner's path promises:
#  - the service is confined by cgroup v2 (no UNCONFINED warning);
#  - the service runs as runner, not root, in a cgroup runner cannot
#    loosen;
#  - results, logs, Go caches and the checkout's .git hold no root-owned
#    file, and runner can delete the results;
#  - every run of a gate is linked with a layout of its own
#    (layout: random, a user's default): root relinks as runner, the
#    invoker, with runner's Go caches;
#  - no perfgate cgroup or process is left after a gate and after a
#    gate whose service cannot start.
# A whole gate through sudo is the Action's pull-request scenario, which
# suite.sh runs as runner next. The first gate here is stopped midway by a
# SIGTERM to sudo, started in a session of its own and signalled from
# outside it as the Action does when a job is cancelled: the VM's check of
# the cancelled job (the host's cancelled-job scenario checks that the
# Action forwards the runner's SIGINT to its child).
# Usage: gate-as-runner.sh PERFGATE_BINARY
set -uo pipefail
perfgate=$1
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=/home/runner/work/vm-gate
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
# section NAME: a heading with the seconds since the script started, so
# that CI's log shows what each part costs under emulation.
section() { echo "== $* (at ${SECONDS} s)"; }
engine() { sudo -n --preserve-env env "PATH=$PATH" "$perfgate" "$@"; }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"d": d}))' "$@"; }

leftovers() {
  local left
  left=$(find /sys/fs/cgroup -type d -name 'perfgate-*' 2>/dev/null; pgrep -a -f '[p]erfgate-bin-|[p]erfgate-round-bin-|[p]erfgate-service-' || true
    find /tmp -maxdepth 1 -name 'perfgate-*' ! -name 'perfgate-test-svc*' 2>/dev/null)
  if [ -n "$left" ]; then fail "$1 left behind: $left"; else ok "$1 left no cgroup or process"; fi
}

root_owned() {
  local found
  # Not -xdev: runner's Go caches and the test binaries are bind mounts
  # of the payload disk (suite.sh), and they are checked too.
  found=$(find /home/runner -uid 0 2>/dev/null | head -5)
  if [ -n "$found" ]; then fail "$1: root-owned files in runner's home (results, Go caches, .git): $found"; else ok "$1: nothing root-owned in runner's home"; fi
}

# The example service as a repository: main, then a feature branch that
# plants a per-request fmt.Sprintf (the action's e2e does the same).
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
cp -r "$repo/examples/service" repo && cd repo || exit 1
# The action's e2e experiment (4 rounds at alpha 0.5, the fewest that can
# call the plant's regression, one build per side) at a tenth of its rate:
# under TCG the example service spends ~8 ms of CPU per request (about 40
# times the host's), and at 200 req/s every round is (rightly) invalid:
# saturated and erroring.
sed -e 's/^  rate: 200$/  rate: 20/' -e 's/^pairs: 6$/pairs: 4/' -e 's/^  alpha: 0\.1$/  alpha: 0.5/' \
  "$repo/engine/cmd/perfgate/testdata/decisive-experiment.yml" >perfgate.yml
echo 'profile_rounds: 1' >>perfgate.yml
for want in '^  rate: 20$' '^pairs: 4$' '^  alpha: 0.5$' '^layout: build$' '^profile_rounds: 1$'; do
  grep -q "$want" perfgate.yml || { echo "FAIL: perfgate.yml has no line $want: decisive-experiment.yml changed"; exit 1; }
done
git init -q -b main && git add -A && git -c user.name=vm -c user.email=vm@localhost commit -qm base
git apply "$repo/examples/regressions/alloc-sprintf.patch" && git -c user.name=vm -c user.email=vm@localhost commit -qam feature
base=$(git rev-parse HEAD~1)

section "the service as runner, not root, in a cgroup it cannot loosen, relinked every run, stopped midway"
# The experiment's gate without profiles, relinking every round (layout:
# random, a user's default), stopped by SIGTERM once its first round is
# measured: enough to see the service's process and a layout per run, and
# a gate stopped midway through sudo. Under TCG a round costs ~10 s, ~50 s
# when it relinks both sides: the relinking is checked here, over one
# round, and not over the Action pull-request scenario's five (~200 s).
sed -e 's/^layout: build$/layout: random/' -e 's/^profile_rounds: 1$/profile_rounds: 0/' perfgate.yml >"$work/relinked.yml"
for want in '^layout: random$' '^profile_rounds: 0$'; do
  grep -q "$want" "$work/relinked.yml" || { echo "FAIL: the relinked gate's perfgate.yml has no line $want"; exit 1; }
done
# sudo itself in the background (exec), so that $! is sudo's pid, and in
# a session of its own (setsid), as the Action starts it (Node's spawn
# with detached: true calls setsid): the SIGTERM below then comes from
# outside sudo's process group, as the Action forwards a cancelled job's
# signal, and sudo must relay it to the engine. (The subshell is no
# process group leader in this script without job control, so setsid
# execs sudo without a fork.)
(exec setsid sudo -n --preserve-env env "PATH=$PATH" "$perfgate" gate --config "$work/relinked.yml" --base "$base" --head . --out "$work/run") >"$work/run.log" 2>&1 &
runpid=$!
svc=""
for _ in $(seq 300); do
  # The service itself: its binary started with -addr (not go build,
  # whose -o also names perfgate-bin-).
  svc=$(pgrep -f -n '^/tmp/[p]erfgate-(round-)?bin-[^ ]+ -addr' || true)
  [ -n "$svc" ] && [ "$(stat -c %U "/proc/$svc" 2>/dev/null)" != root ] && break
  sleep 0.2
done
if [ -z "$svc" ]; then
  fail "no service process seen"
else
  uids=$(awk '/^Uid:/ {print $2, $3, $4, $5}' "/proc/$svc/status")
  groups=$(awk '/^Groups:/ {$1 = ""; print}' "/proc/$svc/status" | xargs)
  cg=$(cut -d: -f3 "/proc/$svc/cgroup")
  [ "$uids" = "$(id -u) $(id -u) $(id -u) $(id -u)" ] && ok "the service runs as runner (Uid $uids)" || fail "the service's Uid line is '$uids', want runner's $(id -u)"
  [ -z "$groups" ] && ok "the service has no supplementary groups" || fail "the service keeps groups: $groups"
  [[ $cg == */perfgate-* ]] && ok "the service is in its cgroup $cg" || fail "the service is in $cg, not a perfgate group"
  if { echo max >"/sys/fs/cgroup$cg/cpu.max"; } 2>/dev/null; then fail "runner could lift its service's cpu.max"; else ok "runner cannot write its service's cpu.max"; fi
fi
for _ in $(seq 600); do
  grep -q '] round 1 head ' "$work/run.log" && grep -q '] round 1 base ' "$work/run.log" && break
  kill -0 "$runpid" 2>/dev/null || break
  sleep 0.5
done
kill -TERM "$runpid" 2>/dev/null
wait "$runpid"
rc=$?
grep -q 'interrupted' "$work/run.log" && ok "the gate stopped by SIGTERM says so (exit $rc)" || fail "the gate stopped by SIGTERM: exit $rc, $(tail -3 "$work/run.log")"
if [ ! -s "$work/run/report.json" ]; then
  fail "the relinked gate wrote no report.json"
  cat "$work/run.log"
else
  confinement=$(json "$work/run/report.json" 'd["environment"].get("confinement", "")')
  warnings=$(json "$work/run/report.json" '"\n".join(d["environment"].get("warnings") or [])')
  [[ $confinement == *"cgroup v2"* ]] && ok "confined by cgroup v2" || fail "confinement is '$confinement', want cgroup v2"
  [[ $warnings == *UNCONFINED* ]] && fail "UNCONFINED warning: $warnings" || ok "no UNCONFINED warning"
  seeds=$(json "$work/run/report.json" '" ".join(str(r.get("layout_seed", "none")) for r in d["runs"])')
  distinct=$(json "$work/run/report.json" 'len({r.get("layout_seed") for r in d["runs"]} - {None}) == len(d["runs"]) >= 2')
  [ "$distinct" = True ] && ok "every run relinked with a layout of its own (seeds $seeds)" || fail "layout seeds '$seeds': want one of its own for every run"
fi
leftovers "the relinked gate"
root_owned "after the relinked gate"
rm -rf "$work/run" && ok "runner deleted the relinked gate's results" || fail "runner cannot delete the relinked gate's results"

section "a service that cannot start"
sed 's/args: \["-addr", "{addr}"\]/args: ["-addr", "{addr}", "-no-such-flag"]/' perfgate.yml >"$work/broken.yml"
engine gate --config "$work/broken.yml" --base "$base" --head . --out "$work/broken" >"$work/broken.log" 2>&1
rc=$?
[ "$rc" -ge 2 ] && ok "a service that cannot start is an error (exit $rc)" || fail "exit $rc for a service that cannot start"
grep -q -- "-no-such-flag" "$work/broken/report.json" 2>/dev/null && ok "report.json quotes the service's complaint" || fail "report.json lacks the service's stderr"
leftovers "the failed gate"
rm -rf "$work/broken" || fail "runner cannot delete the failed gate's results"

section "nothing a hostile perfgate.yml names runs as root"
# The post step's `sudo perfgate sweep --config <the pull request's
# perfgate.yml>`, with a PATH the job's user can write: fake docker,
# kind and kubectl first on it, a kubeconfig whose exec plugin and an
# image_load that would each leave a mark with their uid. Root may run
# none of them; as runner they would only prove the path was taken.
evil=$work/evil-bin
mkdir -p "$evil" && rm -f "$work"/mark-*
for tool in docker kind kubectl plugin load; do
  printf '#!/bin/sh\nid -u >>%q/mark-%s\nexit 1\n' "$work" "$tool" >"$evil/$tool"
  chmod +x "$evil/$tool"
done
cat >"$work/evil-kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: "$evil/plugin", interactiveMode: Never}}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
KUBECONFIG
{ cat perfgate.yml; printf 'kubernetes:\n  kubeconfig: %s\n  image_load: [%s, "{archive}"]\n' "$work/evil-kubeconfig" "$evil/load"; } >"$work/evil.yml"
PATH="$evil:$PATH" engine sweep --config "$work/evil.yml" >"$work/evil-sweep.log" 2>&1
ok "sweep with the hostile config, target local: exit $?"
PATH="$evil:$PATH" engine sweep --config "$work/evil.yml" --target kubernetes >>"$work/evil-sweep.log" 2>&1
rc=$?
# The sweep skips a cluster it may not look in (exit 0) and says why.
if grep -q 'with exec .*which perfgate would run or read as root' "$work/evil-sweep.log"; then
  ok "sweep --target kubernetes refuses the kubeconfig's exec plugin (exit $rc)"
else
  fail "sweep --target kubernetes with an exec-plugin kubeconfig: exit $rc, $(tail -3 "$work/evil-sweep.log")"
fi
marks=$(cat "$work"/mark-* 2>/dev/null | sort -u | xargs)
case " $marks " in
  *" 0 "*) fail "root ran a command the pull request's config or PATH named: $(grep -l '^0$' "$work"/mark-*)" ;;
  *) ok "root ran nothing from the hostile config or PATH (marks: ${marks:-none})" ;;
esac
leftovers "the hostile sweeps"

git -C "$work/repo" worktree list | grep -q perfgate-base && fail "a base worktree is still registered" || ok "no base worktree left registered"
echo "gate checks done at ${SECONDS} s"
[ "$fails" = 0 ] && echo "all gate checks passed" || echo "$fails gate checks failed"
exit "$fails"
