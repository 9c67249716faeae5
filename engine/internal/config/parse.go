package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// keys are the known keys of each mapping, by field path ("" is the top
// level, load.requests[] a request written as a mapping), in the order the
// documentation lists them.
var keys = map[string][]string{
	"":                {"version", "service", "resources", "target", "kubernetes", "kind", "load", "experiment", "layout", "layout_align", "layout_pairing", "pairs", "profiles", "profile_rounds", "gate", "validity"},
	"pairs":           {"min", "max"},
	"kind":            {"node_image"},
	"kubernetes":      {"kubeconfig", "context", "namespace", "image_load", "image_repository", "load_from"},
	"service":         {"package", "args", "env", "env_from", "ready", "pprof", "ready_timeout", "reset", "reset_timeout", "build"},
	"service.build":   {"tags", "ldflags", "cgo", "command"},
	"resources":       {"cpu", "memory"},
	"load":            {"rate", "warmup", "duration", "timeout", "requests"},
	"load.requests[]": {"method", "path", "headers", "body"},
	"gate":            {"cpu", "allocs", "bytes", "errors", "goroutines", "heap", "alpha", "latency"},
	"validity":        {"min_rate", "max_errors", "min_cpu_samples", "max_generator_cpu", "max_shared_cpu"},
}

// What the non-unit values accept.
const (
	documentWant      = "a mapping that starts with version: 1 and names service.package"
	packageWant       = "a relative Go package path like ./cmd/server"
	argsWant          = `a list of strings like ["-addr", "{addr}"]`
	envWant           = `a mapping of names to strings like {PORT: "{port}"}`
	probeWant         = "a path on the service like /healthz"
	requestWant       = `"METHOD /path" like "GET /search?q=alpha", or a mapping with method, path, headers and body`
	requestsWant      = "a list of requests like [GET /, POST /order]"
	headersWant       = "a mapping of header names to strings like {Content-Type: application/json}"
	profilesWant      = "a list of profile names like [cpu, allocs, heap]"
	rateWant          = "requests per second like 500"
	pairsWant         = "a whole number from 1 to 1000, like 10, or {min: 10, max: 20}"
	pairsMaxWant      = "a whole number from pairs.min to 1000, like 20"
	profileRoundsWant = "a whole number from 0 to 100, like 3 (0: no profiles in a duet)"
	alphaWant         = "a significance level above 0 and at most 0.5, like 0.01"
	samplesWant       = "a whole number like 20, or 0 to turn the check off"
	// The leak thresholds are amounts per 1,000 requests; 0 fails on any
	// significant growth.
	goroutinesWant = "goroutines retained per 1,000 requests like 1 or 0.5, or 0 to fail on any significant growth"
	heapWant       = "bytes of live heap retained per 1,000 requests like 64Ki or 1Mi, or 0 to fail on any significant growth"
)

var (
	yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
	indexes  = regexp.MustCompile(`\[\d+\]`)
	// parserStage matches the messages of yaml.v3's parser stage.
	parserStage = regexp.MustCompile(`^did not find expected (<document start>|node content|key|',' or '\]'|',' or '\}'|'-' indicator)$`)
)

// document decodes the YAML and returns its top-level mapping, or nil
// after recording why there is none.
func (d *diagnostics) document(data []byte) *yaml.Node {
	empty := Error{Problem: "is empty", Want: documentWant}
	if len(bytes.TrimSpace(data)) == 0 {
		d.at(0, "", empty)
		return nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			d.at(0, "", empty) // only comments
		} else {
			d.syntax(err, data)
		}
		return nil
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil && !emptyDocument(&next):
		d.at(next.Line, "", Error{Problem: "has a second YAML document", Want: "one document: remove the --- line and what follows"})
	case err != nil && !errors.Is(err, io.EOF):
		d.syntax(err, data)
	}
	root := deref(&doc)
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = deref(root.Content[0])
	}
	if root.Kind == yaml.DocumentNode || isNull(root) {
		d.at(root.Line, "", empty)
		return nil
	}
	if root.Kind != yaml.MappingNode {
		d.wrongKind(root, "", documentWant)
		return nil
	}
	return root
}

// emptyDocument is true for a document with nothing in it, such as the
// one a trailing --- starts.
func emptyDocument(doc *yaml.Node) bool {
	return len(doc.Content) == 0 || isNull(doc.Content[0]) && doc.Content[0].Value == ""
}

// syntax records a YAML error at the line the YAML library names. The
// library counts lines from 0 for the errors of its parser stage (as
// opposed to its scanner), so those are moved down one line, at most to
// the last line of the file.
func (d *diagnostics) syntax(err error, data []byte) {
	msg, line := strings.TrimPrefix(err.Error(), "yaml: "), 0
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
		if parserStage.MatchString(msg) {
			line = min(line+1, bytes.Count(bytes.TrimRight(data, "\n"), []byte("\n"))+1)
		}
	}
	d.at(line, "", Error{Problem: "is not valid YAML: " + msg, Hint: "check the indentation, which takes spaces, not tabs, and the quoting"})
}

