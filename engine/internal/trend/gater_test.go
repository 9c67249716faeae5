package trend

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/gittest"
)

// TestConfigWithinTakesPathsAsTheActionPassesThem: the Action runs perfgate
// in the service's directory with --src absolute and --config relative to
// it, which every confirmation once failed on.
func TestConfigWithinTakesPathsAsTheActionPassesThem(t *testing.T) {
	repo := t.TempDir()
	service := filepath.Join(repo, "services", "api")
	if err := os.MkdirAll(filepath.Join(service, "perf"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(service)
	for _, c := range []struct{ src, config, want string }{
		{service, "perfgate.yml", "perfgate.yml"},
		{service, filepath.Join(service, "perfgate.yml"), "perfgate.yml"},
		{".", "perf/perfgate.yml", filepath.Join("perf", "perfgate.yml")},
		{service, "./perf/../perfgate.yml", "perfgate.yml"},
		{"..", "perfgate.yml", filepath.Join("api", "perfgate.yml")},
		{service, "..api/perfgate.yml", filepath.Join("..api", "perfgate.yml")},
	} {
		got, err := configWithin(c.src, c.config)
		if err != nil || got != c.want {
			t.Errorf("configWithin(%q, %q) = %q, %v; want %q", c.src, c.config, got, err, c.want)
		}
	}
	for _, c := range []struct{ src, config string }{
		{service, "../perfgate.yml"},
		{service, filepath.Join(repo, "perfgate.yml")},
		{filepath.Join(service, "perf"), "perfgate.yml"},
	} {
		_, err := configWithin(c.src, c.config)
		if err == nil || !strings.Contains(err.Error(), "is not inside --src") {
			t.Errorf("configWithin(%q, %q): %v, want an error naming --src", c.src, c.config, err)
		}
	}
}

// TestCommitsFollowMainsFirstParents: a merged pull request's own commits
// are never bisected (they were not reviewed as they stand, and each
// carries its own perfgate.yml); its merge is main's commit.
func TestCommitsFollowMainsFirstParents(t *testing.T) {
	repo := t.TempDir()
	git := gittest.In(t, repo)
	commit := func(msg string) string {
		if err := os.WriteFile(filepath.Join(repo, "CHANGES"), []byte(msg+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", "-A")
		git("commit", "-q", "-m", msg)
		return git("rev-parse", "HEAD")
	}
	git("init", "-q", "-b", "main")
	before := commit("main 1")
	git("checkout", "-q", "-b", "pr")
	commit("pr 1")
	commit("pr 2")
	git("checkout", "-q", "main")
	main2 := commit("main 2")
	git("merge", "-q", "--no-ff", "-X", "theirs", "-m", "merge pr", "pr")
	merge := git("rev-parse", "HEAD")
	after := commit("main 3")

	got, err := Checkout{Src: repo}.Commits(context.Background(), before, after)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{main2, merge, after}; !slices.Equal(got, want) {
		t.Errorf("commits %v, want main's own %v (not the pull request's)", got, want)
	}
}
