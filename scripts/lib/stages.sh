# shellcheck shell=bash
# Timed stages for the test run and CI (sourced, not run). Every stage says
# when it starts and how long it took, and appends one line to
# $PERFGATE_STAGE_LOG when that is set (.ci/run sets it), so that a
# run's time can be read stage by stage and held against a budget:
#
#   <seconds><TAB><status><TAB><name>        status: ok | failed
#
# Stages that only build (nothing timed, nothing measured) may run in the
# background with stage_start/stage_wait, beside the foreground's other
# builds; stages that measure run after the builds, and only beside
# what their checks were written to bear (scripts/test.sh says which).

# stage NAME CMD [ARGS...] runs CMD in the foreground as the stage NAME and
# returns its status. The stage's own lines go to stderr, so that
# `x=$(stage NAME cmd | tail -1)` reads CMD's last line.
stage() {
  local name=$1 t0 rc=0
  shift
  t0=$(date +%s)
  echo "==> $name" >&2
  "$@" || rc=$?
  stage_record "$name" "$(($(date +%s) - t0))" "$rc"
  return "$rc"
}

# stage_record NAME SECONDS STATUS prints and logs a finished stage.
stage_record() {
  local name=$1 seconds=$2 rc=$3 status=ok
  [ "$rc" = 0 ] || status=failed
  echo "<== $name: ${seconds} s ($status)" >&2
  if [ -n "${PERFGATE_STAGE_LOG:-}" ]; then
    printf '%s\t%s\t%s\n' "$seconds" "$status" "$name" >>"$PERFGATE_STAGE_LOG"
  fi
}

# stage_start NAME CMD [ARGS...] starts CMD in the background as the stage
# NAME, its output in a file of its own; stage_wait NAME waits for it.
stage_dir=
stage_start() {
  local name=$1 key
  shift
  [ -n "$stage_dir" ] || stage_dir=$(mktemp -d /tmp/perfgate-stages.XXXXXX)
  key=$(stage_key "$name")
  echo "==> $name (in the background; its output: $stage_dir/$key.log)" >&2
  # Its own process group (job control on while it starts), so that
  # stages_stop can end it with everything it started.
  set -m
  (
    t0=$(date +%s)
    rc=0
    "$@" >"$stage_dir/$key.log" 2>&1 </dev/null || rc=$?
    echo "$rc $(($(date +%s) - t0))" >"$stage_dir/$key.done"
  ) &
  echo $! >"$stage_dir/$key.pid"
  set +m
}

# stages_stop ends the background stages still running (a foreground stage
# failed) and removes their files; for an EXIT trap.
stages_stop() {
  [ -n "$stage_dir" ] && [ -d "$stage_dir" ] || return 0
  local pidfile
  for pidfile in "$stage_dir"/*.pid; do
    [ -e "$pidfile" ] || continue
    kill -TERM -- "-$(cat "$pidfile")" 2>/dev/null || true
  done
  rm -rf "$stage_dir"
}

# stage_wait NAME waits for a background stage, prints its output and
# returns its status. The stage's own time is logged; the time this shell
# waited for it is logged too ("waiting for NAME"), since only that adds to
# the run's total.
stage_wait() {
  local name=$1 key t0 rc seconds
  key=$(stage_key "$name")
  t0=$(date +%s)
  wait "$(cat "$stage_dir/$key.pid")" 2>/dev/null || true
  read -r rc seconds <"$stage_dir/$key.done" || { rc=1 seconds=0; }
  awk -v prefix="[$name] " '{ print prefix $0 }' "$stage_dir/$key.log" >&2
  rm -f "$stage_dir/$key.pid"
  stage_record "$name (background)" "$seconds" "$rc"
  stage_record "waiting for $name" "$(($(date +%s) - t0))" 0 2>/dev/null
  return "$rc"
}

stage_key() { echo "$1" | tr -c 'A-Za-z0-9\n' '-'; }

# stages_summary LOG TOTAL prints the log's stages in the order they ran
# and the run's wall-clock total.
stages_summary() {
  local log=$1 total=$2
  echo "---- stage times (s) ----"
  awk -F'\t' '{ printf "%6d  %-6s  %s\n", $1, $2, $3 }' "$log"
  printf '%6d  total, wall clock (%d min %02d s)\n' "$total" $((total / 60)) $((total % 60))
}

# stages_slowest LOG N names the N slowest stages, "name (s)", one line.
stages_slowest() {
  sort -t$'\t' -k1,1nr "$1" | head -n "$2" | awk -F'\t' '{ printf "%s%s (%d s)", (NR > 1 ? ", " : ""), $3, $1 }'
}
