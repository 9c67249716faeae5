package target

import (
	"crypto/rand"
	"encoding/hex"
)

// NewRunName names one perfgate invocation's objects (containers, images,
// namespaces): "perfgate-" and 8 random hex digits.
func NewRunName() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "perfgate-" + hex.EncodeToString(b)
}
