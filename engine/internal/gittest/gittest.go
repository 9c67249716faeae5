// Package gittest runs git for tests that build a repository: with a
// fixed author, failing the test on any error.
package gittest

import (
	"os/exec"
	"strings"
	"testing"
)

// In returns a function that runs git in dir and returns its trimmed
// output.
func In(t testing.TB, dir string) func(args ...string) string {
	return func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=perfgate test", "-c", "user.email=test@example.com"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
}
