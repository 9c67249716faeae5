package initconfig

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/config"
)

// want is what a module's plan must say. todo lists substrings each of
// which must appear in one of the plan's changes, and the plan may have no
// change beyond those listed (noisy output is a defect too).
type want struct {
	pkg      string
	args     []string
	env      map[string]string
	ready    string
	pprof    string
	requests []string
	todo     []string
}

func TestFixtures(t *testing.T) {
	checkAll(t, map[string]want{
		"testdata/defaultmux-flag": {
			pkg: ".", args: []string{"--addr", "{addr}"}, ready: "/healthz", pprof: "/debug/pprof",
			requests: []string{"GET /items"},
			todo:     []string{"check load.requests (GET /items)"},
		},
		"testdata/router-env": {
			pkg: ".", env: map[string]string{"PORT": "{port}"}, ready: "/ping", pprof: "/debug/pprof",
			requests: []string{"GET /users"},
			todo:     []string{"$DATABASE_URL (internal/api/router.go:", "a database or cache it needs must be running", "check load.requests (GET /users)"},
		},
		"testdata/admin-listener": {
			pkg: ".", args: []string{"--addr", "{addr}", "--debug-addr", "{pprof_addr}"}, ready: "/readyz", pprof: "/debug/pprof",
			requests: []string{"GET /v1/things"},
			todo:     []string{"check load.requests"},
		},
		"testdata/hardcoded": {
			pkg: ".", args: []string{"--addr", "{addr}"}, ready: "/status", pprof: "/debug/pprof",
			requests: []string{"GET /quote"},
			todo: []string{
				"the address is hard-coded to :8080 in main.go:17",
				"pprof is served on a separate listener at main.go:12 hard-coded to localhost:6060",
				"check load.requests",
			},
		},
		"testdata/gin-no-pprof": {
			pkg: ".", env: map[string]string{"PORT": "{port}"}, ready: "/albums", pprof: "/debug/pprof",
			requests: []string{"GET /albums"},
			todo:     []string{"pprof is not served: add `import _ \"net/http/pprof\"`", "load.requests only requests the ready path"},
		},
	})
}

// TestWrappedDefaultServeMux: DefaultServeMux behind middleware still
// serves the handlers a blank import of net/http/pprof registers.
func TestWrappedDefaultServeMux(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module example.com/wrapped\n\ngo 1.22\n")
	write(t, filepath.Join(dir, "main.go"), `package main

import (
	"net/http"
	_ "net/http/pprof"
	"os"
)

func logged(h http.Handler) http.Handler { return h }

func main() {
	http.HandleFunc("/livez", nil)
	http.ListenAndServe(":"+os.Getenv("PORT"), logged(http.DefaultServeMux))
}
`)
	plan, err := Inspect(dir)
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, plan, want{pkg: ".", env: map[string]string{"PORT": "{port}"}, ready: "/livez", pprof: "/debug/pprof",
		requests: []string{"GET /livez"}, todo: []string{"load.requests only requests the ready path"}})
}

// TestKingpinDefaultIsNotHardCoded: a default met through a flag library
// init does not read is not called hard-coded (that would be false); init
// says it could not tell instead.
func TestKingpinDefaultIsNotHardCoded(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module example.com/exporter\n\ngo 1.22\n")
	write(t, filepath.Join(dir, "main.go"), `package main

import (
	"net/http"
	_ "net/http/pprof"

	"github.com/alecthomas/kingpin/v2"
)

func main() {
	listen := kingpin.Flag("web.listen-address", "address to listen on").Default(":9100").String()
	kingpin.Parse()
	http.HandleFunc("/metrics", nil)
	http.ListenAndServe(*listen, nil)
}
`)
	plan, err := Inspect(dir)
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, plan, want{pkg: ".", args: []string{"--addr", "{addr}"}, ready: "/", pprof: "/debug/pprof",
		requests: []string{"GET /"}, todo: []string{
			"could not tell where the listener at main.go:14 (http.ListenAndServe) gets its address",
			"no route fit as the ready path", "load.requests only requests the ready path",
		}})
}

