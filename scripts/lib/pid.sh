# shellcheck shell=bash
# Process checks shared by the scripts that start long-lived helpers
# (scripts/k8s-local, scripts/vm); sourced, not run.

# alive PID: the process exists and is not a zombie (a container's init may
# reap orphans only now and then).
alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

# pid_in PIDFILE WORD prints the pid recorded in PIDFILE if that process is
# still alive and its command line still contains WORD (a recycled pid is
# someone else's).
pid_in() {
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 1
  [ -n "$pid" ] && alive "$pid" || return 1
  [[ $({ tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null) == *"$2"* ]] || return 1
  echo "$pid"
}
