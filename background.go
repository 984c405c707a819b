package main

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/devagent/dev/bgproc"
	"github.com/devagent/dev/loop"
	"github.com/devagent/dev/reaper"
)

// background is this dev process's manager of background processes, wired
// to the renderers: starts and exits become loop events. stop ends every
// process dev started, once, and says so on stderr; it runs on every way
// out (normal end, error, Ctrl+C, a second Ctrl+C, SIGTERM).
type background struct {
	*bgproc.Manager
	groups *reaper.Reaper // every command's process group
	stop   func()
}

func newBackground(sink loop.Sink, stderr io.Writer, groups *reaper.Reaper) *background {
	m := bgproc.New(bgproc.Options{
		OnStart: func(i bgproc.Info) {
			sink.Emit(loop.BackgroundStarted{ID: i.ID, Command: i.Command, PID: i.PID})
		},
		OnExit: func(i bgproc.Info) {
			sink.Emit(loop.BackgroundExited{ID: i.ID, Command: i.Command, Status: i.Status.String(), ExitCode: i.ExitCode, Runtime: i.Runtime})
		},
	})
	return &background{Manager: m, groups: groups, stop: sync.OnceFunc(func() {
		for _, i := range m.Shutdown() {
			command, _, more := strings.Cut(strings.TrimSpace(i.Command), "\n")
			if more {
				command += " …"
			}
			fmt.Fprintf(stderr, "dev: stopped background process %s on exit: %s\n", i.ID, command)
		}
		groups.StopAll(m.Grace()) // what finished commands left behind
	})}
}
