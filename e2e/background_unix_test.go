//go:build unix

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/devagent/dev/bgproc/bgproctest"
	"github.com/devagent/dev/llm/llmtest"
)

var procIDRE = regexp.MustCompile(`proc_[a-z0-9]{6}`)

// runWatched is run with stdin, with stderr readable while dev runs.
func (w *world) runWatched(stderr *syncBuffer, stdin string, args ...string) result {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd, stdout, _ := w.command(ctx, args...)
	cmd.Stderr = stderr
	cmd.Stdin = strings.NewReader(stdin)
	err := cmd.Run()
	code := 0
	if err != nil {
		exit, ok := err.(interface{ ExitCode() int })
		if !ok {
			w.t.Fatalf("running dev %q: %v", args, err)
		}
		code = exit.ExitCode()
	}
	if ctx.Err() != nil {
		w.t.Fatalf("dev %q did not finish in time; stderr:\n%s", args, stderr)
	}
	return result{stdout.String(), stderr.String(), code}
}

// await polls cond from a scripted response until it holds, the request
// ends or 30 s pass; it reports whether cond held.
func await(ctx context.Context, cond func() bool) bool {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
	return true
}

// idFrom is the first background id in the request's last user message.
func idFrom(t *testing.T, req llmtest.Request) string {
	id := procIDRE.FindString(lastUser(req))
	if id == "" {
		t.Errorf("no background id in %q", lastUser(req))
	}
	return id
}

// A command outliving a 1 s timeout moves to the background; the model
// lists it, reads what it printed after the handover, then its exit code.
func TestBackgroundCommandReadAndList(t *testing.T) {
	w := newWorld(t, map[string]any{"commandTimeout": 1})
	stderr := &syncBuffer{}
	const command = "mkfifo release && echo before && read x < release && echo after $x && exit 7"
	var id string
	w.srv.Script(
		reply("Start it.", "COMMAND", command),
		llmtest.Response{Respond: func(_ context.Context, req llmtest.Request) llmtest.Response {
			id = idFrom(t, req)
			return llmtest.Response{Content: llmtest.Template("List, then let it finish.", "",
				llmtest.Call{Tool: "LIST_BACKGROUND_PROCESSES"}, llmtest.Call{Tool: "COMMAND", Input: "echo released > release"})}
		}},
		llmtest.Response{Respond: func(ctx context.Context, _ llmtest.Request) llmtest.Response {
			if !await(ctx, func() bool { return strings.Contains(stderr.String(), id+" exited with code 7") }) {
				t.Errorf("no exit event on stderr:\n%s", stderr)
			}
			return reply("Read it.", "READ_BACKGROUND_PROCESS", id)
		}},
		done("It printed after released and exited with 7."),
	)
	r := w.runWatched(stderr, "", "--no-audit", "-p", "run it in the background", "--json")
	r.expect(t, 0)
	if !regexp.MustCompile(`^proc_[a-z0-9]{6}$`).MatchString(id) {
		t.Fatalf("id %q", id)
	}

	reqs := w.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	handover := lastUser(reqs[1])
	if want := `<tool_result tool="COMMAND" ok="true" background="` + id + `">` + "\nCommand still running after 1 s: it goes on in the background as " + id + ". Output so far:\nbefore\nREAD_BACKGROUND_PROCESS " + id; !strings.Contains(handover, want) {
		t.Errorf("handover result %q lacks %q", handover, want)
	}
	list := lastUser(reqs[2])
	if !regexp.MustCompile(id + ` \(running for \ds\): ` + regexp.QuoteMeta(command)).MatchString(list) {
		t.Errorf("LIST result: %q", list)
	}
	read := lastUser(reqs[3])
	if want := regexp.MustCompile(`(?s)<tool_result tool="READ_BACKGROUND_PROCESS" ok="true">\n` + id + ` \(mkfifo release && echo before && read x < release && echo a…\): exited with code 7 after \ds\. New output:\nafter released\n</tool_result>`); !want.MatchString(read) {
		t.Errorf("READ result: %q", read)
	}

	var types []string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev struct {
			Type, ID, Command, Status string
			PID, ExitCode             int
			RuntimeSeconds            float64
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("stdout line is not JSON: %s", line)
		}
		types = append(types, ev.Type)
		switch ev.Type {
		case "background_start":
			if ev.ID != id || ev.Command != command || ev.PID <= 0 {
				t.Errorf("background_start: %s", line)
			}
		case "background_exit":
			if ev.ID != id || ev.Status != "exited" || ev.ExitCode != 7 || ev.RuntimeSeconds < 1 {
				t.Errorf("background_exit: %s", line)
			}
		}
	}
	joined := strings.Join(types, " ")
	if !strings.Contains(joined, "tool_start background_start tool_result") || strings.Count(joined, "background_exit") != 1 || types[len(types)-1] != "result" {
		t.Errorf("event order: %s", joined)
	}
	if !strings.Contains(r.stderr, "◇ "+id+" runs in the background: mkfifo release") || strings.Contains(r.stderr, "stopped background process") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

