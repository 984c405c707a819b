//go:build unix

package e2e

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The hostile audit table (issue 12): each row is one run of dev in which
// the auditor tries one command. Refused rows must be refused; allowed rows
// must run; and after every row the workspace, .git included, is byte for
// byte what it was before.
func TestHostileAuditCommands(t *testing.T) {
	const (
		refused = "refused"
		ran     = "ran"
	)
	rows := []struct {
		command, want string
		needs         string // a program the row needs, skipped without it
	}{
		// Options that run programs or write files, in every spelling.
		{command: `go test '-exec=rm -rf src victim.txt --' .`, want: refused},
		{command: `go test -exec 'rm -rf src' .`, want: refused},
		{command: `go test --exec=./evil.sh .`, want: refused},
		{command: `go vet '-vettool=./evil.sh' .`, want: refused},
		{command: `go vet -vettool ./evil.sh .`, want: refused},
		{command: `go build -toolexec ./evil.sh .`, want: refused},
		{command: `go build -ldflags=-extld=./evil.sh .`, want: refused},
		{command: `go test -coverprofile=cover.out .`, want: refused},
		{command: `go test -cpuprofile cpu.out .`, want: refused},
		{command: `go test "-memprofile" mem.out .`, want: refused},
		{command: `go test -trace=trace.out .`, want: refused},
		{command: `go test -c .`, want: refused},
		{command: `go test -o bin.test .`, want: refused},
		{command: `go test -outputdir=src -blockprofile=b.out .`, want: refused},
		{command: `go test . -args -test.coverprofile=c.out`, want: refused},
		{command: `go build -o app .`, want: refused},
		{command: `go test -mod=mod .`, want: refused},
		{command: `git diff '--output=x'`, want: refused},
		{command: `git diff --outp=x`, want: refused},
		{command: `git diff --o\utput=x`, want: refused},
		{command: `git log --output x`, want: refused},
		{command: `git show --ext-diff`, want: refused},
		{command: `git status -c core.fsmonitor=./evil.sh`, want: refused},
		{command: `pytest --basetemp=src`, want: refused},
		{command: `pytest --junitxml=report.xml`, want: refused},
		{command: `pytest --junit-xml report.xml`, want: refused},
		{command: `pytest --junitx=r.xml`, want: refused},
		{command: `pytest --resultlog=r.log`, want: refused},
		{command: `pytest --cov-report=html`, want: refused},
		{command: `pytest '-o' cache_dir=src`, want: refused},
		{command: `pytest --cache-clear`, want: refused},
		{command: `python -m pytest --basetemp=src`, want: refused},
		{command: `tree -o out.txt`, want: refused},
		{command: `make test SHELL=./evil.sh`, want: refused},
		{command: `make test -f evil.mk`, want: refused},
		{command: `npm test --script-shell=./evil.sh`, want: refused},
		{command: `cargo test --config 'target.x.runner=["./evil.sh"]'`, want: refused},
		// Shell syntax and commands outside the allowlist.
		{command: `rm -rf src`, want: refused},
		{command: `cat victim.txt; rm victim.txt`, want: refused},
		{command: `cat $(rm victim.txt)`, want: refused},
		{command: `cat victim.txt > src/lib.txt`, want: refused},
		{command: `sh -c 'rm -rf src'`, want: refused},
		{command: `sudo cat victim.txt`, want: refused},
		// Allowed commands run, and still leave everything as it was.
		{command: `git status`, want: ran}, // the index is stale: without GIT_OPTIONAL_LOCKS=0 git rewrites it
		{command: `git status --porcelain`, want: ran},
		{command: `git diff --stat`, want: ran},
		{command: `git log --oneline`, want: ran},
		{command: `go vet .`, want: ran},
		{command: `go build .`, want: ran}, // a main package: no binary may be left behind
		{command: `go test -count=1 .`, want: ran},
		{command: `pytest -q`, want: ran, needs: "pytest"},           // no .pytest_cache, no __pycache__
		{command: `python -m pytest -q`, want: ran, needs: "pytest"}, // python and its pytest module
		{command: `make test`, want: ran, needs: "make"},
		{command: `cat 'victim.txt'`, want: ran},
		{command: `wc -l *.go`, want: ran},
		{command: `grep -rn victim .`, want: ran},
	}
	for _, row := range rows {
		t.Run(row.command, func(t *testing.T) {
			if row.needs != "" {
				if _, err := exec.LookPath(row.needs); err != nil {
					t.Skipf("%s is not installed", row.needs)
				}
			}
			w := newWorld(t, map[string]any{"commandTimeout": 60})
			w.passToolEnv()
			w.victimRepo()
			w.srv.Script(
				// The worker rewrites a file with the bytes it has, so the
				// audit runs and the workspace stays as it was.
				reply("Touch up.", "WRITE_FILE", "done.txt\n```\ndone\n```"),
				done("Done."),
				auditorReply("COMMAND", row.command),
				verdict("Overall: PASS"),
			)
			before := snapshotTree(t, w.dir)
			r := w.run("-p", "do it")
			after := snapshotTree(t, w.dir)
			if r.code != 0 {
				t.Fatalf("exit code %d; stderr:\n%s", r.code, r.stderr)
			}
			if before != after {
				t.Errorf("the workspace changed:\n%s", diffLines(before, after))
			}
			reqs := w.srv.Requests()
			if len(reqs) != 4 {
				t.Fatalf("%d requests, want 4; stderr:\n%s", len(reqs), r.stderr)
			}
			got := lastUser(reqs[3])
			switch row.want {
			case refused:
				if !strings.Contains(got, "Refused") {
					t.Errorf("not refused:\n%s", got)
				}
			case ran:
				if !strings.Contains(got, "Command succeeded (exit code 0)") {
					t.Errorf("did not run, or failed:\n%s", got)
				}
			}
		})
	}
}