// config fills c from the top-level mapping; keys that are absent keep
// their defaults.
func (d *diagnostics) config(root *yaml.Node, c *Config) {
	d.mapping(root, "", func(key string, v *yaml.Node, f string) {
		switch key {
		case "version":
			scalarInto(d, v, f, "1", parseInt, &c.Version)
		case "service":
			d.service(v, f, &c.Service)
		case "resources":
			d.mapping(v, f, func(key string, v *yaml.Node, f string) {
				switch key {
				case "cpu":
					scalarInto(d, v, f, cpuWant, ParseCPU, &c.Resources.CPU)
				case "memory":
					scalarInto(d, v, f, bytesWant, ParseBytes, &c.Resources.Memory)
				}
			})
		case "target":
			scalarInto(d, v, f, targetWant(), parseString, &c.Target)
		case "kubernetes":
			d.kubernetes(v, f, &c.Kubernetes)
		case "kind":
			d.mapping(v, f, func(key string, v *yaml.Node, f string) {
				if key == "node_image" {
					scalarInto(d, v, f, "a kind node image like kindest/node:v1.32.0", parseString, &c.Kind.NodeImage)
				}
			})
		case "load":
			d.load(v, f, &c.Load)
		case "experiment":
			scalarInto(d, v, f, experimentWant(), parseString, &c.Experiment)
		case "layout":
			scalarInto(d, v, f, layoutWant(), parseString, &c.Layout)
		case "layout_align":
			scalarInto(d, v, f, layoutAlignWant, parseInt, &c.LayoutAlign)
		case "layout_pairing":
			scalarInto(d, v, f, layoutPairingWant(), parseString, &c.LayoutPairing)
		case "pairs":
			d.pairs(v, f, c)
		case "profiles":
			d.stringList(v, f, profilesWant, &c.Profiles)
		case "profile_rounds":
			scalarInto(d, v, f, profileRoundsWant, parseInt, &c.ProfileRounds)
		case "gate":
			d.gate(v, f, &c.Gate)
		case "validity":
			d.mapping(v, f, func(key string, v *yaml.Node, f string) {
				switch key {
				case "min_rate":
					scalarInto(d, v, f, fractionWant, ParseFraction, &c.Validity.MinRate)
				case "max_errors":
					scalarInto(d, v, f, fractionWant, ParseFraction, &c.Validity.MaxErrors)
				case "min_cpu_samples":
					scalarInto(d, v, f, samplesWant, parseInt, &c.Validity.MinCPUSamples)
				case "max_generator_cpu":
					scalarInto(d, v, f, fractionWant, ParseFraction, &c.Validity.MaxGeneratorCPU)
				case "max_shared_cpu":
					scalarInto(d, v, f, fractionWant, ParseFraction, &c.Validity.MaxSharedCPU)
				}
			})
		}
	})
}

// pairs reads either a fixed number of rounds (pairs: 10, min and max
// alike) or the range the experiment may stop within (pairs: {min: 10,
// max: 20}).
func (d *diagnostics) pairs(v *yaml.Node, f string, c *Config) {
	if deref(v).Kind != yaml.MappingNode {
		scalarInto(d, v, f, pairsWant, parseInt, &c.Pairs)
		c.MaxPairs = c.Pairs
		return
	}
	d.mapping(v, f, func(key string, v *yaml.Node, f string) {
		switch key {
		case "min":
			scalarInto(d, v, f, pairsWant, parseInt, &c.Pairs)
		case "max":
			scalarInto(d, v, f, pairsMaxWant, parseInt, &c.MaxPairs)
		}
	})
}

func (d *diagnostics) kubernetes(n *yaml.Node, field string, k *Kubernetes) {
	d.mapping(n, field, func(key string, v *yaml.Node, f string) {
		switch key {
		case "kubeconfig":
			scalarInto(d, v, f, "a path to a kubeconfig file", parseString, &k.Kubeconfig)
		case "context":
			scalarInto(d, v, f, "a context name from the kubeconfig", parseString, &k.Context)
		case "namespace":
			scalarInto(d, v, f, "a namespace name like perf", parseString, &k.Namespace)
		case "image_load":
			d.stringList(v, f, `a command like [kind, load, image-archive, "{archive}"]`, &k.ImageLoad)
		case "image_repository":
			scalarInto(d, v, f, "an image repository like registry.example.com/team/perfgate", parseString, &k.ImageRepository)
		case "load_from":
			scalarInto(d, v, f, loadFromWant(), parseString, &k.LoadFrom)
		}
	})
}

