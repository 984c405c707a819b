//go:build unix

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devagent/dev/llm/llmtest"
)

// Denied commands never start (SPEC §13): each hostile line runs after
// `touch marker-N;` in the same command line, so a line that started
// leaves its marker. The builtin list is in force without any setting.
func TestDeniedCommandsNeverStart(t *testing.T) {
	lines := []string{
		"sudo -n true",
		"/usr/bin/sudo -n true",
		`'sudo' -n true`,
		`s\udo -n true`,
		"su -c true root",
		"doas true",
		"true && sudo -n true",
		"true | sudo -n true",
		"(sudo -n true)",
		"echo $(sudo -n true)",
		"echo `sudo -n true`",
		"sh -c 'sudo -n true'",
		`bash -c "true; sudo -n true"`,
		"env A=1 sudo -n true",
		"nice -n 1 sudo -n true",
		"timeout 5 sudo -n true",
		"echo x | xargs sudo -n true",
		`find . -maxdepth 0 -exec sudo -n true \;`,
		`eval "sudo -n true"`,
		"rm -rf /",
		"rm -rf ~",
		"rm -r -f $HOME",
		"rm -fr ${HOME}/",
		"rm -rf /*",
		"rm --recursive --force -- ~/",
		"mkfs.ext4 -n /dev/null",
		"dd if=/dev/zero of=/dev/sdz count=0",
		"shutdown -c",
		"reboot --help",
		"halt --help",
		"poweroff --help",
		"chmod -R 000 /",
		"chown -R nobody /",
		":(){ :|:& };:",
	}
	w := newWorld(t, nil)
	var script []llmtest.Response
	for i, line := range lines {
		script = append(script, reply("Try it.", "COMMAND", fmt.Sprintf("touch marker-%d; %s", i, line)))
	}
	script = append(script, reply("A normal one.", "COMMAND", "touch ordinary; echo sudo"), done("Done."))
	w.srv.Script(script...)
	r := w.run("-p", "try things", "--no-audit")
	r.expect(t, 0)
	reqs := w.srv.Requests()
	if len(reqs) != len(lines)+2 {
		t.Fatalf("%d requests, want %d", len(reqs), len(lines)+2)
	}
	for i, line := range lines {
		if _, err := os.Stat(filepath.Join(w.dir, fmt.Sprintf("marker-%d", i))); err == nil {
			t.Errorf("%q started", line)
		}
		got := lastUser(reqs[i+1])
		if !strings.Contains(got, `ok="false"`) || !strings.Contains(got, "Refused: the command") || !strings.Contains(got, "builtin rule") {
			t.Errorf("%q: the model was not told of the refusal:\n%s", line, got)
		}
	}
	if _, err := os.Stat(filepath.Join(w.dir, "ordinary")); err != nil {
		t.Error("an ordinary command did not run")
	}
	if len(lines) < 30 {
		t.Errorf("only %d lines", len(lines))
	}
}

