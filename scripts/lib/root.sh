# shellcheck shell=bash
# Root and Go for the scripts a user runs first (demo.sh, test.sh); sourced,
# not run. README.md's commands are plain `bash scripts/X.sh`: the script
# asks sudo for root itself, so it works the same as root (where there may
# be no sudo at all) and as a user with sudo, and the Go it uses is the
# user's, not whatever sudo's secure_path finds (Ubuntu's drops
# /usr/local/go/bin, where go.dev's installer puts Go).

# as_root NAME WHY SCRIPT [ARGS...] re-runs SCRIPT as root through sudo when
# this shell is not root, and returns when it is root already. WHY names
# what root is for, as in "root is needed for WHY". The root shell keeps PATH (sudo would reset it), the
# Go settings of the environment and of the user's go env file (GOPROXY,
# GOFLAGS, ...: not the caches, which stay each user's own), and the
# PERFGATE_* settings of the tests. Without sudo, or with PERFGATE_NO_SUDO
# set, it goes on as this user and says what that costs.
as_root() {
  local name=$1 why=$2 script=$3
  shift 3
  [ "$(id -u)" -eq 0 ] && return 0
  if [ -n "${PERFGATE_NO_SUDO:-}" ]; then
    echo "$name: PERFGATE_NO_SUDO is set, so running as $(id -un), without $why" >&2
    return 0
  fi
  if ! command -v sudo >/dev/null; then
    echo "$name: not root and no sudo here, so running as $(id -un), without $why" >&2
    return 0
  fi
  local keep=("PATH=$PATH") v goenv
  for v in $(compgen -e); do
    case $v in
      GOCACHE | GOMODCACHE | GOPATH | GOTMPDIR) ;; # the user's own files: root keeps its own
      GO* | PERFGATE_* | CGO_ENABLED) keep+=("$v=${!v}") ;;
    esac
  done
  if [ -z "${GOENV:-}" ] && command -v go >/dev/null && goenv=$(go env GOENV 2>/dev/null) && [ -f "$goenv" ]; then
    keep+=("GOENV=$goenv") # go env -w settings, like GOPROXY
  fi
  echo "$name: root is needed for $why; re-running under sudo (PATH kept, so root uses $(command -v go || echo 'no Go'))" >&2
  exec sudo env "${keep[@]}" bash "$script" "$@"
}

# need_go NAME makes sure go is on PATH: as it is, or the go.dev install in
# /usr/local/go/bin (which sudo's secure_path may have dropped from a
# `sudo bash ...` typed by hand). Exits 3 when there is none.
need_go() {
  local name=$1
  if ! command -v go >/dev/null && [ -x /usr/local/go/bin/go ]; then
    echo "$name: go is not on PATH; using /usr/local/go/bin/go" >&2
    PATH=/usr/local/go/bin:$PATH
    export PATH
  fi
  if ! command -v go >/dev/null; then
    echo "$name: Go is not installed or not on PATH (https://go.dev/dl/); PATH is $PATH" >&2
    exit 3
  fi
}

# check_setup NAME [ARGS...] ends the script when its first argument is
# --check-setup, after saying who it runs as and which Go it found: the
# quick way to see that elevation and Go detection work before a long run.
check_setup() {
  local name=$1
  [ "${2:-}" = --check-setup ] || return 0
  echo "$name: setup ok: running as $(id -un) (uid $(id -u)$([ -n "${SUDO_USER:-}" ] && echo ", through sudo from $SUDO_USER")), $(go version) at $(command -v go)"
  exit 0
}