// TestExampleServices runs init on perfgate's own examples: the configs
// they ship were written by hand, and init must find the same service.
func TestExampleServices(t *testing.T) {
	checkAll(t, map[string]want{
		"../../../examples/service": {
			pkg: "./cmd/server", args: []string{"--addr", "{addr}"}, ready: "/healthz", pprof: "/debug/pprof",
			requests: []string{"GET /search?q=1", "GET /report"},
			todo:     []string{"check load.requests"},
		},
		"../../../examples/service-db": {
			pkg: "./cmd/server", args: []string{"--addr", "{addr}"}, ready: "/healthz", pprof: "/debug/pprof",
			requests: []string{"GET /healthz"},
			todo:     []string{"$DATABASE_URL (cmd/server/main.go:", "load.requests only requests the ready path"},
		},
	})
}

// TestRealServices runs init on trimmed copies of real services
// (testdata/real/README.md): go-httpbin (a FlagSet in an internal package,
// port and host flags, Go 1.22 patterns, no pprof), whoami (a flag whose
// default reads the environment, DefaultServeMux not used, no pprof) and
// podinfo (pflag bound to a config struct by viper, gorilla/mux, pprof
// mounted by PathPrefix, a metrics listener) and inbucket (every setting
// from kelseyhightower/envconfig's derived variables, $INBUCKET_WEB_ADDR
// among them, SMTP and POP3 listeners on fixed default ports, pprof mounted
// only when $INBUCKET_WEB_PPROF is true, websocket routes behind a shared
// helper, a favicon route that opens a file relative to the working
// directory).
func TestRealServices(t *testing.T) {
	checkAll(t, map[string]want{
		"testdata/real/go-httpbin": {
			pkg: "./cmd/go-httpbin", args: []string{"--port", "{port}", "--host", "127.0.0.1"}, ready: "/", pprof: "/debug/pprof",
			requests: []string{"GET /encoding/utf8", "GET /forms/post", "GET /get", "GET /anything"},
			todo: []string{
				"pprof is not served: add",
				// $HOST between these two and $PORT before $PREFIX would be
				// wrong: they feed the address, which the flags set.
				"$EXCLUDE_HEADERS (httpbin/cmd/cmd.go:224), $HTTPS_CERT_FILE (httpbin/cmd/cmd.go:234)",
				"$MAX_DURATION (httpbin/cmd/cmd.go:202), $PREFIX (httpbin/cmd/cmd.go:212)",
				"check load.requests",
			},
		},
		"testdata/real/whoami": {
			pkg: ".", args: []string{"--port", "{port}"}, ready: "/health", pprof: "/debug/pprof",
			requests: []string{"GET /data", "GET /bench", "GET /api", "GET /openapi.yaml"},
			todo:     []string{"pprof is not served: add", "$WHOAMI_NAME (app.go:63)", "check load.requests"},
		},
		"testdata/real/inbucket": {
			pkg: "./cmd/inbucket", ready: "/status", pprof: "/debug/pprof",
			env: map[string]string{
				"INBUCKET_WEB_ADDR": "{addr}", "INBUCKET_WEB_PPROF": "true",
				"INBUCKET_SMTP_ADDR": "127.0.0.1:0", "INBUCKET_POP3_ADDR": "127.0.0.1:0",
			},
			requests: []string{"GET /", "GET /monitor"},
			todo:     []string{"check load.requests"},
		},
		"testdata/real/podinfo": {
			pkg: "./cmd/podinfo", args: []string{"--port", "{port}", "--host", "127.0.0.1"}, ready: "/healthz", pprof: "/debug/pprof",
			requests: []string{"GET /version", "GET /env", "GET /headers", "GET /fault_injection/status"},
			todo:     []string{"$PODINFO (cmd/podinfo/main.go:", "check load.requests"},
		},
	})
}

func checkAll(t *testing.T, cases map[string]want) {
	t.Helper()
	for dir, w := range cases {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			plan, err := Inspect(dir)
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, plan, w)
			checkConfigParses(t, ConfigYAML(plan, "example.com/"+filepath.Base(dir)), plan)
		})
	}
}

func checkPlan(t *testing.T, plan *Plan, w want) {
	t.Helper()
	env := map[string]string{}
	for _, kv := range plan.Env {
		env[kv[0]] = kv[1]
	}
	if w.env == nil {
		w.env = map[string]string{}
	}
	got := want{pkg: plan.Package, args: plan.Args, env: env, ready: plan.Ready, pprof: plan.Pprof, requests: plan.Requests}
	expected := w
	expected.todo = nil
	if !reflect.DeepEqual(got, expected) {
		t.Errorf("plan:\n got  %+v\n want %+v", got, expected)
	}
	matched := make([]bool, len(plan.Todo))
	for _, sub := range w.todo {
		found := false
		for i, todo := range plan.Todo {
			if strings.Contains(todo, sub) {
				found, matched[i] = true, true
			}
		}
		if !found {
			t.Errorf("no change mentions %q; the changes:\n%s", sub, strings.Join(plan.Todo, "\n"))
		}
	}
	for i, ok := range matched {
		if !ok {
			t.Errorf("unexpected change: %s", plan.Todo[i])
		}
	}
}

