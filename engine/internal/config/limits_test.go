package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// bigFile is a valid perfgate.yml padded with a comment to size bytes.
func bigFile(size int) []byte {
	valid := "version: 1\n" + svc
	return []byte(valid + "#" + strings.Repeat("x", size-len(valid)-2) + "\n")
}

func TestLoadRefusesAFileOverTheLimit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "perfgate.yml")
	if err := os.WriteFile(path, bigFile(MaxFileBytes), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err != nil {
		t.Fatalf("a file of exactly the limit: %v", err)
	}
	if err := os.WriteFile(path, bigFile(2*MaxFileBytes+512<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if err == nil {
		t.Fatal("a 2.5 MiB perfgate.yml was accepted")
	}
	errs := Errors(err)
	if len(errs) != 1 {
		t.Fatalf("want one *Error, got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{path + ": ", "is 2.5 MiB (2621440 bytes)", "more than 1 MiB", "want a perfgate.yml of at most 1 MiB"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}
	if _, err := Parse("perfgate.yml", bigFile(MaxFileBytes+1)); err == nil || !strings.Contains(err.Error(), "perfgate.yml: is 1.0 MiB (1048577 bytes), more than 1 MiB") {
		t.Errorf("Parse of MaxFileBytes+1 bytes: %v", err)
	}
}

// TestLoadStopsReadingAtTheLimit: a file that is not regular (here a FIFO
// fed more than the limit) has no size to check first; Load stops reading
// past the limit instead of holding whatever arrives.
func TestLoadStopsReadingAtTheLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "perfgate.yml")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		_, _ = f.Write(bigFile(MaxFileBytes + 4096))
	}()
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), "is more than 1 MiB, the most a perfgate.yml may be") {
		t.Errorf("Load of a FIFO over the limit: %v", err)
	}
}

func TestRequestBodiesAreCapped(t *testing.T) {
	body := func(n int) string { return strings.Repeat("b", n) }
	request := func(b string) string {
		return "    - method: POST\n      path: /x\n      body: " + b + "\n"
	}
	ok := svc + "load:\n  requests:\n" + request(body(MaxBodyBytes-64<<10))
	if _, err := Parse("perfgate.yml", []byte(ok)); err != nil {
		t.Fatalf("a body under the limit: %v", err)
	}

	// One body over the limit cannot be in a file under MaxFileBytes
	// (it is checked first), so this goes through Validate as a Config
	// built in code does, and through Parse with the file limit's check
	// on its own.
	c := Default()
	c.Service.Package, c.Service.Args = "./cmd/server", []string{"{addr}"}
	c.Load.Requests = []Request{{Method: "POST", Path: "/x", Body: body(MaxBodyBytes + 1)}}
	err := c.Validate()
	errs := Errors(err)
	if len(errs) != 1 || errs[0].Field != "load.requests[0].body" {
		t.Fatalf("want one error for load.requests[0].body, got %v", err)
	}
	for _, want := range []string{"is 1.0 MiB (1048577 bytes), more than the 1 MiB a request body may be", "want a body of at most 1 MiB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %s", want, err)
		}
	}

	// YAML aliases repeat one body under the limit in many requests: the
	// file is small, the bodies together are not.
	aliased := svc + "load:\n  requests:\n    - method: POST\n      path: /x\n      body: &big " + body(MaxBodyBytes-64<<10) + "\n"
	for range MaxBodiesBytes / (MaxBodyBytes - 64<<10) {
		aliased += "    - {method: POST, path: /x, body: *big}\n"
	}
	_, err = Parse("perfgate.yml", []byte(aliased))
	errs = Errors(err)
	if len(errs) != 1 || errs[0].Field != "load.requests" || !strings.Contains(err.Error(), "of bodies together, more than 16 MiB") {
		t.Fatalf("want one error for load.requests' total, got %v", err)
	}
	if errs[0].Line != 5 {
		t.Errorf("the total's error is on line %d, want 5 (requests:)", errs[0].Line)
	}
}
