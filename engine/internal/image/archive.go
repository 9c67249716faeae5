// Package image builds the container images perfgate runs: one static
// binary in an otherwise empty file system (the equivalent of a Dockerfile
// `FROM scratch` + `COPY`), written as a docker-archive tarball. `docker
// load`, `ctr images import` and `kind load image-archive` all accept that
// format, so no registry, no base image and no Docker daemon are needed to
// build one, and every target ships the same bytes.
package image

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

// EntrypointPath is where the binary lives inside the image.
const EntrypointPath = "/app"

// epoch is every file's and the image's creation time, so the same binary
// always gives the same image ID and a rebuild is a no-op for the runtime.
var epoch = time.Unix(0, 0).UTC()

// Spec describes one image.
type Spec struct {
	// Ref is the name and tag, e.g. "perfgate/service:4f2a…". It must be a
	// valid reference with an explicit tag.
	Ref string
	// Binary is the static executable copied to EntrypointPath.
	Binary string
	// Labels end up in the image config (perfgate.run and friends), so
	// leftovers can be found and removed.
	Labels map[string]string
}

// Image is a written archive.
type Image struct {
	Ref string
	// ID is the config digest ("sha256:…"), which docker and containerd
	// report as the image ID.
	ID      string
	Archive string
}

// WriteArchive writes spec as a docker-archive tarball at path.
func WriteArchive(path string, spec Spec) (Image, error) {
	if err := checkRef(spec.Ref); err != nil {
		return Image{}, err
	}
	layer, err := layerTar(spec.Binary)
	if err != nil {
		return Image{}, err
	}
	layerDigest := sha256.Sum256(layer)
	config, err := json.Marshal(imageConfig(spec, "sha256:"+hex.EncodeToString(layerDigest[:])))
	if err != nil {
		return Image{}, err
	}
	configDigest := sha256.Sum256(config)
	configName := hex.EncodeToString(configDigest[:]) + ".json"
	layerName := hex.EncodeToString(layerDigest[:]) + "/layer.tar"
	manifest, err := json.Marshal([]map[string]any{{
		"Config": configName, "RepoTags": []string{spec.Ref}, "Layers": []string{layerName},
	}})
	if err != nil {
		return Image{}, err
	}

	f, err := os.Create(path)
	if err != nil {
		return Image{}, err
	}
	tw := tar.NewWriter(f)
	for _, entry := range []struct {
		name string
		data []byte
	}{{configName, config}, {layerName, layer}, {"manifest.json", manifest}} {
		if err = addFile(tw, entry.name, entry.data, 0o644); err != nil {
			break
		}
	}
	if err == nil {
		err = tw.Close()
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		os.Remove(path)
		return Image{}, fmt.Errorf("write image archive %s: %w", path, err)
	}
	return Image{Ref: spec.Ref, ID: "sha256:" + hex.EncodeToString(configDigest[:]), Archive: path}, nil
}

// imageConfig is the OCI/Docker image config: the entrypoint, a non-root
// user, and the single layer's diff ID.
func imageConfig(spec Spec, layerDiffID string) map[string]any {
	return map[string]any{
		"architecture": runtime.GOARCH,
		"os":           "linux",
		"created":      epoch.Format(time.RFC3339),
		"config": map[string]any{
			"Entrypoint": []string{EntrypointPath},
			// nobody: the service needs no privilege, and a scratch image
			// has no /etc/passwd to name it by.
			"User":   "65534:65534",
			"Env":    []string{"PATH=/", "TMPDIR=/tmp"},
			"Labels": spec.Labels,
		},
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{layerDiffID}},
	}
}

// layerTar is the image's file system: the binary and a world-writable /tmp
// (os.TempDir), nothing else.
func layerTar(binary string) ([]byte, error) {
	data, err := os.ReadFile(binary)
	if err != nil {
		return nil, fmt.Errorf("read the binary for the image: %w", err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "tmp/", Mode: 0o1777, ModTime: epoch, Format: tar.FormatPAX}); err != nil {
		return nil, err
	}
	if err := addFile(tw, strings.TrimPrefix(EntrypointPath, "/"), data, 0o755); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func addFile(tw *tar.Writer, name string, data []byte, mode int64) error {
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(data)), ModTime: epoch, Format: tar.FormatPAX}); err != nil {
		return err
	}
	_, err := tw.Write(data)
	return err
}

// checkRef accepts [host[:port]/]path:tag references with lower-case path
// components, the form perfgate generates from kubernetes.image_repository,
// so a bad repository gets a clear message rather than a confusing one
// from the runtime.
func checkRef(ref string) error {
	at := strings.LastIndex(ref, ":")
	if at < 0 || strings.Contains(ref[at:], "/") {
		return fmt.Errorf("image reference %q needs the form name:tag", ref)
	}
	name, tag := ref[:at], ref[at+1:]
	if name == "" || tag == "" || len(tag) > 128 || strings.ContainsAny(tag, "@") {
		return fmt.Errorf("image reference %q needs the form name:tag", ref)
	}
	host, path, hasHost := strings.Cut(name, "/")
	if !hasHost || !strings.ContainsAny(host, ".:") && host != "localhost" {
		host, path = "", name // no registry host: the whole name is a path
	}
	for _, r := range path {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/", r)) {
			return fmt.Errorf("image reference %q: the repository path may only hold lower-case letters, digits and . _ - /", ref)
		}
	}
	for _, r := range host {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".-:", r)) {
			return fmt.Errorf("image reference %q: %q is not a registry host like registry.example.com or localhost:5001", ref, host)
		}
	}
	return nil
}

// CheckStatic refuses a dynamically linked binary, which cannot run in a
// scratch image (no C library, no loader): build it with CGO_ENABLED=0.
func CheckStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%s is not a Linux executable: %w", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s is dynamically linked and cannot run in a FROM-scratch image; build it with CGO_ENABLED=0", path)
		}
	}
	return nil
}

// FileDigest is the hex SHA-256 of a file: image tags carry a prefix of
// the binary's, so the same build gets the same tag.
func FileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
