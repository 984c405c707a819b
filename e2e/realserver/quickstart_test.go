package realserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/shell"
)

// quickStart is the README's quick start, as a user copies it: the line
// that starts the server, the environment it exports, the line that makes
// the project, and the dev run.
type quickStart struct {
	start   []string // the script's arguments: start, then its options
	env     []string // NAME=value
	project string   // a shell line
	run     []string // dev's arguments
}

// readQuickStart reads the quick start from the README's "Quick start"
// section, so that the test runs what the README says.
func readQuickStart(t *testing.T) quickStart {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	at := strings.Index(text, "\n## Quick start\n")
	if at < 0 {
		t.Fatal("the README has no Quick start section")
	}
	section := text[at+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	var qs quickStart
	for _, line := range strings.Split(section, "\n") {
		line = strings.TrimSpace(stripComment.ReplaceAllString(line, ""))
		words, _, err := shell.Words(line)
		switch {
		case strings.HasPrefix(line, "scripts/llama-server.sh start "):
			if err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			qs.start = words[1:]
		case strings.HasPrefix(line, "export DEV_"):
			qs.env = strings.Fields(strings.TrimPrefix(line, "export "))
		case strings.HasPrefix(line, "mkdir ") && strings.Contains(line, "go mod init"):
			qs.project = line
		case strings.HasPrefix(line, "dev -p "):
			if err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			qs.run = words[1:]
		}
	}
	if qs.start == nil || qs.env == nil || qs.project == "" || qs.run == nil {
		t.Fatalf("the quick start lacks a step: %+v\n%s", qs, section)
	}
	return qs
}

// stripComment is a shell comment after a command: two spaces or more,
// then #.
var stripComment = regexp.MustCompile(`\s{2,}#.*$`)

// The README's quick start, run as written against the server and model it
// starts (SPEC §18): the server started by the script with the README's
// arguments (on a free port instead of 8080), the project made by its line
// in a home of its own, and `dev -p` with its prompt, as a new user runs
// it (no config.json): it exits 0 with an answer on stdout. The home's
// path is the same in every run, so that greedy decoding repeats the run.
func TestQuickStartAsWritten(t *testing.T) {
	requireServer(t)
	lockRepeatable(t)
	qs := readQuickStart(t)
	port := fmt.Sprint(freePort(t))
	args := append([]string{script}, qs.start...)
	for i := range args {
		if i > 0 && args[i-1] == "--port" {
			args[i] = port
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", args...)
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("starting the server as the README does (%q): %v\n%s%s", args, err, out, stderr.String())
	}
	t.Cleanup(func() { _ = exec.Command("bash", script, "stop", "--port", port).Run() })

	home := filepath.Join(repeatableRoot(), "quickstart")
	if err := os.RemoveAll(home); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(home) })
	agentHome := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8", "DEV_AGENT_HOME=" + agentHome}
	for _, kv := range qs.env {
		env = append(env, strings.ReplaceAll(kv, ":8080", ":"+port))
	}
	project := exec.Command("bash", "-c", qs.project)
	project.Env = env
	if out, err := project.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", qs.project, err, out)
	}

	dir := filepath.Join(home, "hello")
	run := exec.CommandContext(ctx, binary(t), qs.run...)
	run.Dir, run.Env = dir, env
	var stdout bytes.Buffer
	stderr.Reset()
	run.Stdout, run.Stderr = &stdout, &stderr
	start := time.Now()
	err := run.Run()
	code := run.ProcessState.ExitCode()
	t.Logf("dev %q: exit %d after %.1f s\nstdout: %q\nstderr:\n%s", qs.run, code, time.Since(start).Seconds(), stdout.String(), stderr.String())
	if err != nil || code != 0 || strings.TrimSpace(stdout.String()) == "" {
		t.Errorf("the README's quick start exits %d (%v), with stdout %q; it must exit 0 with the answer", code, err, stdout.String())
	}
	// What it cost: tokens per step, from the session's records.
	files, _ := filepath.Glob(filepath.Join(agentHome, "sessions", "*.json"))
	for _, f := range files {
		var s session
		if data, err := os.ReadFile(f); err == nil && json.Unmarshal(data, &s) == nil && s.ID != "" {
			for i, r := range s.Requests {
				t.Logf("request %d: %s, %d completion tokens, %.1f s, constrained %v", i+1, r.Purpose, r.CompletionTokens, float64(r.DurationMs)/1000, r.Constrained)
			}
		}
	}
}
