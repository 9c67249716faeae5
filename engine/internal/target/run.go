package target

import (
	"crypto/rand"
	"encoding/hex"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/owner"
)

// runPrefix starts every run name.
const runPrefix = "perfgate-"

// NewRunName names one perfgate invocation's objects (containers, images,
// Kubernetes namespaces and objects): "perfgate-", the owner (this host
// identity and PID, owner.Self) and 8 random hex digits, at most 38
// characters, so a later perfgate can tell a dead run's objects from a
// live one's by name alone (RunOwner).
func NewRunName() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return runPrefix + owner.Self().String() + "-" + hex.EncodeToString(b)
}

// RunOwner reads the owner out of a run name made by NewRunName; ok is
// false for any other name (an older perfgate's "perfgate-<hex>", a
// user's object).
func RunOwner(run string) (o owner.Owner, ok bool) {
	rest, found := strings.CutPrefix(run, runPrefix)
	if !found {
		return owner.Owner{}, false
	}
	o, suffix, ok := owner.Cut(rest)
	if _, err := hex.DecodeString(suffix); !ok || err != nil || len(suffix) != 8 || strings.ToLower(suffix) != suffix {
		return owner.Owner{}, false
	}
	return o, true
}
