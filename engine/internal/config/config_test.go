package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json golden files")

// svc is a valid service section, lines 1-3; cases append to it so that
// each one holds exactly one mistake on a known line.
const svc = "service:\n  package: ./cmd/server\n  args: [-addr, \"{addr}\"]\n"

// TestErrors has one case per kind of mistake. Each must give exactly one
// error that names the line, the field and the bad value as written.
func TestErrors(t *testing.T) {
	tests := []struct {
		name  string
		yaml  string
		line  int
		field string
		value string // quoted in the message when not empty
		also  string // another substring the message must have
	}{
		{"malformed yaml", "version: 1\nservice:\n\tpackage: ./x\n", 3, "", "", "not valid YAML"},
		{"unclosed flow", svc + "profiles: [cpu, heap\n", 4, "", "", "not valid YAML"},
		{"empty file", "", 0, "", "", "is empty"},
		{"only comments", "# perfgate\n\n", 0, "", "", "is empty"},
		{"document is a list", "- version: 1\n", 1, "", "", "the document is a list"},
		{"document is a string", "perfgate\n", 1, "", "perfgate", "the document is a string"},
		{"two documents", svc + "---\nversion: 1\n", 4, "", "", "second YAML document"},
		{"unknown top-level key", svc + "paris: 10\n", 4, "paris", "", `did you mean "pairs"?`},
		{"unclosed flow on line 1", "profiles: [cpu, heap\n", 1, "", "", "not valid YAML"},
		{"bad indentation", "service:\n  package: ./x\n  args: [\"{addr}\"]\n ready: /up\n", 4, "", "", "did not find expected key"},
		{"unknown nested key", svc + "load:\n  duraton: 10s\n", 5, "load.duraton", "", `did you mean "duration"?`},
		{"unknown key in request", svc + "load:\n  requests:\n    - path: /x\n      header: {A: b}\n", 7, "load.requests[0].header", "", `did you mean "headers"?`},
		{"mis-indented key", svc + "rate: 100\n", 4, "rate", "", "did you mean load.rate? check the indentation"},
		{"duplicate key", svc + "pairs: 5\npairs: 6\n", 5, "pairs", "", "first on line 4"},
		{"list where mapping goes", svc + "load: [rate, 5]\n", 4, "load", "", "is a list; want a mapping with keys rate"},
		{"string where list goes", "service:\n  package: ./x\n  args: -addr {addr}\n", 3, "service.args", "-addr {addr}", "is a string"},
		{"mapping where string goes", svc + "target: {name: kind}\n", 4, "target", "", "is a mapping"},
		{"key without value", svc + "target:\n", 4, "target", "", "has no value"},
		{"missing package", "service:\n  args: [-addr, \"{addr}\"]\n", 1, "service.package", "", "is missing"},
		{"absolute package", "service:\n  package: /src/cmd/server\n  args: [\"{addr}\"]\n", 2, "service.package", "/src/cmd/server", "is absolute"},
		{"package escapes tree", "service:\n  package: ./cmd/../../x\n  args: [\"{addr}\"]\n", 2, "service.package", "./cmd/../../x", "leaves the tree"},
		{"package not relative", "service:\n  package: cmd/server\n  args: [\"{addr}\"]\n", 2, "service.package", "cmd/server", `did you mean "./cmd/server"?`},
		{"package pattern", "service:\n  package: ./...\n  args: [\"{addr}\"]\n", 2, "service.package", "./...", "is a pattern"},
		{"version 2", "version: 2\n" + svc, 1, "version", "2", "want 1"},
		{"version not a number", "version: one\n" + svc, 1, "version", "one", "not a whole number"},
		{"cpu garbage", svc + "resources:\n  cpu: fast\n", 5, "resources.cpu", "fast", "want cores like 2, 0.5 or millicores like 500m"},
		{"cpu zero", svc + "resources:\n  cpu: 0\n", 5, "resources.cpu", "0", "must be more than 0"},
		{"cpu negative", svc + "resources:\n  cpu: -500m\n", 5, "resources.cpu", "-500m", "must be more than 0"},
		{"cpu below a millicore", svc + "resources:\n  cpu: 0.0005\n", 5, "resources.cpu", "0.0005", "finer than 1m"},
		{"memory garbage", svc + "resources:\n  memory: 12XB\n", 5, "resources.memory", "12XB", "want a quantity like 256Mi"},
		{"memory MB", svc + "resources:\n  memory: 512MB\n", 5, "resources.memory", "512MB", `did you mean "512Mi"?`},
		{"memory zero", svc + "resources:\n  memory: 0Mi\n", 5, "resources.memory", "0Mi", "must be more than 0"},
		{"memory negative", svc + "resources:\n  memory: -1Gi\n", 5, "resources.memory", "-1Gi", "must be more than 0"},
		{"memory plain small number", svc + "resources:\n  memory: 256\n", 5, "resources.memory", "256", `did you mean "256Mi"?`},
		{"duration with words", svc + "load:\n  warmup: 3 seconds\n", 5, "load.warmup", "3 seconds", "want a duration like 3s"},
		{"duration without unit", svc + "load:\n  timeout: 2\n", 5, "load.timeout", "2", `did you mean "2s"?`},
		{"negative warmup", svc + "load:\n  warmup: -1s\n", 5, "load.warmup", "-1s", "is negative"},
		{"window under 1s", svc + "load:\n  duration: 900ms\n", 5, "load.duration", "900ms", "shorter than 1s"},
		{"window not whole seconds", svc + "load:\n  duration: 2500ms\n", 5, "load.duration", "2500ms", "whole number of seconds"},
		{"timeout zero", svc + "load:\n  timeout: 0s\n", 5, "load.timeout", "0s", "must be more than 0"},
		{"rate zero", svc + "load:\n  rate: 0\n", 5, "load.rate", "0", "must be more than 0"},
		{"rate negative", svc + "load:\n  rate: -5\n", 5, "load.rate", "-5", "must be more than 0"},
		{"rate not a number", svc + "load:\n  rate: 500rps\n", 5, "load.rate", "500rps", "is not a number"},
		{"pairs zero", svc + "pairs: 0\n", 4, "pairs", "0", "from 1 to 1000"},
		{"pairs too many", svc + "pairs: 5000\n", 4, "pairs", "5000", "from 1 to 1000"},
		{"pairs fractional", svc + "pairs: 2.5\n", 4, "pairs", "2.5", "not a whole number"},
		{"empty request list", svc + "load:\n  requests: []\n", 5, "load.requests", "", "is empty"},
		{"unknown method", svc + "load:\n  requests: [FETCH /x]\n", 5, "load.requests[0].method", "FETCH", "want one of GET, HEAD"},
		{"method not a token", svc + "load:\n  requests:\n    - method: \"G(T\"\n      path: /x\n", 6, "load.requests[0].method", "G(T", "not an HTTP method"},
		{"lower-case method", svc + "load:\n  requests: [get /x]\n", 5, "load.requests[0].method", "get", `did you mean "GET"?`},
		{"path with scheme", svc + "load:\n  requests:\n    - GET /ok\n    - GET http://evil.example/x\n", 7, "load.requests[1].path", "http://evil.example/x", "names a host"},
		{"path with https", svc + "load:\n  requests:\n    - method: GET\n      path: https://evil.example/x\n", 7, "load.requests[0].path", "https://evil.example/x", `like "/x"`},
		{"path with host", svc + "load:\n  requests: [GET //host/x]\n", 5, "load.requests[0].path", "//host/x", "names a host"},
		{"path not absolute", svc + "load:\n  requests: [GET search]\n", 5, "load.requests[0].path", "search", `did you mean "/search"?`},
		{"host header", svc + "load:\n  requests:\n    - path: /x\n      headers: {Host: evil.example}\n", 7, "load.requests[0].headers.Host", "Host", "no Host header"},
		{"request without path", svc + "load:\n  requests: [GET]\n", 5, "load.requests[0]", "GET", "has no path"},
		{"request without method", svc + "load:\n  requests: [/search]\n", 5, "load.requests[0]", "/search", `did you mean "GET /search"?`},
		{"request mapping without path", svc + "load:\n  requests:\n    - method: POST\n", 6, "load.requests[0].path", "", "is empty"},
		{"request is a list", svc + "load:\n  requests:\n    - [GET, /]\n", 6, "load.requests[0]", "", "is a list"},
		{"ready without slash", svc + "  ready: healthz\n", 4, "service.ready", "healthz", "does not start with /"},
		{"pprof with host", svc + "  pprof: http://127.0.0.1:6060/debug/pprof\n", 4, "service.pprof", "http://127.0.0.1:6060/debug/pprof", "names a host"},
		{"ready timeout zero", svc + "  ready_timeout: 0s\n", 4, "service.ready_timeout", "0s", "must be more than 0"},
		{"unknown target", svc + "target: kube\n", 4, "target", "kube", "want one of local, docker, kind, kubernetes"},
		{"unknown load_from", svc + "kubernetes:\n  load_from: host\n", 5, "kubernetes.load_from", "host", "want one of auto, here, cluster"},
		{"misspelt target", svc + "target: dokcer\n", 4, "target", "dokcer", `did you mean "docker"?`},
		{"unknown profile", svc + "profiles: [cpu, trace]\n", 4, "profiles[1]", "trace", "want some of cpu, allocs"},
		{"duplicate profile", svc + "profiles: [cpu, heap, cpu]\n", 4, "profiles[2]", "cpu", "listed twice"},
		{"gate not a percentage", svc + "gate:\n  cpu: ten\n", 5, "gate.cpu", "ten", "want a percentage like 10%"},
		{"gate plain number above 1", svc + "gate:\n  allocs: 2\n", 5, "gate.allocs", "2", `did you mean "2%"?`},
		{"gate over 100%", svc + "gate:\n  bytes: 150%\n", 5, "gate.bytes", "150%", "out of range"},
		{"gate zero", svc + "gate:\n  cpu: 0%\n", 5, "gate.cpu", "0%", "above 0%"},
		{"gate negative errors", svc + "gate:\n  errors: -0.1%\n", 5, "gate.errors", "-0.1%", "out of range"},
		{"negative latency", svc + "gate:\n  latency: -5%\n", 5, "gate.latency", "-5%", "0% means latency does not gate"},
		{"negative goroutines", svc + "gate:\n  goroutines: -1\n", 5, "gate.goroutines", "-1", "must not be negative; want goroutines retained per 1,000 requests like 1"},
		{"goroutines with a unit", svc + "gate:\n  goroutines: 1/1k\n", 5, "gate.goroutines", "1/1k", "is not a number"},
		{"heap not a quantity", svc + "gate:\n  heap: lots\n", 5, "gate.heap", "lots", "want bytes of live heap retained per 1,000 requests like 64Ki"},
		{"heap in KB", svc + "gate:\n  heap: 64KB\n", 5, "gate.heap", "64KB", `did you mean "64Ki"?`},
		{"negative heap", svc + "gate:\n  heap: -64Ki\n", 5, "gate.heap", "-64Ki", "must not be negative"},
		{"alpha zero", svc + "gate:\n  alpha: 0\n", 5, "gate.alpha", "0", "above 0 and at most 0.5"},
		{"alpha too large", svc + "gate:\n  alpha: 0.6\n", 5, "gate.alpha", "0.6", "out of range"},
		{"min rate over 100%", svc + "validity:\n  min_rate: 101%\n", 5, "validity.min_rate", "101%", "out of range"},
		{"max errors over 100%", svc + "validity:\n  max_errors: 2\n", 5, "validity.max_errors", "2", "out of range"},
		{"negative cpu samples", svc + "validity:\n  min_cpu_samples: -1\n", 5, "validity.min_cpu_samples", "-1", "must not be negative"},
		{"generator cpu zero", svc + "validity:\n  max_generator_cpu: 0%\n", 5, "validity.max_generator_cpu", "0%", "out of range"},
		{"unknown placeholder in args", "service:\n  package: ./x\n  args: [-addr, \"{addr}\", -db, \"{dsn}\"]\n", 3, "service.args[3]", "{dsn}", "want only {addr}"},
		{"unknown placeholder in env", "service:\n  package: ./x\n  env: {PORT: \"{PORT}\", HOST: \"{addr}\"}\n", 3, "service.env.PORT", "{PORT}", "did you mean {port}?"},
		{"no placeholder", "service:\n  package: ./x\n  args: [-addr, \":8080\"]\n", 3, "service.args", "", "cannot be told where to listen"},
		{"no placeholder, no args", "service:\n  package: ./x\n", 1, "service.args", "", "cannot be told where to listen"},
		{"reset is a string", svc + "  reset: psql -f reset.sql\n", 4, "service.reset", "psql -f reset.sql", "is a string; want a command as a list of strings"},
		{"reset without a program", svc + "  reset: [\"\", -f, reset.sql]\n", 4, "service.reset[0]", "", "is empty; want the program to run"},
		{"reset with a placeholder", svc + "  reset: [curl, \"http://{addr}/reset\"]\n", 4, "service.reset[1]", "http://{addr}/reset", "when neither has an address"},
		{"reset timeout zero", svc + "  reset: [true]\n  reset_timeout: 0s\n", 5, "service.reset_timeout", "0s", "must be more than 0"},
		{"reset on kind", svc + "  reset: [true]\ntarget: kind\n", 4, "service.reset", "", "is not supported on target kind"},
		{"reset on kubernetes", svc + "  reset: [true]\ntarget: kubernetes\n", 4, "service.reset", "", "want target: local or docker with service.reset"},
		{"bad env name", "service:\n  package: ./x\n  env: {PORT: \"{port}\", 2FAST: x}\n", 3, "service.env.2FAST", "2FAST", "not an environment variable name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("perfgate.yml", []byte(tt.yaml))
			errs := Errors(err)
			if len(errs) != 1 {
				t.Fatalf("got %d errors, want 1:\n%v", len(errs), err)
			}
			e := errs[0]
			msg := e.Error()
			if e.Line != tt.line || e.Field != tt.field {
				t.Errorf("at line %d field %q, want line %d field %q: %s", e.Line, e.Field, tt.line, tt.field, msg)
			}
			prefix := "perfgate.yml: "
			if tt.line > 0 {
				prefix = fmt.Sprintf("perfgate.yml:%d: ", tt.line)
			}
			if tt.field != "" {
				prefix += tt.field + ": "
			}
			if tt.value != "" {
				prefix += fmt.Sprintf("%q", tt.value)
			}
			if !strings.HasPrefix(msg, prefix) {
				t.Errorf("message %q does not start with %q", msg, prefix)
			}
			if !strings.Contains(msg, tt.also) {
				t.Errorf("message %q does not contain %q", msg, tt.also)
			}
		})
	}
}

