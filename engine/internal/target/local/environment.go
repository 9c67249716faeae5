package local

import (
	"fmt"
	"os"

	"github.com/perfgate/perfgate/engine/internal/privilege"
)

// serviceEnv is the whole environment of a service process: PATH, a HOME
// and TMPDIR of its own, then the config's service.env with its
// placeholders filled. Nothing else of perfgate's environment reaches the
// pull request's code: on a runner that would be GITHUB_TOKEN's
// neighbours (GITHUB_*, ACTIONS_*, INPUT_*, RUNNER_*), and locally
// whatever the developer's shell holds. A service that needs more says so
// in service.env.
func serviceEnv(path, dir string, configured []string) []string {
	env := []string{"PATH=" + path, "HOME=" + dir, "TMPDIR=" + dir}
	return append(env, configured...)
}

// privateDir makes the service's working directory (MkdirTemp's mode is
// 0700), owned by the user it runs as when perfgate is root.
func privateDir(user *privilege.User) (string, error) {
	dir, err := os.MkdirTemp("", "perfgate-service-")
	if err != nil {
		return "", fmt.Errorf("make the service's working directory: %w", err)
	}
	if user != nil {
		if err := os.Chown(dir, user.UID, user.GID); err != nil {
			os.Remove(dir)
			return "", fmt.Errorf("give the service's working directory to %s: %w", user, err)
		}
	}
	return dir, nil
}
