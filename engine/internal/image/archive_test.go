package image

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readTar(t *testing.T, data []byte) map[string]*tarEntry {
	t.Helper()
	entries := map[string]*tarEntry{}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return entries
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		entries[h.Name] = &tarEntry{header: h, body: body}
	}
}

type tarEntry struct {
	header *tar.Header
	body   []byte
}

func TestWriteArchiveIsALoadableDockerArchive(t *testing.T) {
	dir := t.TempDir()
	binary := filepath.Join(dir, "service")
	if err := os.WriteFile(binary, []byte("\x7fELF pretend binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	spec := Spec{Ref: "perfgate/service:abc123", Binary: binary, Labels: map[string]string{"perfgate.run": "r1"}}
	img, err := WriteArchive(filepath.Join(dir, "a.tar"), spec)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(img.Archive)
	outer := readTar(t, data)

	var manifest []struct {
		Config   string
		RepoTags []string
		Layers   []string
	}
	if err := json.Unmarshal(outer["manifest.json"].body, &manifest); err != nil || len(manifest) != 1 {
		t.Fatalf("manifest.json: %v %s", err, outer["manifest.json"].body)
	}
	m := manifest[0]
	if len(m.RepoTags) != 1 || m.RepoTags[0] != spec.Ref || len(m.Layers) != 1 {
		t.Fatalf("manifest %+v", m)
	}
	config := outer[m.Config].body
	sum := sha256.Sum256(config)
	if img.ID != "sha256:"+hex.EncodeToString(sum[:]) || m.Config != hex.EncodeToString(sum[:])+".json" {
		t.Errorf("image ID %s does not match the config digest of %s", img.ID, m.Config)
	}

	var cfg struct {
		OS     string
		Config struct {
			Entrypoint []string
			User       string
			Labels     map[string]string
		}
		RootFS struct {
			DiffIDs []string `json:"diff_ids"`
		}
	}
	if err := json.Unmarshal(config, &cfg); err != nil {
		t.Fatal(err)
	}
	layer := outer[m.Layers[0]].body
	layerSum := sha256.Sum256(layer)
	if cfg.OS != "linux" || cfg.Config.Entrypoint[0] != EntrypointPath || cfg.Config.Labels["perfgate.run"] != "r1" ||
		len(cfg.RootFS.DiffIDs) != 1 || cfg.RootFS.DiffIDs[0] != "sha256:"+hex.EncodeToString(layerSum[:]) {
		t.Errorf("config %+v", cfg)
	}
	if cfg.Config.User == "" || strings.HasPrefix(cfg.Config.User, "0") {
		t.Errorf("the service should not run as root, user %q", cfg.Config.User)
	}

	files := readTar(t, layer)
	app := files[strings.TrimPrefix(EntrypointPath, "/")]
	if app == nil || string(app.body) != "\x7fELF pretend binary" || app.header.Mode != 0o755 {
		t.Errorf("layer lacks the executable binary: %v", files)
	}
	if tmp := files["tmp/"]; tmp == nil || tmp.header.Mode != 0o1777 {
		t.Errorf("layer lacks a world-writable /tmp")
	}
	if len(files) != 2 {
		t.Errorf("the layer should hold only /app and /tmp, got %d entries", len(files))
	}

	again, err := WriteArchive(filepath.Join(dir, "b.tar"), spec)
	if err != nil || again.ID != img.ID {
		t.Errorf("the same binary gave image %s then %s (%v): builds must be reproducible", img.ID, again.ID, err)
	}
}

func TestWriteArchiveAcceptsRegistryReferences(t *testing.T) {
	for _, ref := range []string{"localhost:5001/perfgate/service:run-1", "registry.example.com/team/perfgate/service:abc", "perfgate/service:x"} {
		if err := checkRef(ref); err != nil {
			t.Errorf("%s: %v", ref, err)
		}
	}
}

func TestWriteArchiveRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ ref, binary, want string }{
		{"perfgate/service", "/bin/true", "name:tag"},
		{"localhost:5001/perfgate/service", "/bin/true", "name:tag"},
		{"bad_host.example.com/x:y", "/bin/true", "not a registry host"},
		{"Perfgate/Service:x", "/bin/true", "lower-case"},
		{"perfgate/service:x", filepath.Join(dir, "missing"), "read the binary"},
	} {
		_, err := WriteArchive(filepath.Join(dir, "x.tar"), Spec{Ref: tc.ref, Binary: tc.binary})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: error %v, want it to mention %q", tc.ref, tc.binary, err, tc.want)
		}
	}
}
