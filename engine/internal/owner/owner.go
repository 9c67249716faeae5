// Package owner says which perfgate process made a resource that outlives
// processes on shared infrastructure (a cgroup, a Docker container or
// image, a kind cluster), and whether it is stale: left by a perfgate that
// is gone. Two runners can share a Docker daemon or a cgroup tree, and a
// PID means nothing outside its machine and PID namespace, so every
// resource carries a host identity with the PID, and a sweep only removes
// resources of its own host identity whose process is dead. This is the
// one implementation of "stale" every sweep uses.
package owner

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// HostLength is the length of a host identity: 12 hex digits (48 bits),
// short enough for kind cluster and cgroup names.
const HostLength = 12

// Owner is the perfgate process that made a resource.
type Owner struct {
	Host string // host identity, see Host
	PID  int
}

// Self is this process as an owner.
func Self() Owner { return Owner{Host: Host(), PID: os.Getpid()} }

// String is "<host>-<pid>", the form names carry.
func (o Owner) String() string { return o.Host + "-" + strconv.Itoa(o.PID) }

// Cut reads an owner at the start of s ("<host>-<pid>", then "-" and the
// rest, or the end); ok is false when s does not start with one.
func Cut(s string) (o Owner, rest string, ok bool) {
	host, after, found := strings.Cut(s, "-")
	if !found || !isHost(host) {
		return Owner{}, "", false
	}
	pidText, rest, _ := strings.Cut(after, "-")
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 || strconv.Itoa(pid) != pidText {
		return Owner{}, "", false
	}
	return Owner{Host: host, PID: pid}, rest, true
}

func isHost(s string) bool {
	if len(s) != HostLength {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// Judge decides staleness as seen from one host identity.
type Judge struct {
	Host  string
	Alive func(pid int) bool
}

// Local is the judge of this process: its host identity and its view of
// which processes are alive.
func Local() Judge { return Judge{Host: Host(), Alive: Alive} }

// Stale says whether o's resource may be removed: o is of this host
// identity (another machine's or PID namespace's PIDs cannot be checked
// from here, so their resources are never touched) and its process is gone.
func (j Judge) Stale(o Owner) bool {
	return o.Host != "" && o.Host == j.Host && o.PID > 0 && !j.Alive(o.PID)
}

// Alive says whether a process with pid exists in this PID namespace.
func Alive(pid int) bool {
	if pid <= 0 {
		return true // a group, not a process: never stale
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Host is this host's identity as seen from this PID namespace: a hash of
// the machine (/etc/machine-id, else this boot's
// /proc/sys/kernel/random/boot_id, else the hostname) and of the PID
// namespace (/proc/self/ns/pid), so containers sharing a machine are
// distinct. The Action does not compute it: its post step runs
// `perfgate sweep`.
var Host = sync.OnceValue(func() string {
	machine := ""
	for _, f := range []string{"/etc/machine-id", "/proc/sys/kernel/random/boot_id"} {
		if data, err := os.ReadFile(f); err == nil && strings.TrimSpace(string(data)) != "" {
			machine = strings.TrimSpace(string(data))
			break
		}
	}
	if machine == "" {
		machine, _ = os.Hostname()
	}
	pidNamespace, _ := os.Readlink("/proc/self/ns/pid")
	return Identity(machine, pidNamespace)
})

// Identity is the host identity of a machine id and a PID namespace link
// (like "pid:[4026531836]").
func Identity(machine, pidNamespace string) string {
	sum := sha256.Sum256([]byte(machine + "\n" + pidNamespace))
	return hex.EncodeToString(sum[:])[:HostLength]
}

// Swept is what one sweep did: the resources it removed, and one error per
// stale resource it tried and failed to remove. A sweep that could not
// look at all (no permission, the tool's daemon not answering) returns an
// error beside it instead.
type Swept struct {
	Removed []string
	Failed  []error
}

// Warnings are the failures as report warnings, for the start-up sweep of
// a target, which must not fail a gate over a leftover.
func (s Swept) Warnings() []string {
	var warnings []string
	for _, err := range s.Failed {
		warnings = append(warnings, err.Error())
	}
	return warnings
}
