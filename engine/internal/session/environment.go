package session

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/perfgate/perfgate/engine/internal/report"
)

// hostEnvironment records the machine: CPU model and kernel matter when
// numbers from two runs of perfgate are put side by side.
func hostEnvironment(goVersion string) report.Environment {
	host, _ := os.Hostname()
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	return report.Environment{
		Host:      host,
		CPUModel:  cpuModel(),
		CPUs:      runtime.NumCPU(),
		Kernel:    strings.TrimSpace(string(kernel)),
		OS:        runtime.GOOS,
		Arch:      runtime.GOARCH,
		GoVersion: goVersion,
		Engine:    engineVersion(),
	}
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		if key, value, ok := strings.Cut(scanner.Text(), ":"); ok && strings.TrimSpace(key) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return "unknown"
}

func engineVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	version := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			version += " " + s.Value
		}
	}
	return version
}