// checkConfigParses is `perfgate config check` on a generated file, and
// checks the file says what the plan says.
func checkConfigParses(t *testing.T, text string, plan *Plan) {
	t.Helper()
	cfg, err := config.Parse("perfgate.yml", []byte(text))
	if err != nil {
		t.Fatalf("generated perfgate.yml does not pass config check: %v\n%s", err, text)
	}
	if cfg.Service.Package != plan.Package || cfg.Service.Ready != plan.Ready || cfg.Service.Pprof != plan.Pprof {
		t.Errorf("perfgate.yml says package %q ready %q pprof %q; the plan %q %q %q", cfg.Service.Package, cfg.Service.Ready, cfg.Service.Pprof, plan.Package, plan.Ready, plan.Pprof)
	}
	if !reflect.DeepEqual(cfg.Service.Args, plan.Args) && len(plan.Args) > 0 {
		t.Errorf("perfgate.yml's args %q, the plan's %q", cfg.Service.Args, plan.Args)
	}
	var requests []string
	for _, r := range cfg.Load.Requests {
		requests = append(requests, r.String())
	}
	if !reflect.DeepEqual(requests, plan.Requests) {
		t.Errorf("perfgate.yml's requests %q, the plan's %q", requests, plan.Requests)
	}
}

// TestSchemaLineIsTheExamples: the generated file's first line is the
// examples' own.
func TestSchemaLineIsTheExamples(t *testing.T) {
	example, err := os.ReadFile("../../../examples/perfgate.yml")
	if err != nil {
		t.Fatal(err)
	}
	exampleFirst, _, _ := strings.Cut(string(example), "\n")
	plan, err := Inspect("testdata/defaultmux-flag")
	if err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(ConfigYAML(plan, "example.com/defaultmux"), "\n"); first != exampleFirst {
		t.Errorf("first line %q, the examples' %q", first, exampleFirst)
	}
}

func TestNoService(t *testing.T) {
	_, err := Inspect("testdata/no-service")
	if !errors.Is(err, ErrNoService) || !strings.Contains(err.Error(), "has no main package") {
		t.Fatalf("err = %v, want ErrNoService naming the missing main package", err)
	}
	_, err = Inspect(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "no go.mod in") {
		t.Fatalf("err = %v, want one saying there is no go.mod", err)
	}
}

// TestUntrustedTextStaysInComments: a route path or file name from the
// analysed module cannot add a key to perfgate.yml.
func TestUntrustedTextStaysInComments(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module example.com/evil\n\ngo 1.22\n")
	sub := filepath.Join(dir, "cmd", "x\nversion: 2")
	write(t, filepath.Join(sub, "main.go"), `package main

import (
	"net/http"
	"os"
)

func main() {
	http.HandleFunc("GET /a\nrate: 1\u2028gate:", nil)
	http.HandleFunc("GET /b'\"#:{x}]", nil)
	http.HandleFunc("GET /c#d", nil)
	http.HandleFunc("/healthz", nil)
	http.ListenAndServe(os.Getenv("ADDR"), nil)
}
`)
	plan, err := Inspect(dir)
	if err != nil {
		t.Fatal(err)
	}
	text := ConfigYAML(plan, "example.com/evil\nversion: 3")
	cfg, err := config.Parse("perfgate.yml", []byte(text))
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if cfg.Service.Package != "./cmd/x\nversion: 2" || cfg.Load.Rate != 300 || len(cfg.Load.Requests) != 1 || cfg.Load.Requests[0].Path != "/c#d" {
		t.Errorf("untrusted text changed the config: package %q, rate %v, requests %v\n%s", cfg.Service.Package, cfg.Load.Rate, cfg.Load.Requests, text)
	}
	for _, todo := range plan.Todo {
		if strings.ContainsAny(todo, "\n\u2028") {
			t.Errorf("a change to make spans lines: %q", todo)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "version:") && line != "version: 1" {
			t.Errorf("injected line %q\n%s", line, text)
		}
	}
}

