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

// The audit's git runs no program the repository's own configuration
// names (SPEC §4, issue 22): each set-up plants programs that would leave
// a marker if they ran, and the auditor runs git status, git diff, git
// log -p and git show. In the last set-up the worker plants the program
// itself. No marker may appear.
func TestAuditGitRunsNoRepositoryProgram(t *testing.T) {
	setups := []struct {
		name  string
		plant func(t *testing.T, w *world, evil func(name string) string) []string // the programs planted
		// worker is the worker's first step (it changes a file, so the
		// audit runs).
		worker string
	}{
		{name: "config", plant: plantConfig},
		{name: "lazy fetch", plant: plantLazyFetch},
		{name: "submodule", plant: plantSubmodule},
		{name: "planted by the worker", plant: plantNothing, worker: "printf '#!/bin/sh\\ntouch \"$MARKERS/fsmonitor-by-worker\"\\nexit 1\\n' > .git/w.sh && chmod +x .git/w.sh && git config core.fsmonitor \"$PWD/.git/w.sh\" && git config diff.external \"$PWD/.git/w.sh\" && echo changed >> a.txt"},
	}
	for _, s := range setups {
		t.Run(s.name, func(t *testing.T) {
			w := newWorld(t, map[string]any{"commandTimeout": 30})
			markers := t.TempDir()
			w.extra = append(w.extra, "MARKERS="+markers)
			evil := func(name string) string {
				p := filepath.Join(w.dir, ".git", "evil-"+name)
				script := fmt.Sprintf("#!/bin/sh\ntouch '%s'\nexit 1\n", filepath.Join(markers, name))
				if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
					t.Fatal(err)
				}
				return p
			}
			gitRun(t, w.dir, "init", "-q")
			w.write("a.txt", "alpha\n")
			planted := s.plant(t, w, evil)
			worker := reply("Touch up.", "WRITE_FILE", "done.txt\n```\ndone\n```")
			if s.worker != "" {
				worker = reply("Plant.", "COMMAND", s.worker)
				planted = append(planted, "fsmonitor-by-worker")
			}
			w.srv.Script(
				worker,
				done("Done."),
				auditorReply("COMMAND", "git status"),
				auditorReply("COMMAND", "git diff"),
				auditorReply("COMMAND", "git log -p"),
				auditorReply("COMMAND", "git show"),
				auditorReply("COMMAND", "git diff HEAD~1"),
				verdict("Overall: PASS"),
			)
			r := w.run("-p", "do it")
			r.expect(t, 0)
			entries, err := os.ReadDir(markers)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				t.Errorf("the repository's program %q ran", e.Name())
			}
			t.Logf("%d of %d planted programs ran: %v", len(entries), len(planted), planted)
			reqs := w.srv.Requests()
			if len(reqs) != 8 {
				t.Fatalf("%d requests, want 8; stderr:\n%s", len(reqs), r.stderr)
			}
			if s.name == "config" {
				// The audit still sees the change, in plain text.
				if got := lastUser(reqs[4]); !strings.Contains(got, "+beta") || !strings.Contains(got, "exit code 0") {
					t.Errorf("git diff did not show the change:\n%s", got)
				}
			}
		})
	}
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	git := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "protocol.file.allow=always", "-c", "commit.gpgsign=false"}, args...)...)
	git.Dir = dir
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func plantNothing(t *testing.T, w *world, _ func(string) string) []string {
	gitRun(t, w.dir, "add", ".")
	gitRun(t, w.dir, "commit", "-qm", "one")
	w.write("a.txt", "alpha\nbeta\n")
	gitRun(t, w.dir, "commit", "-qam", "two")
	return nil
}

