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
