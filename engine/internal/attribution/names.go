package attribution

import (
	"regexp"
	"strings"

	"github.com/google/pprof/profile"
)

var (
	// closureSuffix matches compiler-numbered closures (Handler.func1,
	// Handler.func2.1, Handler.Serve.deferwrap1, Handler.gowrap2), whose
	// numbers shift when a closure is added above them in a pull request.
	closureSuffix = regexp.MustCompile(`\.(func|deferwrap|gowrap)\d+(\.\d+)*`)
	// shapeArgs matches generic instantiations' type arguments.
	shapeArgs = regexp.MustCompile(`\[[^\[\]]*(\[[^\[\]]*\][^\[\]]*)*\]`)
)

// Normalize makes function names comparable across two builds: closures
// lose their numbers (Handler.func3 → Handler.func*), generic
// instantiations their type arguments (Map[go.shape.int] → Map[...]).
// Inlined frames need nothing here: pprof records each as its own line.
func Normalize(name string) string {
	name = closureSuffix.ReplaceAllString(name, ".$1*")
	if strings.Contains(name, "[") {
		name = shapeArgs.ReplaceAllString(name, "[...]")
	}
	return name
}

// names caches Normalize per function of one profile: the regular
// expressions would otherwise run for every frame of every sample.
type names map[*profile.Function]string

func (n names) of(fn *profile.Function) string {
	name, ok := n[fn]
	if !ok {
		name = Normalize(fn.Name)
		n[fn] = name
	}
	return name
}
