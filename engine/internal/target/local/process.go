package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/perfgate/perfgate/engine/internal/cgroup"
	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/privilege"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// stopGrace is how long a service gets to shut down after SIGTERM before
// its process group is killed.
const stopGrace = 3 * time.Second

// portAttempts bounds retries when another program takes the chosen port
// between perfgate picking it and the service binding it.
const portAttempts = 3

type process struct {
	t     *Target
	cmd   *exec.Cmd
	group *cgroup.Group
	dir   string // the service's private working directory
	url   string
	// pprofURL is the service's pprof listener, when it has one of its
	// own (target.Spec.SeparatePprof); empty otherwise.
	pprofURL string
	stdout   *target.TailLog
	stderr   *target.TailLog

	exited   chan struct{}
	waitErr  error
	stopOnce sync.Once
	exit     target.Exit
}

// Start runs a fresh service process on a free loopback port and returns
// once it answers its readiness path, or as soon as it dies.
func (t *Target) Start(ctx context.Context, spec target.Spec) (target.Instance, error) {
	for attempt := 1; ; attempt++ {
		p, err := t.startOnce(ctx, spec)
		if err == nil {
			return p, nil
		}
		var se *target.StartError
		if attempt < portAttempts && errors.As(err, &se) && strings.Contains(se.Exit.StderrTail, "address already in use") {
			continue
		}
		return nil, err
	}
}

func (t *Target) startOnce(ctx context.Context, spec target.Spec) (*process, error) {
	l, err := listenAddresses(spec.SeparatePprof)
	if err != nil {
		return nil, err
	}
	p := &process{t: t, url: "http://" + l.Addr, exited: make(chan struct{})}
	if spec.SeparatePprof {
		p.pprofURL = "http://" + l.PprofAddr
	}
	if err := p.launch(spec, l); err != nil {
		p.Stop()
		return nil, err
	}
	if err := target.WaitReady(ctx, p.url, spec, p.exited, func() string { return fmt.Sprint(p.waitErr) }); err != nil {
		exit := p.Stop()
		if se := (*target.StartError)(nil); errors.As(err, &se) {
			se.Exit = exit
		}
		return nil, err
	}
	return p, nil
}

func (p *process) launch(spec target.Spec, l config.Listen) error {
	var err error
	if p.stdout, err = target.CreateTailLog(filepath.Join(spec.LogDir, "stdout.log"), target.LogLimit); err != nil {
		return err
	}
	if p.stderr, err = target.CreateTailLog(filepath.Join(spec.LogDir, "stderr.log"), target.LogLimit); err != nil {
		return err
	}
	shim := shimSpec{Binary: spec.Binary, CPUs: p.t.placement.Service, User: privilege.ServiceUser()}
	if shim.Dir, err = privateDir(shim.User); err != nil {
		return err
	}
	p.dir = shim.Dir
	if p.t.hierarchy != nil {
		if p.group, err = p.t.hierarchy.Create(p.t.limits); err != nil {
			return fmt.Errorf("create the run's cgroup: %w", err)
		}
		shim.ProcsFiles = p.group.ProcsFiles()
	}
	encoded, _ := json.Marshal(shim)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	p.cmd = exec.Command(self, spec.Args(l)...)
	p.cmd.Env = serviceEnv(os.Getenv("PATH"), p.dir, spec.Env(l))
	if p.t.userGOMAXPROCS == "" {
		p.cmd.Env = append(p.cmd.Env, fmt.Sprintf("GOMAXPROCS=%d", p.t.gomaxprocs))
	}
	p.cmd.Env = append(p.cmd.Env, shimEnv+"="+string(encoded))
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	// The logs go through pipes (to keep their tails): once the service
	// exits, a descendant still holding them must not hold Wait.
	p.cmd.WaitDelay = time.Second
	// Its own process group, so Stop reaches anything the service starts;
	// Pdeathsig so it does not outlive a perfgate killed with SIGKILL.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", spec.Binary, err)
	}
	p.t.live.Track(p, true)
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	return nil
}

func (p *process) BaseURL() string         { return p.url }
func (p *process) PprofURL() string        { return p.pprofURL }
func (p *process) Exited() <-chan struct{} { return p.exited }

func (p *process) Counters() (target.Counters, error) {
	return target.ReadCounters(p.cmd.Process.Pid, p.group)
}

// Stop sends SIGTERM to the process group, then SIGKILL after stopGrace,
// records how the process ended and removes its cgroup.
func (p *process) Stop() target.Exit {
	p.stopOnce.Do(func() {
		if p.cmd != nil && p.cmd.Process != nil {
			select {
			case <-p.exited:
				p.exit.ExitedOnItsOwn = true
			default:
				_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
				select {
				case <-p.exited:
				case <-time.After(stopGrace):
					_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
					<-p.exited
				}
			}
			// Whatever the service left in its group dies with it.
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			p.recordExitStatus()
			p.t.live.Track(p, false)
		}
		if p.group != nil {
			if s, err := p.group.Stats(); err == nil && s.OOMKills > 0 {
				p.exit.OOMKilled = true
			}
			if err := p.group.Remove(); err != nil {
				p.t.Warn("the service's cgroup was not removed (%v); it holds no process, and the next perfgate run on this host removes it", err)
			}
		}
		if p.dir != "" {
			_ = os.RemoveAll(p.dir)
		}
		for _, f := range []*target.TailLog{p.stdout, p.stderr} {
			if f != nil {
				f.Close()
			}
		}
		if p.stderr != nil {
			p.exit.StderrTail = target.FileTail(p.stderr.Name(), 20, 4096)
		}
	})
	return p.exit
}

func (p *process) recordExitStatus() {
	state := p.cmd.ProcessState
	if state == nil {
		return
	}
	p.exit.Code = state.ExitCode()
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		p.exit.Signal = ws.Signal().String()
	}
}

// listenAddresses picks a free loopback port for the service, and a second
// one for its pprof listener when it has one of its own.
func listenAddresses(separatePprof bool) (config.Listen, error) {
	port, err := freePort()
	if err != nil {
		return config.Listen{}, err
	}
	l := config.Listen{Addr: fmt.Sprintf("127.0.0.1:%d", port), Port: port}
	if !separatePprof {
		return l, nil
	}
	for l.PprofPort == 0 || l.PprofPort == port {
		if l.PprofPort, err = freePort(); err != nil {
			return config.Listen{}, err
		}
	}
	l.PprofAddr = fmt.Sprintf("127.0.0.1:%d", l.PprofPort)
	return l, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