// plantConfig names a program in every key of .git/config (and of a file
// it includes) that git status, diff, log and show might run, with a
// .gitattributes that gives the files drivers, changed files for them to
// work on, and a signed commit for log.showSignature.
func plantConfig(t *testing.T, w *world, evil func(string) string) []string {
	files := map[string]string{
		"b.t1": "textconv\n", "c.t2": "diff driver\n", "d.f1": "clean filter\n", "e.f2": "process filter\n", "f.f3": "included filter\n",
		".gitattributes": "*.t1 diff=tx\n*.t2 diff=dx\n*.f1 filter=fx\n*.f2 filter=px\n*.f3 filter=ix\n",
	}
	for name, content := range files {
		w.write(name, content)
	}
	gitRun(t, w.dir, "add", ".")
	gitRun(t, w.dir, "commit", "-qm", "one")
	// A second commit, signed as far as git can tell, for log.showSignature.
	tree := strings.TrimSpace(gitOut(t, w.dir, "rev-parse", "HEAD^{tree}"))
	parent := strings.TrimSpace(gitOut(t, w.dir, "rev-parse", "HEAD"))
	commit := fmt.Sprintf("tree %s\nparent %s\nauthor t <t@t> 1700000000 +0000\ncommitter t <t@t> 1700000000 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nsigned\n", tree, parent)
	obj := filepath.Join(t.TempDir(), "commit")
	if err := os.WriteFile(obj, []byte(commit), 0o644); err != nil {
		t.Fatal(err)
	}
	signed := strings.TrimSpace(gitOut(t, w.dir, "hash-object", "-t", "commit", "-w", obj))
	gitRun(t, w.dir, "update-ref", "HEAD", signed)
	// Same-size changes: git must read the files to see them.
	for name, content := range files {
		if !strings.HasPrefix(name, ".") {
			w.write(name, strings.ToUpper(content[:1])+content[1:])
		}
	}
	w.write("a.txt", "alpha\nbeta\n")
	hooks := filepath.Join(w.dir, ".git", "evil-hooks")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, hook := range []string{"post-index-change", "post-checkout", "reference-transaction"} {
		if err := os.Symlink(evil("hook-"+hook), filepath.Join(hooks, hook)); err != nil {
			t.Fatal(err)
		}
	}
	included := filepath.Join(w.dir, ".git", "included")
	if err := os.WriteFile(included, []byte("[filter \"ix\"]\n\tclean = "+evil("included-clean")+"\n\tsmudge = "+evil("included-smudge")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	settings := [][2]string{
		{"core.fsmonitor", evil("fsmonitor")},
		{"core.hooksPath", hooks},
		{"core.pager", evil("core-pager")},
		{"pager.status", evil("pager-status")},
		{"pager.diff", evil("pager-diff")},
		{"pager.log", evil("pager-log")},
		{"pager.show", evil("pager-show")},
		{"diff.external", evil("diff-external")},
		{"diff.tx.textconv", evil("textconv")},
		{"diff.dx.command", evil("diff-driver")},
		{"filter.fx.clean", evil("clean")},
		{"filter.fx.smudge", evil("smudge")},
		{"filter.fx.required", "true"},
		{"filter.px.process", evil("process")},
		{"log.showSignature", "true"},
		{"gpg.program", evil("gpg")},
		{"gpg.openpgp.program", evil("gpg-openpgp")},
		{"include.path", included},
	}
	var planted []string
	for _, kv := range settings {
		gitRun(t, w.dir, "config", kv[0], kv[1])
		if strings.Contains(kv[1], "evil-") || kv[0] == "core.hooksPath" || kv[0] == "include.path" {
			planted = append(planted, kv[0])
		}
	}
	return planted
}

// plantLazyFetch makes the repository a partial clone missing a blob,
// whose promisor remote is a program (the ext transport): reading the
// blob would fetch it by running the program.
func plantLazyFetch(t *testing.T, w *world, evil func(string) string) []string {
	gitRun(t, w.dir, "add", ".")
	gitRun(t, w.dir, "commit", "-qm", "one")
	w.write("a.txt", "alpha\nbeta\n")
	gitRun(t, w.dir, "commit", "-qam", "two")
	blob := strings.TrimSpace(gitOut(t, w.dir, "rev-parse", "HEAD:a.txt"))
	if err := os.Remove(filepath.Join(w.dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{
		{"core.repositoryformatversion", "1"},
		{"extensions.partialClone", "origin"},
		{"remote.origin.url", "ext::" + evil("lazy-fetch")},
		{"remote.origin.promisor", "true"},
		{"protocol.ext.allow", "always"},
		{"credential.helper", evil("credential-helper")},
		{"core.sshCommand", evil("ssh-command")},
	} {
		gitRun(t, w.dir, "config", kv[0], kv[1])
	}
	return []string{"lazy-fetch", "credential-helper", "ssh-command"}
}

// plantSubmodule gives the repository a submodule whose own
// configuration names a clean filter, with a same-size change in it.
func plantSubmodule(t *testing.T, w *world, evil func(string) string) []string {
	sub := t.TempDir()
	gitRun(t, sub, "init", "-q")
	for name, content := range map[string]string{"s.txt": "sub\n", ".gitattributes": "*.txt filter=sx\n"} {
		if err := os.WriteFile(filepath.Join(sub, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitRun(t, sub, "add", ".")
	gitRun(t, sub, "commit", "-qm", "sub")
	gitRun(t, w.dir, "add", ".")
	gitRun(t, w.dir, "commit", "-qm", "one")
	gitRun(t, w.dir, "submodule", "add", "-q", sub, "sub")
	gitRun(t, w.dir, "commit", "-qm", "two")
	subGit := filepath.Join(w.dir, "sub")
	gitRun(t, subGit, "config", "filter.sx.clean", evil("submodule-clean"))
	gitRun(t, subGit, "config", "filter.sx.required", "true")
	gitRun(t, subGit, "config", "core.fsmonitor", evil("submodule-fsmonitor"))
	w.write("sub/s.txt", "SUB\n")
	return []string{"submodule-clean", "submodule-fsmonitor"}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	git := exec.Command("git", args...)
	git.Dir = dir
	out, err := git.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}