func TestBackgroundProcessStoppedWhenDevExits(t *testing.T) {
	w := newWorld(t, map[string]any{"commandTimeout": 1})
	w.srv.Script(reply("Sleep.", "COMMAND", "echo $$ > pid; exec sleep 300"), done("Left it sleeping."))
	r := w.run("--no-audit", "-p", "sleep in the background")
	r.expect(t, 0)
	pid := bgproctest.PID(t, filepath.Join(w.dir, "pid"))
	id := procIDRE.FindString(lastUser(w.srv.Requests()[1]))
	if want := "dev: stopped background process " + id + " on exit: echo $$ > pid; exec sleep 300\n"; id == "" || !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	if r.stdout != "Left it sleeping.\n" {
		t.Errorf("stdout %q", r.stdout)
	}
	// dev waits for what it stops: the process is gone when dev is.
	if !bgproctest.Gone(pid) {
		t.Errorf("the backgrounded sleep 300 (pid %d) still runs after dev exited", pid)
	}
}

// KILL ends the process group: the child, which ignores nothing special,
// is gone, before dev exits.
func TestKillBackgroundProcessGroup(t *testing.T) {
	w := newWorld(t, map[string]any{"commandTimeout": 1})
	stderr := &syncBuffer{}
	childPid := filepath.Join(w.dir, "child.pid")
	w.srv.Script(
		reply("Serve.", "COMMAND", "sh -c 'echo $$ > child.pid; exec sleep 300' & wait"),
		llmtest.Response{Respond: func(ctx context.Context, req llmtest.Request) llmtest.Response {
			id := idFrom(t, req)
			await(ctx, func() bool { b, err := os.ReadFile(childPid); return err == nil && bytes.HasSuffix(b, []byte("\n")) })
			return reply("Stop it.", "KILL_BACKGROUND_PROCESS", id)
		}},
		done("Stopped."),
	)
	r := w.runWatched(stderr, "", "--no-audit", "-p", "serve, then stop")
	r.expect(t, 0)
	id := procIDRE.FindString(lastUser(w.srv.Requests()[1]))
	kill := lastUser(w.srv.Requests()[2])
	if want := regexp.MustCompile(`<tool_result tool="KILL_BACKGROUND_PROCESS" ok="true">\n` + id + ` \(.*\) stopped on TERM after \ds, with its whole process group\.\n</tool_result>`); !want.MatchString(kill) {
		t.Errorf("KILL result: %q", kill)
	}
	if !strings.Contains(r.stderr, "◇ "+id+" killed after ") || strings.Contains(r.stderr, "stopped background process") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	pid := bgproctest.PID(t, filepath.Join(w.dir, "child.pid"))
	bgproctest.WaitFor(t, "the child to be gone", func() bool { return bgproctest.Gone(pid) })
}

