# shellcheck shell=bash
# Waiting for something to come up (sourced, not run).

# poll SECONDS COMMAND... runs COMMAND, quietly, every quarter second until
# it succeeds, for at most SECONDS of wall clock, and returns 0 as soon as
# it does, 1 when the time is up. The limit is in seconds, not in tries: a
# loaded machine makes every try slower, and a count of tries that fits a
# quiet machine became a deadline a busy one missed (issue 58). A limit
# only guards against a hang, so it is generous: waiting longer for
# something that comes up costs nothing, and giving up early fails the run.
poll() {
  local deadline=$(($(date +%s) + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.25
  done
}
