package build

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// taggedService is a module whose binary prints which file its build tag
// chose and the version its linker flags set.
func taggedService(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module example.com/tagged\n\ngo 1.24\n")
	write(t, filepath.Join(dir, "main.go"), "package main\n\nvar version = \"unset\"\n\nfunc main() { println(flavour, version) }\n")
	write(t, filepath.Join(dir, "perf.go"), "//go:build perf\n\npackage main\n\nconst flavour = \"perf\"\n")
	write(t, filepath.Join(dir, "plain.go"), "//go:build !perf\n\npackage main\n\nconst flavour = \"plain\"\n")
	return dir
}

// TestTagsAndLDFlagsReachEveryBuild: service.build's tags and linker flags
// apply to the build and to every relink of layout: random, where the
// layout's -randlayout joins the user's own -ldflags instead of replacing
// them.
func TestTagsAndLDFlagsReachEveryBuild(t *testing.T) {
	if !ReadLinkerAbilities(context.Background()).RandLayout {
		t.Skip("this toolchain's linker has no -randlayout")
	}
	dir := taggedService(t)
	how := report.ServiceBuild{Tags: []string{"perf"}, LDFlags: "-X main.version=v9"}
	bin := filepath.Join(t.TempDir(), "svc")
	b, err := Build(context.Background(), "head", dir, ".", how, bin)
	if err != nil {
		t.Fatal(err)
	}
	if out := strings.TrimSpace(run(t, "", bin)); out != "perf v9" {
		t.Errorf("built binary printed %q, want \"perf v9\"", out)
	}
	if !strings.Contains(b.BuildInfo, "-tags=perf") {
		t.Errorf("go version -m does not show the tags:\n%s", b.BuildInfo)
	}
	relinked := filepath.Join(t.TempDir(), "svc")
	if err := Layout(context.Background(), "head", dir, ".", how, LayoutDraw{Seed: 7, Align: 64}, Padding{}, relinked); err != nil {
		t.Fatal(err)
	}
	if out := strings.TrimSpace(run(t, "", relinked)); out != "perf v9" {
		t.Errorf("relinked binary printed %q, want \"perf v9\"", out)
	}
	if got := buildFlags(how, LayoutDraw{Seed: 7, Align: 64}); strings.Join(got, " ") != "-tags=perf -ldflags=-X main.version=v9 -randlayout=7 -funcalign=64" {
		t.Errorf("relink flags %q: want the user's -ldflags and the layout in one", got)
	}
}

// TestCustomCommandWritesOut: service.build.command runs in the tree with
// {out} replaced; a command that writes nothing there is a build error
// that says so, and such a build is never relinked.
func TestCustomCommandWritesOut(t *testing.T) {
	dir := taggedService(t)
	bin := filepath.Join(t.TempDir(), "svc")
	how := report.ServiceBuild{Command: []string{"go", "build", "-tags", "perf", "-o", "{out}", "."}}
	b, err := Build(context.Background(), "base", dir, ".", how, bin)
	if err != nil {
		t.Fatal(err)
	}
	if out := strings.TrimSpace(run(t, "", bin)); out != "perf unset" {
		t.Errorf("binary printed %q, want \"perf unset\"", out)
	}
	if b.Module != "example.com/tagged" {
		t.Errorf("module %q, want example.com/tagged", b.Module)
	}

	silent := report.ServiceBuild{Command: []string{"true", "{out}"}}
	_, err = Build(context.Background(), "head", dir, ".", silent, filepath.Join(t.TempDir(), "svc"))
	var be *Error
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "wrote no executable file at {out}") {
		t.Errorf("a command that writes nothing: %v, want a build error naming {out}", err)
	}
	if err := Layout(context.Background(), "head", dir, ".", how, LayoutDraw{Seed: 7}, Padding{}, filepath.Join(t.TempDir(), "svc")); err == nil {
		t.Error("Layout relinked a custom command's build")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatal(err)
	}
}

// TestPrebuiltIsRecordedLikeABuild: a prebuilt binary is copied where the
// service's user can run it and recorded with its go version -m; a file
// that is not a Go binary is refused with the reason.
func TestPrebuiltIsRecordedLikeABuild(t *testing.T) {
	dir := taggedService(t)
	built := filepath.Join(t.TempDir(), "built")
	if _, err := Build(context.Background(), "head", dir, ".", report.ServiceBuild{Tags: []string{"perf"}}, built); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), "head")
	b, err := Prebuilt(context.Background(), "head", dir, ".", built, copied)
	if err != nil {
		t.Fatal(err)
	}
	if out := strings.TrimSpace(run(t, "", copied)); out != "perf unset" {
		t.Errorf("copied binary printed %q, want \"perf unset\"", out)
	}
	if b.Path != copied || b.Module != "example.com/tagged" || !strings.Contains(b.BuildInfo, "-tags=perf") {
		t.Errorf("recorded %+v, want the copy with the build's go version -m", b)
	}
	script := filepath.Join(t.TempDir(), "server.sh")
	write(t, script, "#!/bin/sh\necho hi\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = Prebuilt(context.Background(), "base", dir, ".", script, filepath.Join(t.TempDir(), "base"))
	if err == nil || !strings.Contains(err.Error(), "not a Go binary") {
		t.Errorf("a shell script as the binary: %v, want an error saying it is not a Go binary", err)
	}
}
