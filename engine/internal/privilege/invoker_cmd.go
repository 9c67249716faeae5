package privilege

import (
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"syscall"
)

// AsInvoker makes cmd run as the invoker when perfgate runs as root
// through sudo: building the pull request's code and running git in the
// invoker's checkout need no root. The build then uses the invoker's Go
// caches (warm on a runner whose setup-go restored them, where root's
// would be empty every job), and whatever it writes (module and build
// caches, git worktree bookkeeping in .git) stays the invoker's, so later
// steps and the next job of a persistent runner can change and delete it.
// HOME becomes the invoker's, from the password database, so that Go and
// git find the invoker's defaults. Without sudo cmd is left as it is.
// Call it after setting cmd.Env (nil means perfgate's environment).
// It has no supplementary groups: root's must not come along, and the
// invoker's (docker on a hosted runner, as good as root) are needed by
// none of these commands; AsInvokerInGroups is for the one that is.
func AsInvoker(cmd *exec.Cmd) {
	asInvoker(cmd, func(User) []uint32 { return []uint32{} })
}

// AsInvokerInGroups is AsInvoker with the invoker's own supplementary
// groups, never root's: kubernetes.image_load's `kind load` or `docker
// push` reaches the Docker socket through the invoker's docker group.
func AsInvokerInGroups(cmd *exec.Cmd) {
	asInvoker(cmd, groupsOf)
}

func asInvoker(cmd *exec.Cmd, groups func(User) []uint32) {
	u, ok := Invoker()
	if !ok {
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(u.UID), Gid: uint32(u.GID), Groups: groups(u)}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	if home := homeOf(u); home != "" {
		env = setEnv(env, "HOME", home)
	}
	cmd.Env = env
}

// GiveToInvoker makes path (not what is in it) the invoker's, under sudo:
// a directory perfgate creates for a command that AsInvoker runs.
func GiveToInvoker(path string) error {
	u, ok := Invoker()
	if !ok {
		return nil
	}
	return os.Lchown(path, u.UID, u.GID)
}

// groupsOf is u's supplementary groups from the group database: what a
// login of u would have. None when u has no entry (a bare uid).
func groupsOf(u User) []uint32 {
	groups := []uint32{}
	pw, err := user.LookupId(strconv.Itoa(u.UID))
	if err != nil {
		return groups
	}
	ids, err := pw.GroupIds()
	if err != nil {
		return groups
	}
	for _, id := range ids {
		if gid, err := strconv.ParseUint(id, 10, 32); err == nil && gid != 0 {
			groups = append(groups, uint32(gid))
		}
	}
	return groups
}

func homeOf(u User) string {
	if pw, err := user.LookupId(strconv.Itoa(u.UID)); err == nil {
		return pw.HomeDir
	}
	return ""
}

// setEnv replaces every key= entry of env with one key=value.
func setEnv(env []string, key, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return append(out, key+"="+value)
}
