#!/usr/bin/env bash
# Builds the runner-like VM's disk once, from Debian packages, and caches it
# in $cache (/var/cache/perfgate-vm): a Debian 12 root file system made by
# mmdebstrap with systemd (cgroup v2, the unified hierarchy, as on GitHub's
# runners), sudo, git, docker.io (systemd cgroup driver, its default under
# systemd on v2), iptables, ca-certificates and openssh-server; a user
# `runner` (uid 1001, in group docker) with passwordless sudo, as on GitHub's
# images; the host's Go toolchain in /usr/local/go and the host's Node.js in
# /usr/local, copied (building them inside an emulated VM would take long).
# Rebuilds only when this script, env.sh, the Go or the Node version change.
# Prints the image's path. Run as root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/vm/env.sh
. "$here/env.sh"
# shellcheck source=scripts/lib/apt.sh
. "$here/../lib/apt.sh"
[ "$(id -u)" = 0 ] || { log "run me as root: mmdebstrap builds the root file system as root"; exit 1; }

install_missing mmdebstrap:mmdebstrap qemu-img:qemu-utils mkfs.ext4:e2fsprogs ssh-keygen:openssh-client
command -v go >/dev/null || { log "Go is needed on the host: it is copied into the VM"; exit 1; }
command -v node >/dev/null && command -v npm >/dev/null || { log "Node.js 20+ and npm are needed on the host: they are copied into the VM"; exit 1; }
goroot=$(go env GOROOT)
node_bin=$(readlink -f "$(command -v node)")
npm_dir=$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)

want=$(cat "$here/build.sh" "$here/env.sh" <(go version) <(node --version) <(npm --version) | sha256sum | cut -c1-16)
if [ -s "$image" ] && [ -s "$kernel" ] && [ -s "$key" ] && [ -s "$host_key" ] && [ -s "$known_hosts" ] &&
  [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  echo "$image"
  exit 0
fi

started=$(date +%s)
mkdir -p "$cache"
rm -f "$image" "$kernel" "$cache/initrd.img" "$stamp"
[ -s "$key" ] || ssh-keygen -q -t ed25519 -N '' -C perfgate-vm -f "$key"
# The guest's host key is made here, not at the guest's first boot, so that
# ssh_vm knows it before it connects (env.sh).
rm -f "$host_key" "$host_key.pub" "$known_hosts"
ssh-keygen -q -t ed25519 -N '' -C perfgate-vm-host -f "$host_key"
root=$(mktemp -d "$cache/root.XXXXXX")
trap 'rm -rf "$root"' EXIT

log "building a Debian $suite root file system with mmdebstrap (a few minutes)"
# apparmor: the kernel enables AppArmor, and without apparmor_parser dockerd
# cannot load its docker-default profile and refuses every container
# (Ubuntu's runners have it installed).
# python3: the suite's checks read report.json with it (GitHub's images have it).
packages=systemd,systemd-sysv,dbus,udev,sudo,git,docker.io,apparmor,python3,iptables,ca-certificates,openssh-server,linux-image-cloud-amd64,initramfs-tools,iproute2,procps,util-linux,kmod,less,curl,xz-utils
# shellcheck disable=SC2016 # the hooks' $1 is mmdebstrap's, the root directory
mmdebstrap --mode=root --variant=apt --include="$packages" \
  --customize-hook='echo perfgate-vm >"$1/etc/hostname"; printf "127.0.0.1 localhost\n127.0.1.1 perfgate-vm\n" >"$1/etc/hosts"' \
  --customize-hook='printf "/dev/vda / ext4 rw,errors=remount-ro 0 1\n" >"$1/etc/fstab"' \
  --customize-hook='printf "[Match]\nName=en* eth*\n\n[Network]\nDHCP=yes\n" >"$1/etc/systemd/network/10-user.network"; chroot "$1" systemctl enable systemd-networkd ssh docker' \
  --customize-hook='chroot "$1" systemctl mask systemd-networkd-wait-online.service apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer man-db.timer' \
  --customize-hook='chroot "$1" useradd --create-home --uid 1001 --shell /bin/bash --groups docker,adm,systemd-journal runner' \
  --customize-hook='echo "runner ALL=(ALL) NOPASSWD:ALL" >"$1/etc/sudoers.d/runner"; chmod 0440 "$1/etc/sudoers.d/runner"' \
  "$suite" "$root" \
  "deb http://deb.debian.org/debian $suite main" \
  "deb http://deb.debian.org/debian $suite-updates main" \
  "deb http://deb.debian.org/debian-security $suite-security main" >&2

log "copying the host's Go ($(go version | cut -d' ' -f3)) and Node.js ($(node --version))"
cp -a "$goroot" "$root/usr/local/go"
ln -sf /usr/local/go/bin/go "$root/usr/local/bin/go"
ln -sf /usr/local/go/bin/gofmt "$root/usr/local/bin/gofmt"
cp "$node_bin" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/lib/node_modules"
cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
chroot "$root" /usr/local/bin/node --version >/dev/null || { log "the host's node does not run in the VM's root file system"; exit 1; }

# The only host key sshd offers is build.sh's: the ones openssh-server's
# installation made are removed.
rm -f "$root"/etc/ssh/ssh_host_*
install -m 600 -o 0 -g 0 "$host_key" "$root/etc/ssh/ssh_host_ed25519_key"
install -m 644 -o 0 -g 0 "$host_key.pub" "$root/etc/ssh/ssh_host_ed25519_key.pub"
echo "HostKey /etc/ssh/ssh_host_ed25519_key" >"$root/etc/ssh/sshd_config.d/perfgate-host-key.conf"
echo "perfgate-vm $(cut -d' ' -f1,2 "$host_key.pub")" >"$known_hosts.tmp"
mv "$known_hosts.tmp" "$known_hosts"

install -d -m 700 -o 1001 -g 1001 "$root/home/runner/.ssh"
install -m 600 -o 1001 -g 1001 "$key.pub" "$root/home/runner/.ssh/authorized_keys"
# The Go caches of runner, like actions/setup-go's, and GitHub's
# RUNNER_TEMP and tool cache.
install -d -o 1001 -g 1001 "$root/home/runner/work" "$root/home/runner/work/_temp" "$root/opt/hostedtoolcache"

cp "$(ls "$root"/boot/vmlinuz-* | sort -V | tail -1)" "$kernel"
cp "$(ls "$root"/boot/initrd.img-* | sort -V | tail -1)" "$cache/initrd.img"
log "making the ext4 image"
mkfs.ext4 -q -F -L perfgate-vm -d "$root" "$image.tmp" 12G
mv "$image.tmp" "$image"
echo "$want" >"$stamp"
log "built in $(($(date +%s) - started)) s: $image ($(du -h "$image" | cut -f1) used)"
echo "$image"
