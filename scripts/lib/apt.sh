# shellcheck shell=bash
# install_missing installs, from apt, the Debian packages of the commands
# that are not on PATH. Each argument is command:package; a package that
# several commands come from is installed once. The caller's log function
# says what is installed (scripts run as root; output goes to stderr, so a
# script's stdout stays its result).
#
#   . scripts/lib/apt.sh
#   install_missing mmdebstrap:mmdebstrap qemu-img:qemu-utils
install_missing() {
  local pair need=()
  for pair in "$@"; do
    command -v "${pair%%:*}" >/dev/null || need+=("${pair#*:}")
  done
  [ ${#need[@]} -gt 0 ] || return 0
  mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
  log "installing ${need[*]} from apt"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
}
