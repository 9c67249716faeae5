#!/bin/sh
# kube-proxy's entry point in perfgate's offline kind node image: point
# iptables at the backend the node already uses (the one holding more
# rules), as upstream's iptables-wrapper and kind's node entrypoint do, then
# run kube-proxy itself. Without this, kube-proxy could program nft rules
# on a node whose traffic goes through legacy tables, or the reverse.
set -eu
legacy=$( (iptables-legacy-save || true; ip6tables-legacy-save || true) 2>/dev/null | grep -c '^-' || true)
nft=$( (timeout 5 sh -c "iptables-nft-save; ip6tables-nft-save" || true) 2>/dev/null | grep -c '^-' || true)
mode=nft
[ "$legacy" -ge "$nft" ] && mode=legacy
update-alternatives --set iptables "/usr/sbin/iptables-$mode" >/dev/null
update-alternatives --set ip6tables "/usr/sbin/ip6tables-$mode" >/dev/null
exec /usr/local/bin/kube-proxy.real "$@"
