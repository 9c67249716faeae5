#!/usr/bin/env bash
# An OCI runtime for the private Docker engine on hosts whose capability
# bounding set lacks some capabilities (this development VM grants no
# CAP_SYS_RESOURCE, even to root). dockerd gives a --privileged container
# every capability the kernel knows, runc cannot grant one the host lacks,
# and the container fails with "unable to apply caps: operation not
# permitted" — kind's node containers are privileged. This drops, from the
# container's or exec'd process's capability sets, only those outside
# runc's own bounding set, then runs runc. up.sh registers it only where
# the bounding set is short; a host like GitHub's runners never sees it.
set -euo pipefail
bound=$(awk '/^CapBnd:/ {print $2}' /proc/self/status)
missing=$(python3 - "$bound" <<'PY'
import sys
names = ["CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID", "SETPCAP",
         "LINUX_IMMUTABLE", "NET_BIND_SERVICE", "NET_BROADCAST", "NET_ADMIN", "NET_RAW", "IPC_LOCK", "IPC_OWNER",
         "SYS_MODULE", "SYS_RAWIO", "SYS_CHROOT", "SYS_PTRACE", "SYS_PACCT", "SYS_ADMIN", "SYS_BOOT", "SYS_NICE",
         "SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "MKNOD", "LEASE", "AUDIT_WRITE", "AUDIT_CONTROL", "SETFCAP",
         "MAC_OVERRIDE", "MAC_ADMIN", "SYSLOG", "WAKE_ALARM", "BLOCK_SUSPEND", "AUDIT_READ", "PERFMON", "BPF",
         "CHECKPOINT_RESTORE"]
bound = int(sys.argv[1], 16)
print(",".join('"CAP_%s"' % n for i, n in enumerate(names) if not bound >> i & 1))
PY
)
# drop FILE JQ-PATH: remove the missing capabilities from every set at PATH.
drop() {
  local file=$1 path=$2
  [ -n "$missing" ] && [ -f "$file" ] || return 0
  jq --argjson missing "[$missing]" "if $path then $path |= with_entries(.value |= (if type == \"array\" then map(select(. as \$c | \$missing | index(\$c) | not)) else . end)) else . end" \
    "$file" >"$file.within-bounds" && mv "$file.within-bounds" "$file"
}
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case ${args[i]} in
  --bundle | -b) drop "${args[i + 1]}/config.json" .process.capabilities ;;
  --bundle=*) drop "${args[i]#--bundle=}/config.json" .process.capabilities ;;
  --process | -p) drop "${args[i + 1]}" .capabilities ;;
  --process=*) drop "${args[i]#--process=}" .capabilities ;;
  esac
done
# runc create and run take the bundle from the working directory when no
# --bundle is given.
case " $* " in
*" create "* | *" run "*) case " $* " in *" --bundle"* | *" -b "*) ;; *) drop "$PWD/config.json" .process.capabilities ;; esac ;;
esac
exec runc "$@"
