package privilege

import (
	"bufio"
	"os"
	"os/exec"
	"os/user"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// AsInvokerInGroups gives a command the invoker's own supplementary groups
// (kind load reaches Docker through the docker group), AsInvoker none, and
// neither root's. It needs a user with a supplementary group: the first
// member listed in /etc/group (postgres in ssl-cert where CI installs
// PostgreSQL, runner in docker on a runner).
func TestAsInvokerInGroupsGivesTheInvokersOwnGroups(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("under sudo perfgate is root; this needs root")
	}
	u, group := userWithSupplementaryGroup(t)
	t.Setenv("SUDO_UID", u.Uid)
	t.Setenv("SUDO_GID", u.Gid)
	groups := func(set func(*exec.Cmd)) []string {
		cmd := exec.Command("id", "-G")
		set(cmd)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Fields(string(out))
	}
	with, without := groups(AsInvokerInGroups), groups(AsInvoker)
	if !slices.Contains(with, group) {
		t.Errorf("AsInvokerInGroups: %s ran in groups %v, want its group %s among them", u.Username, with, group)
	}
	if slices.Contains(without, group) {
		t.Errorf("AsInvoker: %s ran in groups %v, want none but its own %s", u.Username, without, u.Gid)
	}
	for _, got := range [][]string{with, without} {
		if slices.Contains(got, "0") && u.Gid != "0" {
			t.Errorf("ran in groups %v: root's group came along", got)
		}
	}
}

// userWithSupplementaryGroup is the first non-root member of a group in
// /etc/group whose primary group is another, and that group's gid.
func userWithSupplementaryGroup(t *testing.T) (*user.User, string) {
	t.Helper()
	f, err := os.Open("/etc/group")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		fields := strings.Split(lines.Text(), ":")
		if len(fields) != 4 || fields[3] == "" {
			continue
		}
		gid, err := strconv.Atoi(fields[2])
		if err != nil || gid == 0 {
			continue
		}
		for _, name := range strings.Split(fields[3], ",") {
			u, err := user.Lookup(name)
			if err != nil || u.Uid == "0" || u.Gid == fields[2] {
				continue
			}
			return u, fields[2]
		}
	}
	t.Skip("no user on this machine has a supplementary group")
	return nil, ""
}
