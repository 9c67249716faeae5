package history

import (
	"path/filepath"
	"strings"
)

// ConfigName is the history file's name (without .jsonl) for a
// perfgate.yml at path, relative to the checkout's root: the path with its
// extension dropped, "/" turned into "-", lower-cased, and every byte
// outside [a-z0-9._-] turned into "_". "perfgate.yml" is "perfgate",
// "services/api/perfgate.yml" is "services-api-perfgate". A path outside
// the checkout has only its base name.
func ConfigName(path string) string {
	path = filepath.ToSlash(filepath.Clean(path))
	if strings.HasPrefix(path, "../") || filepath.IsAbs(path) {
		path = filepath.Base(path)
	}
	path = strings.TrimSuffix(strings.TrimSuffix(path, ".yml"), ".yaml")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.ReplaceAll(path, "/", "-")) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '.' || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteRune('_')
		}
	}
	name := strings.TrimLeft(b.String(), ".")
	if name == "" {
		return "perfgate"
	}
	return name
}

// ConfigNameIn is ConfigName of configPath relative to the checkout at
// src when it lies inside it, else of its base name.
func ConfigNameIn(configPath, src string) string {
	absConfig, err1 := filepath.Abs(configPath)
	absSrc, err2 := filepath.Abs(src)
	if err1 == nil && err2 == nil {
		if rel, err := filepath.Rel(absSrc, absConfig); err == nil && !strings.HasPrefix(rel, "..") {
			return ConfigName(rel)
		}
	}
	return ConfigName(filepath.Base(configPath))
}
