// Package privilege says whom perfgate acts for when it runs as root. The
// engine needs root for cgroups (GitHub's runners give it through `sudo
// -n`), but the code it measures is the pull request's: the service runs
// as the invoking user, or as nobody when root invoked perfgate directly,
// and the results go back to the invoking user, so that a persistent
// self-hosted runner can delete them in its next job.
package privilege

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// User is a numeric identity; scratch images and minimal systems may not
// name it in /etc/passwd.
type User struct {
	UID, GID int
}

// Nobody is the overflow user and group of Linux (nobody, nogroup).
var Nobody = User{UID: 65534, GID: 65534}

func (u User) String() string { return fmt.Sprintf("uid %d gid %d", u.UID, u.GID) }

// Invoker is the user who ran `sudo perfgate`, from SUDO_UID and SUDO_GID,
// when perfgate runs as root through sudo; ok is false otherwise (not
// root, root by itself, or root through sudo by root).
func Invoker() (u User, ok bool) {
	if os.Geteuid() != 0 {
		return User{}, false
	}
	return invokerFrom(os.Getenv)
}

func invokerFrom(getenv func(string) string) (User, bool) {
	uid, errU := strconv.Atoi(getenv("SUDO_UID"))
	gid, errG := strconv.Atoi(getenv("SUDO_GID"))
	if errU != nil || errG != nil || uid <= 0 || gid < 0 {
		return User{}, false
	}
	return User{UID: uid, GID: gid}, true
}

// ServiceUser is whom the service must run as: nil when perfgate is not
// root (the service then runs as perfgate's own user, which is already
// unprivileged), the invoker under sudo, and nobody when root started
// perfgate directly.
func ServiceUser() *User {
	if os.Geteuid() != 0 {
		return nil
	}
	if u, ok := Invoker(); ok {
		return &u
	}
	u := Nobody
	return &u
}

// started is when this process began: GiveBack hands over only what it
// wrote since.
var started = time.Now()

// GiveBack gives what this perfgate wrote in dir (entries owned by root
// and changed since it started) to the invoker, when perfgate runs as root
// through sudo; otherwise it does nothing. Anything older in dir, say
// from `--out /` by mistake, keeps its owner. Symbolic links are changed
// themselves, never followed.
func GiveBack(dir string) error {
	u, ok := Invoker()
	if !ok {
		return nil
	}
	return chownTree(dir, u, started)
}
