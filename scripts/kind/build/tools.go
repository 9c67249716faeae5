//go:build tools

// Package build pins the kind command that ../build.sh builds, so that
// go.mod and go.sum keep every module it needs.
package build

import _ "sigs.k8s.io/kind"