// TestAllErrorsAtOnce checks that problems are collected rather than the
// first one returned, and come in file order.
func TestAllErrorsAtOnce(t *testing.T) {
	text := "version: 3\nservice:\n  pakage: ./x\nresources:\n  cpu: fast\n  memory: lots\nload:\n  rate: -1\n  requests: [GET http://x/]\npairs: 0\n"
	_, err := Parse("perfgate.yml", []byte(text))
	var fields []string
	for _, e := range Errors(err) {
		fields = append(fields, fmt.Sprintf("%d:%s", e.Line, e.Field))
	}
	want := []string{"1:version", "2:service.package", "2:service.args", "3:service.pakage", "5:resources.cpu",
		"6:resources.memory", "8:load.rate", "9:load.requests[0].path", "10:pairs"}
	if !reflect.DeepEqual(fields, want) {
		t.Errorf("got errors\n%s\nwant fields %v", err, want)
	}
	var one *Error
	if !errors.As(err, &one) {
		t.Errorf("errors.As(%T, *Error) failed", err)
	}
	if n := strings.Count(err.Error(), "\n"); n != len(want)-1 {
		t.Errorf("joined message has %d lines, want one per error:\n%s", n+1, err)
	}
}

func TestDesignExample(t *testing.T) {
	got, err := Load(filepath.Join("testdata", "design-example.yml"))
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Service.Package = "./cmd/server"
	want.Service.Args = []string{"-addr", "{addr}"}
	// The example spells out values that are not the defaults; a single
	// pairs number fixes the rounds.
	want.Load.Warmup, want.Load.Duration = Duration(3*time.Second), Duration(10*time.Second)
	want.Pairs, want.MaxPairs = 10, 10
	want.Gate.CPU = 0.10
	want.Load.Requests = []Request{
		{Method: "GET", Path: "/search?q=alpha"},
		{Method: "POST", Path: "/order", Headers: map[string]string{"Content-Type": "application/json"}, Body: `{"id":1,"qty":2}`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
}

func TestDefaults(t *testing.T) {
	got, err := Parse("perfgate.yml", []byte("---\nservice:\n  package: ./cmd/server/\n  env: {PORT: \"{port}\"}\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		Version: 1,
		Service: Service{Package: "./cmd/server", Args: []string{}, Env: map[string]string{"PORT": "{port}"},
			Ready: "/healthz", Pprof: "/debug/pprof", ReadyTimeout: Duration(30 * time.Second), ResetTimeout: Duration(30 * time.Second)},
		Resources:  Resources{CPU: 1000, Memory: 256 << 20},
		Target:     "local",
		Kubernetes: Kubernetes{LoadFrom: "auto"},
		Load: LoadSpec{Rate: 500, Warmup: Duration(2 * time.Second), Duration: Duration(5 * time.Second),
			Timeout: Duration(2 * time.Second), Requests: []Request{{Method: "GET", Path: "/"}}},
		Experiment:    "duet",
		Layout:        "random",
		LayoutAlign:   64,
		LayoutPairing: "independent",
		Pairs:         14,
		MaxPairs:      28,
		Profiles:      []string{"cpu", "allocs", "mutex", "block", "goroutine", "heap"},
		ProfileRounds: 3,
		Gate:          Gate{CPU: 0.015, Allocs: 0.02, Bytes: 0.03, Errors: 0.001, Goroutines: 1, Heap: 64 << 10, Alpha: 0.01},
		Validity:      Validity{MinRate: 0.99, MaxErrors: 0.01, MinCPUSamples: 20, MaxGeneratorCPU: 0.90, MaxSharedCPU: 0.75},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
}

// TestRoundTrip parses a file that sets every key, compares its JSON with
// a golden file, and reads the JSON back into an equal Config.
func TestRoundTrip(t *testing.T) {
	c, err := Load(filepath.Join("testdata", "full.yml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, '\n')
	golden := filepath.Join("testdata", "full.json")
	if *update {
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, want) {
		t.Errorf("JSON differs from %s (go test -update rewrites it):\n%s", golden, out)
	}
	var back Config
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, c) {
		t.Errorf("after JSON round trip\n%+v\nwant\n%+v", back, *c)
	}
	if err := back.Validate(); err != nil {
		t.Errorf("round-tripped config does not validate: %v", err)
	}
}

func TestArgsAndEnv(t *testing.T) {
	c := Default()
	c.Service.Args = []string{"-addr", "{addr}", "-port={port}", "{addr}/{port}", "-v"}
	c.Service.Env = map[string]string{"PORT": "{port}", "A0": "x", "A": "{addr}"}
	l := Listen{Addr: "127.0.0.1:41234", Port: 41234}
	gotArgs := c.Args(l)
	wantArgs := []string{"-addr", "127.0.0.1:41234", "-port=41234", "127.0.0.1:41234/41234", "-v"}
	if !reflect.DeepEqual(gotArgs, wantArgs) {
		t.Errorf("Args = %q, want %q", gotArgs, wantArgs)
	}
	gotEnv := c.Env(l)
	wantEnv := []string{"A=127.0.0.1:41234", "A0=x", "PORT=41234"}
	if !reflect.DeepEqual(gotEnv, wantEnv) {
		t.Errorf("Env = %q, want %q", gotEnv, wantEnv)
	}
	if c.Service.Args[1] != "{addr}" {
		t.Error("Args changed the config")
	}
}

// TestResetEnv: the reset gets service.env but the entries about the
// service's own listener, which have no value before it starts.
func TestResetEnv(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want []string
	}{
		{nil, nil},
		{map[string]string{"PORT": "{port}"}, nil},
		{map[string]string{"PORT": "{port}", "DATABASE_URL": "postgres://app@127.0.0.1:5432/app", "LISTEN": "http://{addr}/", "A": ""},
			[]string{"A=", "DATABASE_URL=postgres://app@127.0.0.1:5432/app"}},
	} {
		c := Default()
		c.Service.Env = tc.env
		if got := c.ResetEnv(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ResetEnv of %v = %q, want %q", tc.env, got, tc.want)
		}
	}
}

func TestValidateInCode(t *testing.T) {
	c := Default()
	err := c.Validate()
	var fields []string
	for _, e := range Errors(err) {
		fields = append(fields, e.Field)
		if e.File != "" || e.Line != 0 {
			t.Errorf("error from code has a location: %v", e)
		}
	}
	if want := []string{"service.package", "service.args"}; !reflect.DeepEqual(fields, want) {
		t.Errorf("Default().Validate() fields %v, want %v: %v", fields, want, err)
	}
	c.Service.Package = "./cmd/server"
	c.Service.Args = []string{"-addr", "{addr}"}
	if err := c.Validate(); err != nil {
		t.Errorf("valid config: %v", err)
	}
}

func TestLoadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "perfgate.yml")
	_, err := Load(path)
	var e *Error
	if !errors.As(err, &e) || e.File != path || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("Load(missing) = %v, want a *Error naming %s", err, path)
	}
}

func TestRequestString(t *testing.T) {
	r, err := ParseRequest("  POST   /order?x=1 ")
	if err != nil || r.String() != "POST /order?x=1" {
		t.Errorf("ParseRequest = %v, %v; want POST /order?x=1", r, err)
	}
}
