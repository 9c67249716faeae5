package attribution

import (
	"path/filepath"
	"sort"

	"github.com/google/pprof/profile"

	"github.com/perfgate/perfgate/engine/internal/capture"
	"github.com/perfgate/perfgate/engine/internal/metric"
	"github.com/perfgate/perfgate/engine/internal/report"
)

// flameMinShare drops call paths below this share of the larger side's
// total, which keeps the tree (and report.json) small; the rest of a
// parent's cost shows as its own width.
const flameMinShare = 0.002

// flameMaxDepth bounds the depth of the tree.
const flameMaxDepth = 64

// Flame builds the differential flame graph trees for CPU (µs/req) and
// allocations (B/req) from the merged profiles of dir, per request.
func Flame(dir string, runs []report.Run) map[string]*report.FlameNode {
	out := map[string]*report.FlameNode{}
	for _, m := range []measure{measures[0], measures[1]} {
		base, errB := load(dir, metric.Base, m.profile)
		head, errH := load(dir, metric.Head, m.profile)
		denomBase, denomHead := denominators(runs, m)
		if errB != nil || errH != nil || denomBase == 0 || denomHead == 0 {
			continue
		}
		root := &report.FlameNode{Name: "all"}
		b := builder{children: map[*report.FlameNode]map[string]*report.FlameNode{}, names: names{}}
		if !b.addStacks(root, base, m, denomBase, false) || !b.addStacks(root, head, m, denomHead, true) {
			continue
		}
		prune(root, flameMinShare*max(root.Base, root.Head), 0)
		out[m.profile] = root
	}
	return out
}

// addStacks adds every sample of p to the tree, root first, as cost per
// request (m.scale applied).
func (b builder) addStacks(root *report.FlameNode, p *profile.Profile, m measure, requests float64, head bool) bool {
	vi := index(p, m.valueType)
	if vi < 0 {
		return false
	}
	for _, s := range p.Sample {
		if excluded(s, m.profile, b.names) {
			continue
		}
		v := float64(s.Value[vi]) / requests * m.scale
		node := root
		add(node, v, head)
		for i := len(s.Location) - 1; i >= 0; i-- {
			lines := s.Location[i].Line
			for j := len(lines) - 1; j >= 0; j-- {
				if lines[j].Function == nil {
					continue
				}
				node = b.child(node, b.names.of(lines[j].Function))
				add(node, v, head)
			}
		}
	}
	return true
}

func add(n *report.FlameNode, v float64, head bool) {
	if head {
		n.Head += v
	} else {
		n.Base += v
	}
}

// builder indexes each node's children by name while the tree is built
// (a big service has thousands of distinct callees under one frame).
type builder struct {
	children map[*report.FlameNode]map[string]*report.FlameNode
	names    names
}

func (b builder) child(n *report.FlameNode, name string) *report.FlameNode {
	kids := b.children[n]
	if kids == nil {
		kids = map[string]*report.FlameNode{}
		b.children[n] = kids
	}
	c := kids[name]
	if c == nil {
		c = &report.FlameNode{Name: name}
		kids[name] = c
		n.Children = append(n.Children, c)
	}
	return c
}

// prune drops children below min on both sides and past the depth limit,
// and orders children by name so the picture is stable.
func prune(n *report.FlameNode, min float64, depth int) {
	kept := n.Children[:0]
	for _, c := range n.Children {
		if depth < flameMaxDepth && (c.Base >= min || c.Head >= min) {
			prune(c, min, depth+1)
			kept = append(kept, c)
		}
	}
	n.Children = kept
	sort.Slice(n.Children, func(i, j int) bool { return n.Children[i].Name < n.Children[j].Name })
}

func load(dir string, side metric.Side, kind string) (*profile.Profile, error) {
	return capture.ReadProfile(filepath.Join(dir, string(side)+"."+kind+".pb.gz"))
}

// denominators are the requests (or runs) behind each side's merged
// profile of m's kind: only valid runs with that profile were merged.
func denominators(runs []report.Run, m measure) (base, head float64) {
	for _, r := range runs {
		if !r.Valid || profileFile(r, m.profile) == "" {
			continue
		}
		n := float64(r.ProfileRequests)
		if m.perRun {
			n = 1
		}
		if metric.SideOf(r) == metric.Base {
			base += n
		} else {
			head += n
		}
	}
	return base, head
}
