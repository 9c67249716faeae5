# shellcheck shell=bash
# Waiting for something to come up (sourced, not run).

# poll SECONDS COMMAND... runs COMMAND, quietly, every quarter second until
# it succeeds, for at most SECONDS of wall clock, and returns 0 as soon as
# it does, 1 when the time is up. The loops it replaced gave up after 1 to
# 30 s, limits that a quiet machine met and a busy one may miss (issue 58).
# A limit only guards against a hang, so the callers' are generous: waiting
# longer for something that comes up costs nothing, and giving up early
# fails the run.
poll() {
  local deadline=$(($(date +%s) + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.25
  done
}