// SIGTERM, and Ctrl+C twice (the second exits at once), stop what dev
// started; the second case's process ignores TERM and needs KILL.
func TestBackgroundStoppedOnSignals(t *testing.T) {
	for _, tt := range []struct {
		name    string
		signals []os.Signal
		command string
	}{
		{"SIGTERM", []os.Signal{syscall.SIGTERM}, "echo $$ > pid; exec sleep 300"},
		{"Ctrl+C twice", []os.Signal{syscall.SIGINT, syscall.SIGINT}, "trap '' TERM; echo $$ > pid; sleep 300 & wait"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, map[string]any{"commandTimeout": 1})
			w.srv.Script(reply("Sleep.", "COMMAND", tt.command), llmtest.Response{Content: "# Agent", Hang: true})
			cmd, _, stderr := w.startUntilHanging("--no-audit", "-p", "sleep, then wait")
			for _, s := range tt.signals {
				if err := cmd.Process.Signal(s); err != nil {
					t.Fatal(err)
				}
			}
			if code := exitCode(t, cmd); code != 130 {
				t.Fatalf("exit code %d, want 130; stderr:\n%s", code, stderr)
			}
			if !strings.Contains(stderr.String(), "dev: stopped background process proc_") {
				t.Errorf("stderr:\n%s", stderr)
			}
			pid := bgproctest.PID(t, filepath.Join(w.dir, "pid"))
			bgproctest.WaitFor(t, "the background process to be gone", func() bool { return bgproctest.Gone(pid) })
		})
	}
}

func TestBackgroundKeptAcrossInteractiveTurns(t *testing.T) {
	w := newWorld(t, map[string]any{"commandTimeout": 1})
	stderr := &syncBuffer{}
	w.srv.Script(
		reply("Start.", "COMMAND", "echo $$ > pid; echo serving; exec sleep 300"),
		done("Started."),
		llmtest.Response{Respond: func(_ context.Context, req llmtest.Request) llmtest.Response {
			var id string // the last one: the system prompt's example comes first
			for _, m := range req.Messages {
				if found := procIDRE.FindAllString(m.Content, -1); len(found) > 0 {
					id = found[len(found)-1]
				}
			}
			return reply("Check it.", "READ_BACKGROUND_PROCESS", id)
		}},
		done("Still serving."),
	)
	r := w.runWatched(stderr, "start the server\nis it still up?\n", "--no-audit")
	r.expect(t, 0)
	reqs := w.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	id := procIDRE.FindString(lastUser(reqs[1]))
	if want := regexp.MustCompile(id + ` \(echo \$\$ > pid; echo serving; exec sleep 300\): running for \ds\. No new output since the last read\.`); id == "" || !want.MatchString(lastUser(reqs[3])) {
		t.Errorf("READ in the second turn: %q", lastUser(reqs[3]))
	}
	if !strings.Contains(r.stderr, "dev: stopped background process "+id+" on exit") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	if pid := bgproctest.PID(t, filepath.Join(w.dir, "pid")); !bgproctest.Gone(pid) {
		t.Errorf("pid %d still runs after dev exited", pid)
	}
}

// A COMMAND ending with a lone & (a server) goes to the background at once,
// not after commandTimeout (here a minute): the result gives its id and
// its first second of output. Before, the shell backgrounded it, dev said
// the command succeeded, and nothing it printed afterwards was captured.
func TestCommandEndingWithAmpersandStartsInTheBackground(t *testing.T) {
	w := newWorld(t, map[string]any{"commandTimeout": 60})
	w.srv.Script(
		reply("Start the server.", "COMMAND", "echo serving on 8080 && exec sleep 300 &"),
		reply("Look.", "LIST_BACKGROUND_PROCESSES", ""),
		reply("A quick one.", "COMMAND", "echo quick &"),
		done("Started."),
	)
	r := w.run("--no-audit", "-p", "start the server")
	r.expect(t, 0)
	reqs := w.srv.Requests()
	started := lastUser(reqs[1])
	id := procIDRE.FindString(started)
	if !strings.Contains(started, "Started in the background as "+id+" (the command ends with &). Its output in the first 1 s:\nserving on 8080\n") {
		t.Errorf("the result:\n%s", started)
	}
	if list := lastUser(reqs[2]); id == "" || !strings.Contains(list, id+" (running for") || !strings.Contains(list, "echo serving on 8080 && exec sleep 300") {
		t.Errorf("LIST result:\n%s", list)
	}
	if quick := lastUser(reqs[3]); !strings.Contains(quick, "Command succeeded (exit code 0).\nquick\n") || !strings.Contains(quick, "It ended within its first 1 s, so it did not go on in the background.") {
		t.Errorf("a command that ends at once:\n%s", quick)
	}
	if !strings.Contains(r.stderr, "stopped background process "+id) {
		t.Errorf("the server was not stopped when dev ended:\n%s", r.stderr)
	}
}