// The indirections of issue 22 (break 2) never start: each line runs
// after `touch marker-N;` in the same command line, with stand-ins for rm,
// chmod and sudo first on PATH that log what reaches them (so a line the
// guard let through harms nothing). Everyday lines still run.
func TestIndirectDeniedCommandsNeverStart(t *testing.T) {
	attacks := []string{
		"X=rm; $X -rf ~",
		"rm -rf $(echo ~)",
		"cd / && rm -rf *",
		"echo ~ | xargs rm -rf",
		"sh <<EOF\nrm -rf ~\nEOF",
		"$(which rm) -rf ~",
		"`echo rm` -rf ~",
		"a=r; b=m; $a$b -rf ~",
		"env $(echo rm) -rf ~",
		"{rm,-rf,~}",
		`eval "$(echo rm -rf ~)"`,
		`CMD="rm -rf ~"; sh -c "$CMD"`,
		"T=~; rm -rf $T",
		"for d in / ~; do rm -rf $d; done",
		"F=-rf; rm $F ~",
		`set -- -rf ~; rm "$@"`,
		"cd ~ && rm -rf *",
		"cd; rm -rf ./*",
		"rm -rf ../*",
		`D=~/x; rm -rf "$D/.."`,
		`find ~ -maxdepth 0 -exec rm -rf {} \;`,
		"ls / | xargs rm -rf",
		"xargs -I{} rm -rf {} <<< ~",
		"echo 'rm -rf ~' | sh",
		`printf 'rm -rf ~\n' | bash`,
		"cat <<'EOF' | sh\nrm -rf ~\nEOF",
		`f(){ "$@"; }; f rm -rf ~`,
		`f() { rm -rf "$1"; }; f ~`,
		"alias nuke='rm -rf'; nuke ~",
		"X=sudo; $X -n true",
		"$(echo sudo) -n true",
		"S=su; ${S}do -n true",
		"X=chmod; $X -R 777 /",
		"chmod -R 777 $(echo /)",
		"cat /dev/null | sh",
		// A -c script the shell computes first (issue 30, break 3).
		`sh -c "$(echo cm0gLXJmIH4K | base64 -d)"`,
		`X='rm -rf ~'; bash -c "$X"`,
		"sh -c \"`printf 'rm -rf ~'`\"",
	}
	everyday := []string{
		"rm -rf build/*",
		"rm -rf ./dist",
		`rm -f "$tmp"`,
		`rm -rf "$HOME/.cache/dev-e2e"`,
		`"$GOPATH/bin/tool" --version`,
		"make $TARGET",
		"ls -la | grep e | wc -l",
		"find . -name '*.tmp' -exec rm -f {} +",
		"find . -type f | xargs wc -l",
		"mkdir -p sub && cd sub && rm -rf *",
		"for f in *; do echo $f; done",
		"X=1; echo $X",
		`echo "$(date)"`,
		"sh -c 'echo hi'",
		"cat <<EOF > notes.txt\nrm -rf ~\nEOF",
		"chmod -R u+w .",
		`eval "$(echo echo hi)"`,
		`bash -c "echo hi && echo there"`,
	}
	w := newWorld(t, nil)
	fake := t.TempDir()
	logged := filepath.Join(t.TempDir(), "reached.log")
	for _, name := range []string{"rm", "chmod", "sudo"} {
		// Only what an attack reaches is logged (the everyday lines call
		// rm and chmod too).
		script := fmt.Sprintf("#!/bin/sh\n[ \"$PHASE\" = attack ] && echo \"%s $*\" >> '%s'\nexit 0\n", name, logged)
		if err := os.WriteFile(filepath.Join(fake, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.extra = append(w.extra, "PATH="+fake+":"+os.Getenv("PATH"))
	var script []llmtest.Response
	for i, line := range attacks {
		script = append(script, reply("Try it.", "COMMAND", fmt.Sprintf("export PHASE=attack; touch marker-%d; %s", i, line)))
	}
	for i, line := range everyday {
		script = append(script, reply("Work.", "COMMAND", fmt.Sprintf("touch ok-%d; %s", i, line)))
	}
	w.srv.Script(append(script, done("Done."))...)
	r := w.run("-p", "try things", "--no-audit")
	r.expect(t, 0)
	reqs := w.srv.Requests()
	if len(reqs) != len(attacks)+len(everyday)+1 {
		t.Fatalf("%d requests, want %d", len(reqs), len(attacks)+len(everyday)+1)
	}
	started := 0
	for i, line := range attacks {
		if _, err := os.Stat(filepath.Join(w.dir, fmt.Sprintf("marker-%d", i))); err == nil {
			started++
			t.Errorf("%q started", line)
		}
		got := lastUser(reqs[i+1])
		if !strings.Contains(got, `ok="false"`) || !strings.Contains(got, "Refused: the command") || !strings.Contains(got, "denyBuiltinCommands") {
			t.Errorf("%q: the model was not told of the refusal:\n%s", line, got)
		}
	}
	reached, _ := os.ReadFile(logged)
	t.Logf("%d of %d indirect lines started; the stand-ins were reached %d times", started, len(attacks), strings.Count(string(reached), "\n"))
	for i, line := range everyday {
		if _, err := os.Stat(filepath.Join(w.dir, fmt.Sprintf("ok-%d", i))); err != nil {
			t.Errorf("the everyday line %q did not run: %s", line, lastUser(reqs[len(attacks)+i+1]))
		}
	}
}

// A denyCommands prefix holds through git's options before the
// subcommand: `git -C . clean -fdx` is `git clean` (issue 22: it deleted
// a file).
func TestDenyPrefixThroughGitOptions(t *testing.T) {
	w := newWorld(t, map[string]any{"denyCommands": []string{"git clean"}})
	gitRun(t, w.dir, "init", "-q")
	w.write("untracked.txt", "keep me\n")
	lines := []string{
		"git -C . clean -fdx",
		"git -c core.quotepath=off clean -f",
		"git --git-dir=.git --work-tree=. clean -f",
		"git --no-pager clean -f",
		"G=git; $G clean -f",
	}
	var script []llmtest.Response
	for _, line := range lines {
		script = append(script, reply("Clean.", "COMMAND", line))
	}
	w.srv.Script(append(script, reply("Status.", "COMMAND", "git status --short"), done("Done."))...)
	w.run("-p", "clean up", "--no-audit").expect(t, 0)
	if got := w.read("untracked.txt"); got != "keep me\n" {
		t.Errorf("the untracked file is gone or changed: %q", got)
	}
	reqs := w.srv.Requests()
	for i, line := range lines {
		if got := lastUser(reqs[i+1]); !strings.Contains(got, `the entry "git clean" of denyCommands`) {
			t.Errorf("%q was not refused by the entry:\n%s", line, got)
		}
	}
	if got := lastUser(reqs[len(lines)+1]); !strings.Contains(got, "?? untracked.txt") {
		t.Errorf("git status, not denied, did not run:\n%s", got)
	}
}

// Issue 30, break 3: `sh -c "$(echo cm0gLXJmIH4K | base64 -d)"` ran, and
// the stand-in rm got `-rf ~`. A -c script the shell computes first is a
// script dev cannot read, like one piped into a shell: refused, and the
// model is told to write the script out.
func TestComputedShellScriptIsRefused(t *testing.T) {
	w := newWorld(t, nil)
	fake := t.TempDir()
	logged := filepath.Join(t.TempDir(), "reached.log")
	if err := os.WriteFile(filepath.Join(fake, "rm"), []byte(fmt.Sprintf("#!/bin/sh\necho \"rm $*\" >> '%s'\n", logged)), 0o755); err != nil {
		t.Fatal(err)
	}
	w.extra = append(w.extra, "PATH="+fake+":"+os.Getenv("PATH"))
	w.srv.Script(reply("Clean up.", "COMMAND", `touch marker; sh -c "$(echo cm0gLXJmIH4K | base64 -d)"`), done("Done."))
	w.run("-p", "clean up", "--no-audit").expect(t, 0)
	if reached, err := os.ReadFile(logged); err == nil {
		t.Errorf("the stand-in rm ran: %q", reached)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "marker")); err == nil {
		t.Error("the command line started")
	}
	told := lastUser(w.srv.Requests()[1])
	for _, want := range []string{`ok="false"`, "Refused: the command `sh -c $(echo cm0gLXJmIH4K | base64 -d)` is denied",
		"what a shell whose -c script is computed runs is known only when the shell runs", "Write the script out in the command line itself"} {
		if !strings.Contains(told, want) {
			t.Errorf("the result lacks %q:\n%s", want, told)
		}
	}
}
