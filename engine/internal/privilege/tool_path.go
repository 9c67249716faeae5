package privilege

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// SecurePath is where perfgate looks for the tools it runs as root
// (docker, kind, kubectl), and the PATH it gives them. The Action runs
// `sudo --preserve-env env PATH=<the runner's PATH> perfgate`, and the
// runner's PATH has directories the job's user can write (~/go/bin,
// ~/.local/bin, tool caches): a pull request's build, which runs as that
// user, could put a `docker` there for root to run.
const SecurePath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// Tool returns the path of the command name that perfgate will run as
// itself. Not as root, it is exec.LookPath's answer: the user runs their
// own PATH's tools anyway. As root, name is searched on SecurePath only
// (or taken as given when absolute), and the file found and every
// directory above it must be owned by root and writable by no one else;
// otherwise the error says which path is not, and what to do. A tool not
// found at all wraps exec.ErrNotFound, so callers keep their own "not
// installed" message.
func Tool(name string) (string, error) {
	if os.Geteuid() != 0 {
		return exec.LookPath(name)
	}
	return rootTool(name, SecurePath)
}

func rootTool(name, searchPath string) (string, error) {
	path := name
	if !filepath.IsAbs(name) {
		if strings.ContainsRune(name, '/') {
			return "", fmt.Errorf("%s: perfgate runs as root and runs only tools named by an absolute path or found on %s; a relative path is neither", name, searchPath)
		}
		found, err := lookIn(name, searchPath)
		if err != nil {
			return "", err
		}
		path = found
	}
	if err := rootOnly(path); err != nil {
		return "", fmt.Errorf("%s: perfgate runs as root, so it runs %s only when root alone can change it, and %w; install %s in a root-owned directory such as /usr/local/bin (sudo install -o root -g root -m 755 ...)", name, path, err, filepath.Base(name))
	}
	return path, nil
}

// lookIn is exec.LookPath over searchPath instead of $PATH.
func lookIn(name, searchPath string) (string, error) {
	for _, dir := range filepath.SplitList(searchPath) {
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", &exec.Error{Name: name, Err: fmt.Errorf("%w on %s (perfgate runs as root and looks only there, not on the PATH it was given)", exec.ErrNotFound, searchPath)}
}

// rootOnly checks that path (a file), the directories that hold it, and
// the same for what its symbolic links lead to, are owned by root and not
// writable by group or others: nobody but root can replace what runs.
func rootOnly(path string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	for _, p := range []string{path, real} {
		for q := p; ; q = filepath.Dir(q) {
			if err := rootOwned(q); err != nil {
				return err
			}
			if q == "/" {
				break
			}
		}
	}
	return nil
}

// rootOwned checks one file or directory, not following a link.
func rootOwned(p string) error {
	info, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		// A link's own mode means nothing; its directory is checked.
		return nil
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return errors.New("its owner cannot be read")
	}
	if st.Uid != 0 {
		return fmt.Errorf("%s belongs to uid %d", p, st.Uid)
	}
	if info.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by group or others (mode %v)", p, info.Mode().Perm())
	}
	return nil
}

// ToolEnv is the environment for a tool Tool found: perfgate's own, and
// when perfgate runs as root, PATH set to SecurePath (kind runs docker,
// docker its credential helpers, from PATH), HOME set to root's and
// DOCKER_CONFIG dropped: the docker command line reads its config there,
// and a config the job's user can write names credential helpers, plugin
// directories and hooks that root would run. DOCKER_HOST still chooses
// the engine.
func ToolEnv() []string {
	env := os.Environ()
	if os.Geteuid() != 0 {
		return env
	}
	home := "/root"
	if pw, err := user.LookupId("0"); err == nil && pw.HomeDir != "" {
		home = pw.HomeDir
	}
	env = setEnv(setEnv(env, "PATH", SecurePath), "HOME", home)
	return slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "DOCKER_CONFIG=") })
}
