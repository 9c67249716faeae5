package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitPrintsThenWritesOnce: without --write init prints both files and
// the changes to make; with --write it writes them; a second --write
// refuses, naming the file, and changes nothing.
func TestInitPrintsThenWritesOnce(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"go.mod": "module example.com/svc\n\ngo 1.22\n",
		"main.go": `package main

import (
	"flag"
	"net/http"
)

func main() {
	addr := flag.String("addr", ":8080", "listen address")
	flag.Parse()
	http.HandleFunc("/healthz", func(http.ResponseWriter, *http.Request) {})
	http.ListenAndServe(*addr, nil)
}
`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"init", "--dir", dir}, &stdout, &stderr); code != exitPass {
		t.Fatalf("init exited %d: %s", code, stderr.String())
	}
	for _, want := range []string{`args: ["--addr", "{addr}"]`, "mode: gate", "pprof is not served: add `import _ \"net/http/pprof\"`"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("init's output lacks %q:\n%s", want, stdout.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "perfgate.yml")); !os.IsNotExist(err) {
		t.Errorf("init without --write wrote perfgate.yml (%v)", err)
	}

	stdout.Reset()
	if code := run(context.Background(), []string{"init", "--dir", dir, "--write"}, &stdout, &stderr); code != exitPass {
		t.Fatalf("init --write exited %d: %s", code, stderr.String())
	}
	configPath := filepath.Join(dir, "perfgate.yml")
	stdout.Reset()
	if code := run(context.Background(), []string{"config", "check", configPath}, &stdout, &stderr); code != exitPass {
		t.Fatalf("config check of the written file exited %d: %s", code, stderr.String())
	}
	written, _ := os.ReadFile(configPath)

	stderr.Reset()
	if code := run(context.Background(), []string{"init", "--dir", dir, "--write"}, &stdout, &stderr); code != exitConfig {
		t.Fatalf("a second init --write exited %d, want %d", code, exitConfig)
	}
	if !strings.Contains(stderr.String(), configPath+" already exists") {
		t.Errorf("the refusal does not name %s: %s", configPath, stderr.String())
	}
	if again, _ := os.ReadFile(configPath); !bytes.Equal(again, written) {
		t.Error("a refused init --write changed perfgate.yml")
	}
}