// passToolEnv gives dev's commands the toolchains' own settings (the
// harness keeps only PATH and a fresh HOME): the Go build cache, no Go
// toolchain download, and pyenv's root for its shims.
func (w *world) passToolEnv() {
	for _, name := range []string{"GOCACHE", "GOPATH", "GOMODCACHE", "PYENV_ROOT"} {
		v := os.Getenv(name)
		if v == "" && strings.HasPrefix(name, "GO") {
			out, err := exec.Command("go", "env", name).Output()
			if err == nil {
				v = strings.TrimSpace(string(out))
			}
		}
		if v != "" {
			w.extra = append(w.extra, name+"="+v)
		}
	}
	w.extra = append(w.extra, "GOTOOLCHAIN=local", "GOFLAGS=")
}

// victimRepo fills the workspace with a committed repository holding a Go
// main package with a test, a Python test, a Makefile, a script that would
// do damage if run, and a stale index (a tracked file rewritten with its
// own bytes), which `git status` refreshes when it may take locks.
func (w *world) victimRepo() {
	w.t.Helper()
	files := map[string]string{
		"go.mod":       "module victim\n\ngo 1.21\n",
		"main.go":      "package main\n\nfunc main() {}\n",
		"main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestOK(t *testing.T) {}\n",
		"test_ok.py":   "def test_ok():\n    assert True\n",
		"Makefile":     "test:\n\t@echo make test ran\n",
		"evil.mk":      "test:\n\ttouch pwned.txt\n",
		"src/lib.txt":  "library\n",
		"victim.txt":   "victim\n",
		"done.txt":     "done\n",
		"evil.sh":      "#!/bin/sh\necho pwned > pwned.txt\nrm -rf src victim.txt\n",
		"package.json": `{"name": "victim", "scripts": {"test": "echo npm test ran"}}` + "\n",
	}
	for name, content := range files {
		w.write(name, content)
	}
	if err := os.Chmod(filepath.Join(w.dir, "evil.sh"), 0o755); err != nil {
		w.t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "victim"}} {
		git := exec.Command("git", args...)
		git.Dir = w.dir
		if out, err := git.CombinedOutput(); err != nil {
			w.t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	w.write("main.go", files["main.go"])
}

// snapshotTree lists every entry under dir, .git included, with its mode
// and a digest of its bytes (a symbolic link: its target).
func snapshotTree(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		line := fmt.Sprintf("%s %v", rel, info.Mode())
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			line += " -> " + target
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %x", sha256.Sum256(data))
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// diffLines names the lines only in a or only in b.
func diffLines(a, b string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	ma, mb := in(a), in(b)
	var out []string
	for l := range ma {
		if !mb[l] {
			out = append(out, "- "+l)
		}
	}
	for l := range mb {
		if !ma[l] {
			out = append(out, "+ "+l)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}
