package kubernetes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/perfgate/perfgate/engine/internal/affinity"
	"github.com/perfgate/perfgate/engine/internal/image"
	"github.com/perfgate/perfgate/engine/internal/privilege"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// images builds FROM-scratch images and hands them to the cluster with the
// configured command (kind load image-archive, ctr import, a registry
// push), once per binary.
type images struct {
	repository string   // e.g. "perfgate" or "registry.example.com/team/perfgate"
	load       []string // the command, with {archive} and {image}
	run        string
	workDir    string
	mu         sync.Mutex
	loaded     map[string]*imageLoad // image reference → its load, done or under way
	// asInvoker runs load as the invoking user under sudo (and the
	// archive is theirs): kubernetes.image_load comes from perfgate.yml,
	// which a pull request can change, and nothing of that config may run
	// as root. The invoker is who ran the job, so a loader that works in
	// their shell (kind load, ctr through their socket, a registry push
	// with their credentials) works here. Taking image_load from the base
	// revision instead would still run a command the repository chose as
	// root, and `perfgate run` has no base. False for perfgate's own
	// loader (the kind target's `kind load`).
	asInvoker bool
}

// newImages makes the work directory for the archives, the invoker's when
// load runs as the invoker, so that load can read them.
func newImages(repository string, load []string, run string, asInvoker bool) (*images, error) {
	dir, err := os.MkdirTemp("", "perfgate-images-")
	if err != nil {
		return nil, err
	}
	if asInvoker {
		if err := privilege.GiveToInvoker(dir); err != nil {
			os.Remove(dir)
			return nil, fmt.Errorf("give the image directory %s to the user who runs kubernetes.image_load: %w", dir, err)
		}
	}
	return &images{repository: repository, load: load, run: run, workDir: dir, loaded: map[string]*imageLoad{}, asInvoker: asInvoker}, nil
}

// imageLoad is one image on its way to the cluster: done closes once err
// is set. A duet starts both sides at once, and in an A/A gate both sides
// can be the same binary, hence the same image: the second start waits for
// the first's load rather than writing the same archive beside it.
type imageLoad struct {
	done chan struct{}
	err  error
}

// ensure makes binary's image available to the cluster and returns its
// reference; the tag carries the run and the binary's hash. It may be
// called for two binaries at once.
func (m *images) ensure(ctx context.Context, component, binary string) (string, error) {
	if len(m.load) == 0 {
		return "", &target.ConfigError{Err: fmt.Errorf(
			`kubernetes.image_load is empty: perfgate builds the service's image locally and needs a command that gives it to the cluster, e.g. [kind, load, image-archive, "{archive}"] or a registry push with kubernetes.image_repository set`)}
	}
	if err := image.CheckStatic(binary); err != nil {
		return "", &target.ConfigError{Err: fmt.Errorf("target kubernetes: %w", err)}
	}
	sum, err := image.FileDigest(binary)
	if err != nil {
		return "", err
	}
	ref := fmt.Sprintf("%s/%s:%s-%s", m.repository, component, m.run, sum[:12])
	for {
		m.mu.Lock()
		l, underWay := m.loaded[ref]
		if !underWay {
			l = &imageLoad{done: make(chan struct{})}
			m.loaded[ref] = l
		}
		m.mu.Unlock()
		if !underWay {
			return ref, m.loadFor(ctx, ref, l, component, sum, binary)
		}
		select {
		case <-l.done:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		// A load cancelled under its own caller (a preload dropped) is
		// not this caller's failure: try again. Any other failed load is
		// this one's too; it is forgotten, so a later start tries again.
		if !errors.Is(l.err, context.Canceled) && !errors.Is(l.err, context.DeadlineExceeded) {
			return ref, l.err
		}
	}
}

// loadFor loads ref's image as l, the load other callers wait on, and
// forgets it if it failed.
func (m *images) loadFor(ctx context.Context, ref string, l *imageLoad, component, sum, binary string) error {
	archive := filepath.Join(m.workDir, component+"-"+sum[:12]+".tar")
	if l.err = m.loadImage(ctx, image.Spec{Ref: ref, Binary: binary, Labels: map[string]string{LabelRun: m.run}}, archive); l.err != nil {
		m.mu.Lock()
		delete(m.loaded, ref)
		m.mu.Unlock()
	}
	close(l.done)
	return l.err
}

// loadImage writes spec's image archive and runs the load command on it.
func (m *images) loadImage(ctx context.Context, spec image.Spec, archive string) error {
	ref := spec.Ref
	if _, err := image.WriteArchive(archive, spec); err != nil {
		return err
	}
	defer os.Remove(archive)
	if m.asInvoker {
		if err := privilege.GiveToInvoker(archive); err != nil {
			return fmt.Errorf("give the image archive %s to the user who runs kubernetes.image_load: %w", archive, err)
		}
	}
	args := make([]string, len(m.load))
	for i, a := range m.load {
		args[i] = strings.NewReplacer("{archive}", archive, "{image}", ref).Replace(a)
	}
	// The archive is the command's standard input too, for a loader that
	// reads it there (the kind target's docker exec -i ... ctr import -).
	in, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer in.Close()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, &out, &out
	if m.asInvoker {
		privilege.AsInvokerInGroups(cmd)
	}
	// On the CPUs perfgate had before it was pinned to the load
	// generator's: a load runs between rounds, while nothing is measured.
	if err := affinity.Run(cmd); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("target kubernetes: kubernetes.image_load %v failed for %s: %w\n%s", m.load, ref, err, target.TextTail(out.String(), 2000))
	}
	return nil
}
