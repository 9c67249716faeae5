package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// optionsService is a service that runs only as service.build and
// service.env_from make it: built with the perfgate_e2e tag and a linker
// flag, holding the secret whose SHA-256 the linker flag names, and
// serving net/http/pprof on its own listener (-debug), not on -addr.
const optionsService = `package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"log"
	"net/http"
	_ "net/http/pprof" // on http.DefaultServeMux, served at -debug only
	"os"
	"strings"
)

// set by -ldflags "-X main.secretSHA=..."
var secretSHA = "unset"

func main() {
	addr := flag.String("addr", "", "service address")
	debug := flag.String("debug", "", "pprof address")
	flag.Parse()
	if !taggedBuild {
		log.Fatal("built without the perfgate_e2e tag")
	}
	sum := sha256.Sum256([]byte(os.Getenv("DB_PASSWORD")))
	if hex.EncodeToString(sum[:]) != secretSHA {
		log.Fatal("DB_PASSWORD is not the secret the linker flags name")
	}
	go func() { log.Fatal(http.ListenAndServe(*debug, nil)) }()
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		// Ready once the pprof listener answers too.
		if resp, err := http.Get("http://" + *debug + "/debug/pprof/cmdline"); err != nil {
			http.Error(w, "pprof not up", http.StatusServiceUnavailable)
			return
		} else {
			resp.Body.Close()
		}
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("ok ", 1+len(r.URL.Query().Get("q")))))
	})
	log.Fatal(http.ListenAndServe(*addr, mux))
}
`

// TestGateServiceAsItIs gates a service that needs a build tag and a
// linker flag (relinked with a random layout every round), takes a secret
// from perfgate's environment, and serves pprof on a port of its own; the
// secret appears nowhere in the results or the output.
func TestGateServiceAsItIs(t *testing.T) {
	start := time.Now()
	const secret = "e2e-s3cret-Qx7vZ"
	sum := sha256.Sum256([]byte(secret))
	t.Setenv("PERFGATE_E2E_DB_PASSWORD", secret)

	trees := t.TempDir()
	for _, side := range []string{"base", "head"} {
		dir := filepath.Join(trees, side)
		writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/options\n\ngo 1.24\n")
		writeFile(t, filepath.Join(dir, "main.go"), optionsService)
		writeFile(t, filepath.Join(dir, "tagged.go"), "//go:build perfgate_e2e\n\npackage main\n\nconst taggedBuild = true\n")
		writeFile(t, filepath.Join(dir, "untagged.go"), "//go:build !perfgate_e2e\n\npackage main\n\nconst taggedBuild = false\n")
	}
	cfg := writeConfig(t, `version: 1
service:
  package: .
  args: ["-addr", "{addr}", "-debug", "{pprof_addr}"]
  env_from: {DB_PASSWORD: PERFGATE_E2E_DB_PASSWORD}
  build:
    tags: [perfgate_e2e]
    ldflags: -X main.secretSHA=`+hex.EncodeToString(sum[:])+`
resources:
  memory: 128Mi
load:
  rate: 100
  warmup: 0s
  duration: 1s
  requests:
    - GET /?q=alpha
pairs: 4
profile_rounds: 1
gate:
  alpha: 0.5
  cpu: 100%
  heap: 1Mi
validity:
  min_cpu_samples: 0
`)
	g := runGateCommand(t, cfg, filepath.Join(trees, "base"), filepath.Join(trees, "head"))
	if g.code != 0 || g.report == nil || !g.report.Complete {
		t.Fatalf("exit %d, want a complete gate with exit 0", g.code)
	}
	rep := g.report
	profiled := 0
	for _, r := range rep.Runs {
		// A busy machine may make a round invalid (and replaced); it
		// still ran a relinked binary and read its pprof listener.
		if r.LayoutSeed == 0 || r.ProfilesUnavailable != "" {
			t.Errorf("run %s/%d: layout seed %d, profiles unavailable %q: want a relinked run with pprof", r.Side, r.Pair, r.LayoutSeed, r.ProfilesUnavailable)
		}
		if r.ProfileRound && len(r.Profiles) > 0 {
			profiled++
		}
		if f := r.Figures; f.AllocsPerRequest == nil {
			t.Errorf("run %s/%d has no allocations per request: its runtime counters were not read from the pprof listener", r.Side, r.Pair)
		}
	}
	if profiled != 2 {
		t.Errorf("%d profile runs captured profiles, want 2 (base and head), read from {pprof_addr}", profiled)
	}
	if got := rep.Config.Service.EnvFrom["DB_PASSWORD"]; got != "PERFGATE_E2E_DB_PASSWORD" {
		t.Errorf("report config env_from = %v, want the variable's name", rep.Config.Service.EnvFrom)
	}
	if got := rep.Config.Service.Build.Tags; len(got) != 1 || got[0] != "perfgate_e2e" {
		t.Errorf("report config build tags = %q", got)
	}

	leaks := []string{}
	if strings.Contains(g.stdout+g.stderr, secret) {
		leaks = append(leaks, "perfgate's output")
	}
	_ = filepath.WalkDir(g.out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(data), secret) {
			leaks = append(leaks, path)
		}
		return nil
	})
	if len(leaks) > 0 {
		t.Errorf("the secret appears in %s", strings.Join(leaks, ", "))
	}
	t.Logf("gate took %s", time.Since(start).Round(100*time.Millisecond))
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