// TestWorkflowIsTheExample keeps the generated workflow the same as
// examples/workflows/pr-gate.yml below its opening comment.
func TestWorkflowIsTheExample(t *testing.T) {
	example, err := os.ReadFile("../../../examples/workflows/pr-gate.yml")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := withoutOpeningComment(WorkflowYAML(".")), withoutOpeningComment(string(example)); got != want {
		t.Errorf("the generated workflow differs from examples/workflows/pr-gate.yml:\n%s", got)
	}
	nested := WorkflowYAML("services/api")
	for _, line := range []string{`go-version-file: "services/api/go.mod"`, `config: "services/api/perfgate.yml"`, `working-directory: "services/api"`} {
		if !strings.Contains(nested, line) {
			t.Errorf("the workflow of a module in services/api lacks %s:\n%s", line, nested)
		}
	}
}

func withoutOpeningComment(s string) string {
	lines := strings.SplitAfter(s, "\n")
	i := 0
	for i < len(lines) && strings.HasPrefix(lines[i], "#") {
		i++
	}
	return strings.Join(lines[i:], "")
}

func TestWriteNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "perfgate.yml")
	write(t, existing, "mine\n")
	files := []File{{Path: existing, Content: "new\n"}, {Path: filepath.Join(dir, ".github", "workflows", "perfgate.yml"), Content: "new\n"}}
	err := Write(files)
	var exists *ExistsError
	if !errors.As(err, &exists) || exists.Path != existing || !strings.Contains(err.Error(), "never overwrites") {
		t.Fatalf("err = %v, want an ExistsError naming %s", err, existing)
	}
	if data, _ := os.ReadFile(existing); string(data) != "mine\n" {
		t.Errorf("the existing file was changed: %q", data)
	}
	if _, err := os.Stat(files[1].Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the workflow was written although perfgate.yml existed (%v)", err)
	}
	if err := os.Remove(existing); err != nil {
		t.Fatal(err)
	}
	if err := Write(files); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if data, _ := os.ReadFile(f.Path); string(data) != "new\n" {
			t.Errorf("%s = %q", f.Path, data)
		}
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEnvconfigKeys: the variables kelseyhightower/envconfig reads, as
// its gatherInfo names them (v1.4.0).
func TestEnvconfigKeys(t *testing.T) {
	for _, c := range []struct {
		field, tag, prefix, want string
	}{
		{"Addr", ``, "APP_WEB", "APP_WEB_ADDR"},
		{"ListenAddr", ``, "app", "APP_LISTENADDR"},
		{"ListenAddr", `split_words:"true"`, "app", "APP_LISTEN_ADDR"},
		{"HTTPAddr", `split_words:"true"`, "", "HTTP_ADDR"},
		{"Addr", `envconfig:"bind"`, "app", "APP_BIND"},
	} {
		if got := envconfigKey(c.field, reflect.StructTag(c.tag), c.prefix); got != c.want {
			t.Errorf("envconfigKey(%s, `%s`, %q) = %s, want %s", c.field, c.tag, c.prefix, got, c.want)
		}
	}
}

// TestPprofUnderAConditionInitCannotTrace: a mount inside an if whose
// value comes from nowhere init can read is a change to make, not a
// silent profile-less gate.
func TestPprofUnderAConditionInitCannotTrace(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module example.com/cond\n\ngo 1.22\n")
	write(t, filepath.Join(dir, "main.go"), `package main

import (
	"flag"
	"net/http"
	"net/http/pprof"
)

var profiling = computeProfiling()

func computeProfiling() bool { return false }

func main() {
	addr := flag.String("addr", ":8080", "listen address")
	flag.Parse()
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", nil)
	mux.HandleFunc("/items", nil)
	if profiling {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
	}
	http.ListenAndServe(*addr, mux)
}
`)
	plan, err := Inspect(dir)
	if err != nil {
		t.Fatal(err)
	}
	checkPlan(t, plan, want{
		pkg: ".", args: []string{"--addr", "{addr}"}, ready: "/healthz", pprof: "/debug/pprof",
		requests: []string{"GET /items"},
		todo:     []string{"net/http/pprof is mounted at main.go:20 only under a condition init could not trace", "check load.requests"},
	})
}
