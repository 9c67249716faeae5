package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// KeyCases is testdata/keys/cases.json, which the Action's tests read too.
type KeyCases struct {
	Accepted []string `json:"accepted"`
	Refused  []struct {
		File string `json:"file"`
		Key  string `json:"key"`
	} `json:"refused"`
}

func readKeyCases(t *testing.T) KeyCases {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "keys", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases KeyCases
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases.Accepted) == 0 || len(cases.Refused) == 0 {
		t.Fatal("cases.json lists no cases")
	}
	return cases
}

// TestCheckKeysSharedCases: the cases the Action refuses and accepts too.
func TestCheckKeysSharedCases(t *testing.T) {
	cases := readKeyCases(t)
	for _, name := range cases.Accepted {
		data, err := os.ReadFile(filepath.Join("testdata", "keys", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckKeys(data); err != nil {
			t.Errorf("%s: refused: %v", name, err)
		}
	}
	for _, c := range cases.Refused {
		data, err := os.ReadFile(filepath.Join("testdata", "keys", c.File))
		if err != nil {
			t.Fatal(err)
		}
		err = CheckKeys(data)
		if err == nil || !strings.Contains(err.Error(), strconv.Quote(c.Key)) {
			t.Errorf("%s: got %v; want an error naming the key %q", c.File, err, c.Key)
		}
	}
}

// TestCheckKeysFields: a lone case variant of a field anywhere in the
// schema fills that field in Go and nothing in JavaScript; an unknown key
// is ignored by both and passes.
func TestCheckKeysFields(t *testing.T) {
	for _, tc := range []struct {
		body, want string
	}{
		{`{"schema":1,"verdict":"pass","config":{"Pairs":3}}`, `"Pairs" in config, but the field is spelled "pairs"`},
		{`{"schema":1,"verdict":"pass","environment":{"Target":"local"}}`, `"Target" in environment, but the field is spelled "target"`},
		{`{"schema":1,"verdict":"pass","runs":[{},{"figures":{"CPU_US_per_req":1}}]}`, `"CPU_US_per_req" in runs[1].figures`},
		{`{"schema":1,"verdict":"pass","flame":{"cpu":{"c":[{"N":"x"}]}}}`, `"N" in flame.cpu.c[0]`},
		{`{"schema":1,"verdict":"pass","started":"2026-01-01T00:00:00Z","config":{"load":{"duration":"5s"}}}`, ``},
		{`{"schema":1,"verdict":"pass","extra":{"Verdict":"regression"},"counts":{"Pass":1}}`, ``},
		{`{"schema":1,"verdict":"pass","reason":"x","\u212Aey":1,"key":2}`, "\"\u212Aey\" and \"key\" at the top level"},
		{`{"schema":1,"verdict":"pass","` + strings.Repeat("v", 1000) + `":1,"` + strings.Repeat("V", 1000) + `":2}`, `…"`},
	} {
		err := CheckKeys([]byte(tc.body))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%.80s: refused: %v", tc.body, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%.80s: got %v; want an error with %q", tc.body, err, tc.want)
		}
		if err != nil && len(err.Error()) > 400 {
			t.Errorf("error of %d bytes: a hostile key must be cut", len(err.Error()))
		}
	}
}

func TestFoldKeyMatchesEqualFold(t *testing.T) {
	for _, pair := range [][2]string{{"verdict", "VERDICT"}, {"schema", "ſchema"}, {"key", "\u212Aey"}, {"σ", "ς"}, {"ß", "ẞ"}} {
		if !strings.EqualFold(pair[0], pair[1]) || foldKey(pair[0]) != foldKey(pair[1]) {
			t.Errorf("%q and %q: EqualFold %v, folded %q and %q", pair[0], pair[1], strings.EqualFold(pair[0], pair[1]), foldKey(pair[0]), foldKey(pair[1]))
		}
	}
	if foldKey("ss") == foldKey("ß") {
		t.Error("ss and ß fold alike; encoding/json does not match them")
	}
}

// TestReportFieldNamesFoldApart: no struct in report.json has two fields
// whose names differ only in case, or CheckKeys would refuse the reports
// perfgate writes.
func TestReportFieldNamesFoldApart(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		typ = decodedType(typ)
		if typ == nil || seen[typ] {
			return
		}
		seen[typ] = true
		switch typ.Kind() {
		case reflect.Struct:
			fields := map[string]reflect.Type{}
			jsonFields(typ, fields)
			folded := map[string]string{}
			for name, ft := range fields {
				if other, ok := folded[foldKey(name)]; ok {
					t.Errorf("%s has the fields %q and %q, which differ only in case", typ, other, name)
				}
				folded[foldKey(name)] = name
				walk(ft)
			}
		case reflect.Map, reflect.Slice, reflect.Array:
			walk(typ.Elem())
		}
	}
	walk(reflect.TypeFor[Report]())
	if len(seen) < 20 {
		t.Errorf("walked only %d types", len(seen))
	}
}
