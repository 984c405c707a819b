//go:build unix

package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devagent/dev/guard"
)

// deniedLines are command lines the builtin deny list refuses. Each runs
// after `touch started;`, so a line that starts leaves the marker.
var deniedLines = []string{
	"sudo true",
	"sudo -n true",
	"/usr/bin/sudo -n true",
	`'sudo' -n true`,
	`\sudo -n true`,
	"su -c true root",
	"doas true",
	"true && sudo -n true",
	"true || sudo -n true",
	"true | sudo -n true",
	"(sudo -n true)",
	"{ sudo -n true; }",
	"echo $(sudo -n true)",
	"echo `sudo -n true`",
	"echo \"$(sudo -n true)\"",
	"x=$(sudo -n true)",
	"sh -c 'sudo -n true'",
	"bash -c \"sudo -n true\"",
	"sh -c \"sh -c 'sudo -n true'\"",
	"env X=1 sudo -n true",
	"nohup sudo -n true",
	"timeout 5 sudo -n true",
	"eval 'sudo -n true'",
	"if true; then sudo -n true; fi",
	"for i in 1; do sudo -n true; done",
	"rm -rf /",
	"rm -rf ~",
	"rm -fr $HOME/",
	"rm -r -f /*",
	"mkfs.ext4 /dev/null",
	"dd if=/dev/zero of=/dev/sda count=0",
	"shutdown -h now",
	"reboot",
	"halt",
	"poweroff",
	"chmod -R 777 /",
	"chown -R nobody /",
	":(){ :|:& };:",
}

func TestDeniedCommandsNeverStart(t *testing.T) {
	t.Parallel()
	for _, line := range deniedLines {
		t.Run(line, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, nil)
			r := runTool(t, CommandTool{}, env, "touch started; "+line)
			if _, err := os.Stat(filepath.Join(env.Dir, "started")); err == nil {
				t.Fatalf("the command started: %s", r.Output)
			}
			if r.OK || !strings.HasPrefix(r.Output, "Refused: ") || !strings.Contains(r.Output, "builtin rule") || r.ExitCode != -1 {
				t.Errorf("result %+v", r)
			}
		})
	}
	if len(deniedLines) < 30 {
		t.Errorf("only %d lines", len(deniedLines))
	}
}

func TestDenyRulesFromEnv(t *testing.T) {
	t.Parallel()
	// The marker proves the allowed lines ran, so the test can fail.
	env := newEnv(t, nil)
	if r := runTool(t, CommandTool{}, env, "touch started; echo sudo"); !r.OK {
		t.Fatalf("an ordinary line was refused: %s", r.Output)
	}
	if _, err := os.Stat(filepath.Join(env.Dir, "started")); err != nil {
		t.Fatal("an allowed command did not start")
	}

	user, err := guard.NewDeny([]string{"git push --force"}, false)
	if err != nil {
		t.Fatal(err)
	}
	env = newEnv(t, nil)
	env.Deny = user
	r := runTool(t, CommandTool{}, env, "touch started && git push --force origin")
	if r.OK || !strings.Contains(r.Output, `"git push --force" of denyCommands`) {
		t.Errorf("a denyCommands prefix was not refused: %+v", r)
	}
	// With the builtin list off, sudo is the user's business.
	r = runTool(t, CommandTool{}, env, "sudo -n true 2>/dev/null; touch started")
	if _, err := os.Stat(filepath.Join(env.Dir, "started")); err != nil {
		t.Errorf("with denyBuiltinCommands false, sudo was refused: %s", r.Output)
	}
}

func TestUnreadableCommandsAreRefused(t *testing.T) {
	t.Parallel()
	env := newEnv(t, nil)
	r := runTool(t, CommandTool{}, env, "touch started; echo 'unterminated")
	if r.OK || !strings.Contains(r.Output, "cannot be read as shell") {
		t.Errorf("result %+v", r)
	}
	if _, err := os.Stat(filepath.Join(env.Dir, "started")); err == nil {
		t.Error("an unreadable line started")
	}
}

func TestRunArgs(t *testing.T) {
	t.Parallel()
	env := newEnv(t, nil)
	// No shell: the words arrive as they are.
	r := RunArgs(context.Background(), env, "echo", []string{"echo", "$HOME;", "*", "`x`"}, nil)
	if !r.OK || r.Output != "Command succeeded (exit code 0).\n$HOME; * `x`" || r.Command != "echo" {
		t.Errorf("result %+v", r)
	}
	r = RunArgs(context.Background(), env, "env", []string{"sh", "-c", `echo "$A $CI"`}, []string{"A=extra"})
	if !r.OK || !strings.HasSuffix(r.Output, "\nextra 1") {
		t.Errorf("the extra environment (and the non-interactive one) is missing: %+v", r)
	}
	r = RunArgs(context.Background(), env, "no-such-program-dev", []string{"no-such-program-dev"}, nil)
	if r.OK || !strings.Contains(r.Output, "cannot start the command") || !strings.Contains(r.Output, "no-such-program-dev") {
		t.Errorf("result %+v", r)
	}
	r = RunArgs(context.Background(), env, "sudo -n true", []string{"sudo", "-n", "true"}, nil)
	if r.OK || !strings.HasPrefix(r.Output, "Refused: ") {
		t.Errorf("RunArgs does not check the deny rules: %+v", r)
	}
	var refusal *guard.Refusal
	if !errors.As(env.CheckCommand("sudo ls"), &refusal) || refusal.Rule != "sudo" {
		t.Errorf("CheckCommand = %v", env.CheckCommand("sudo ls"))
	}
}
