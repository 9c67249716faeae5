package target

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"syscall"
)

// NewRunName names one perfgate invocation's objects (containers, images,
// namespaces): "perfgate-" and 8 random hex digits.
func NewRunName() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "perfgate-" + hex.EncodeToString(b)
}

// ProcessAlive says whether a process with pid exists on this machine:
// how a sweep tells a dead perfgate's leftovers from a live one's.
func ProcessAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