func (d *diagnostics) service(n *yaml.Node, field string, s *Service) {
	d.mapping(n, field, func(key string, v *yaml.Node, f string) {
		switch key {
		case "package":
			scalarInto(d, v, f, packageWant, parseString, &s.Package)
		case "args":
			d.stringList(v, f, argsWant, &s.Args)
		case "env":
			d.stringMap(v, f, envWant, &s.Env)
		case "env_from":
			d.stringMap(v, f, envFromWant, &s.EnvFrom)
		case "ready":
			scalarInto(d, v, f, probeWant, parseString, &s.Ready)
		case "pprof":
			scalarInto(d, v, f, "the net/http/pprof prefix like /debug/pprof", parseString, &s.Pprof)
		case "ready_timeout":
			scalarInto(d, v, f, durationWant, ParseDuration, &s.ReadyTimeout)
		case "reset":
			d.stringList(v, f, resetWant, &s.Reset)
		case "reset_timeout":
			scalarInto(d, v, f, durationWant, ParseDuration, &s.ResetTimeout)
		case "build":
			d.serviceBuild(v, f, &s.Build)
		}
	})
}

func (d *diagnostics) load(n *yaml.Node, field string, l *LoadSpec) {
	d.mapping(n, field, func(key string, v *yaml.Node, f string) {
		switch key {
		case "rate":
			scalarInto(d, v, f, rateWant, parseNumber, &l.Rate)
		case "warmup":
			scalarInto(d, v, f, durationWant, ParseDuration, &l.Warmup)
		case "duration":
			scalarInto(d, v, f, durationWant, ParseDuration, &l.Duration)
		case "timeout":
			scalarInto(d, v, f, durationWant, ParseDuration, &l.Timeout)
		case "requests":
			d.requests(v, f, &l.Requests)
		}
	})
}

// requests reads the request list; each item is a "METHOD /path" string
// or a mapping. A request written as a mapping without a method is a GET.
func (d *diagnostics) requests(n *yaml.Node, field string, dst *[]Request) {
	n = deref(n)
	if isNull(n) {
		*dst = nil
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.wrongKind(n, field, requestsWant)
		return
	}
	out := make([]Request, len(n.Content))
	for i, item := range n.Content {
		f := fmt.Sprintf("%s[%d]", field, i)
		d.lines[f] = item.Line
		item = deref(item)
		switch item.Kind {
		case yaml.MappingNode:
			r := &out[i]
			r.Method = "GET"
			d.mapping(item, f, func(key string, v *yaml.Node, f string) {
				switch key {
				case "method":
					scalarInto(d, v, f, methodWant(), parseString, &r.Method)
				case "path":
					scalarInto(d, v, f, "a path on the service like /search?q=alpha", parseString, &r.Path)
				case "headers":
					d.stringMap(v, f, headersWant, &r.Headers)
				case "body":
					scalarInto(d, v, f, "a string; quote JSON like '{\"id\":1}'", parseString, &r.Body)
				}
			})
			if len(r.Headers) == 0 {
				r.Headers = nil
			}
		case yaml.ScalarNode:
			scalarInto(d, item, f, requestWant, ParseRequest, &out[i])
		default:
			d.wrongKind(item, f, requestWant)
		}
	}
	*dst = out
}

func (d *diagnostics) gate(n *yaml.Node, field string, g *Gate) {
	d.mapping(n, field, func(key string, v *yaml.Node, f string) {
		switch key {
		case "cpu":
			scalarInto(d, v, f, fractionWant, ParseFraction, &g.CPU)
		case "allocs":
			scalarInto(d, v, f, fractionWant, ParseFraction, &g.Allocs)
		case "bytes":
			scalarInto(d, v, f, fractionWant, ParseFraction, &g.Bytes)
		case "errors":
			scalarInto(d, v, f, fractionWant, ParseFraction, &g.Errors)
		case "goroutines":
			scalarInto(d, v, f, goroutinesWant, parseNumber, &g.Goroutines)
		case "heap":
			scalarInto(d, v, f, heapWant, ParseBytes, &g.Heap)
		case "alpha":
			scalarInto(d, v, f, alphaWant, func(s string) (float64, error) {
				a, err := ParseFraction(s)
				return float64(a), err
			}, &g.Alpha)
		case "latency":
			scalarInto(d, v, f, fractionWant, ParseFraction, &g.Latency)
		}
	})
}

// Keys are the known keys of the mapping at section ("" for the top level,
// "service", "load.requests[]" for a request written as a mapping), in the
// order the documentation lists them; nil for a section that is not a
// mapping. The reference docs/config.md is generated in this order.
func Keys(section string) []string {
	return append([]string(nil), keys[section]...)
}
