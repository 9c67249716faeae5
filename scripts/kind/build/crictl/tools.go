//go:build tools

// Package crictl pins the crictl command that ../../build.sh builds.
package crictl

import _ "sigs.k8s.io/cri-tools/cmd/crictl"
