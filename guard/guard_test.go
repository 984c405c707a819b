package guard

import (
	"errors"
	"strings"
	"testing"

	"github.com/devagent/dev/shell"
)

// Hostile is the denied-command table: lines the builtin list must refuse,
// with the rule that refuses them.
var Hostile = []struct{ Line, Rule string }{
	{"sudo ls", "sudo"},
	{"/usr/bin/sudo -u root ls", "sudo"},
	{`'sudo' ls`, "sudo"},
	{`\sudo ls`, "sudo"},
	{`s"ud"o ls`, "sudo"},
	{"su -c 'ls' root", "su"},
	{"doas ls", "doas"},
	{"echo hi | sudo tee /etc/x", "sudo"},
	{"ls && sudo reboot", "sudo"},
	{"ls; (cd / && sudo ls)", "sudo"},
	{"echo $(sudo id)", "sudo"},
	{"echo `sudo id`", "sudo"},
	{"sh -c 'sudo id'", "sudo"},
	{`bash -lc "ls; sudo id"`, "sudo"},
	{`sh -c "sh -c 'sudo id'"`, "sudo"},
	{"env FOO=1 sudo id", "sudo"},
	{"nice -n 5 nohup sudo id", "sudo"},
	{"timeout 5 sudo id", "sudo"},
	{"xargs -n1 sudo rm < list", "sudo"},
	{`find . -exec sudo rm {} \;`, "sudo"},
	{`eval "sudo id"`, "sudo"},
	{"command sudo id", "sudo"},
	{"f() { sudo id; }", "sudo"},
	{"rm -rf /", "rm -r/-f on / or ~"},
	{"rm -fr /*", "rm -r/-f on / or ~"},
	{"rm -r -f ~", "rm -r/-f on / or ~"},
	{"rm -Rf ~/", "rm -r/-f on / or ~"},
	{"rm --recursive --force $HOME", "rm -r/-f on / or ~"},
	{`rm -rf "$HOME/"`, "rm -r/-f on / or ~"},
	{"rm -rf ${HOME}/*", "rm -r/-f on / or ~"},
	{"rm -rf -- /", "rm -r/-f on / or ~"},
	{"rm / -rf --no-preserve-root", "rm -r/-f on / or ~"},
	{"rm -rf //", "rm -r/-f on / or ~"},
	{"rm -rf /home/..", "rm -r/-f on / or ~"},
	{"rm --rec /", "rm -r/-f on / or ~"},
	{"rm -f /", "rm -r/-f on / or ~"},
	{"/bin/rm -rf ~root", "rm -r/-f on / or ~"},
	{"mkfs /dev/sda1", "mkfs"},
	{"mkfs.ext4 /dev/sda1", "mkfs"},
	{"dd if=/dev/zero of=/dev/sda bs=1M", "dd of=/dev/…"},
	{"echo x > /dev/sda", "writing to a device in /dev"},
	{"shutdown -h now", "shutdown"},
	{"reboot", "reboot"},
	{"halt", "halt"},
	{"poweroff", "poweroff"},
	{"systemctl reboot", "shutdown"},
	{"chmod -R 777 /", "chmod -R on /"},
	{"chown -R me /", "chown -R on /"},
	{"chmod 777 -R /*", "chmod -R on /"},
	{":(){ :|:& };:", "fork bomb"},
	{"bash -c ':(){ :|:& };:'", "fork bomb"},
	{"bomb() { bomb | bomb & }; bomb", "fork bomb"},
}

func TestBuiltinDeniesHostileLines(t *testing.T) {
	t.Parallel()
	d := Builtin()
	for _, tc := range Hostile {
		err := d.Check(tc.Line)
		var r *Refusal
		if !errors.As(err, &r) {
			t.Errorf("%q: err = %v, want a refusal by %q", tc.Line, err, tc.Rule)
			continue
		}
		if r.Rule != tc.Rule || !r.Builtin {
			t.Errorf("%q: refused by %q (builtin %v), want %q", tc.Line, r.Rule, r.Builtin, tc.Rule)
		}
		msg := r.Error()
		if !strings.Contains(msg, tc.Rule) || !strings.Contains(msg, "denyBuiltinCommands") || !strings.Contains(msg, "not started") {
			t.Errorf("%q: the message does not name the rule and the setting: %s", tc.Line, msg)
		}
	}
	if len(Hostile) < 30 {
		t.Errorf("only %d hostile lines", len(Hostile))
	}
}

func TestBuiltinAllowsOrdinaryLines(t *testing.T) {
	t.Parallel()
	d := Builtin()
	for _, line := range []string{
		"ls -la /",
		"rm -rf build",
		"rm -rf ./tmp/*",
		"rm -rf /tmp/dev-test",
		"rm ~/notes.txt",
		"rm -r ~/.cache/dev",
		"rm /",   // no -r or -f: rm refuses a directory by itself
		"rm -rf", // no target
		"chmod -R u+w .",
		"chmod 755 /",
		"chown me file",
		"dd if=x of=/dev/null",
		"dd if=/dev/zero of=disk.img bs=1M count=1",
		"cat x > /dev/null 2>&1",
		"echo hi >/dev/stderr",
		"mkdir -p build && go build -o build/ ./...",
		"git push --force",
		"grep -r sudo .",
		"echo sudo",
		"man shutdown",
		"command -v sudo",
		"systemctl status nginx",
		"f() { f; }",
		"count() { echo $1; }; count 3 | count 4",
		"su_helper --x",
		"sudoku",
	} {
		if err := d.Check(line); err != nil {
			t.Errorf("%q was refused: %v", line, err)
		}
	}
}

func TestUserPrefixes(t *testing.T) {
	t.Parallel()
	d, err := NewDeny([]string{"git push --force", "npm publish", "/opt/x/tool run"}, false)
	if err != nil {
		t.Fatal(err)
	}
	for line, want := range map[string]string{
		"git push --force":                 "git push --force",
		"git push --force origin main":     "git push --force",
		"/usr/bin/git push --force":        "git push --force",
		"GIT_TRACE=1 git push --force":     "git push --force",
		`git push '--force'`:               "git push --force",
		"ls && git push --force":           "git push --force",
		"sh -c 'git push --force'":         "git push --force",
		"npm publish --access public":      "npm publish",
		"/opt/x/tool run":                  "/opt/x/tool run",
		"git push --force-with-lease":      "",
		"git push origin --force":          "", // prefixes are literal: other orders are other commands
		"git pushy --force":                "",
		"npm publishing":                   "",
		"/usr/local/x/tool run":            "",
		"sudo ls":                          "", // builtin list off
		"rm -rf /":                         "",
		"echo 'git push --force' > notes":  "",
		"grep -r 'npm publish' README.md ": "",
	} {
		err := d.Check(line)
		var r *Refusal
		switch {
		case want == "" && err != nil:
			t.Errorf("%q was refused: %v", line, err)
		case want != "" && !errors.As(err, &r):
			t.Errorf("%q: err = %v, want a refusal by %q", line, err, want)
		case want != "" && (r.Rule != want || r.Builtin || !strings.Contains(r.Error(), "denyCommands")):
			t.Errorf("%q: refusal %+v: %s", line, r, r.Error())
		}
	}
	both, err := NewDeny([]string{"git push --force"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if both.Check("sudo ls") == nil || both.Check("git push --force") == nil {
		t.Error("user prefixes must add to the builtin list")
	}
}

func TestDenyRefusesUnreadableLines(t *testing.T) {
	t.Parallel()
	err := Builtin().Check("echo 'unterminated")
	var se *shell.Error
	if !errors.As(err, &se) {
		t.Errorf("err = %v, want a *shell.Error", err)
	}
	off, _ := NewDeny(nil, false)
	if off.Enabled() || off.Check("echo 'unterminated") != nil {
		t.Error("with no rules nothing is parsed or refused")
	}
}

func TestPrefixErrors(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"", "  ", "curl x | sh", "a; b", "a > f", "echo 'x"} {
		if _, err := NewDeny([]string{p}, true); err == nil {
			t.Errorf("NewDeny(%q) accepted it", p)
		}
		if _, err := NewAllow([]string{p}); err == nil {
			t.Errorf("NewAllow(%q) accepted it", p)
		}
	}
}

func TestAllow(t *testing.T) {
	t.Parallel()
	a, err := NewAllow([]string{"go test", "go vet", "git status", "ls", "sh -c"})
	if err != nil {
		t.Fatal(err)
	}
	for line, want := range map[string]bool{
		"go test ./...":                  true,
		"go test ./... && go vet ./...":  true,
		"go test ./... 2>&1 | ls":        true,
		"go test ./... > /dev/null 2>&1": true,
		"git status":                     true,
		`sh -c 'go test ./...'`:          true, // sh -c is allowed, and so is what it runs
		"go test ./... && rm -rf x":      false,
		"go test $(rm -rf x)":            false,
		"go test `rm -rf x`":             false,
		"go test ./... > out.txt":        false,
		"go testing":                     false,
		"/tmp/evil/go test":              false,
		"LD_PRELOAD=x.so go test":        false,
		"sh -c 'rm -rf x'":               false,
		"env go test":                    false, // env itself is not allowed
		"f() { go test; }; f":            false,
		"$GO test":                       false,
		"":                               false,
		"go test 'unterminated":          false,
		"git status; git push":           false,
	} {
		if got := a.Allows(line); got != want {
			t.Errorf("Allows(%q) = %v, want %v", line, got, want)
		}
	}
	var none *Allow
	if none.Allows("ls") {
		t.Error("a nil Allow allows")
	}
}

func TestApprovals(t *testing.T) {
	t.Parallel()
	allow, _ := NewAllow([]string{"go test"})
	always := &Always{}
	for _, mode := range []Mode{Auto, Edits, Ask} {
		a := Approvals{Mode: mode, Allow: allow, Always: always}
		if got, want := a.CommandNeedsApproval("make"), mode != Auto; got != want {
			t.Errorf("%s: make needs approval = %v", mode, got)
		}
		if a.CommandNeedsApproval("go test ./...") {
			t.Errorf("%s: an allowed command needs approval", mode)
		}
		if got, want := a.EditNeedsApproval("/w/a.go"), mode == Ask; got != want {
			t.Errorf("%s: an edit needs approval = %v", mode, got)
		}
	}
	a := Approvals{Mode: Ask, Always: always}
	always.AllowCommand("  make build ")
	always.AllowFile("/w/./a.go")
	if a.CommandNeedsApproval("make build") || a.EditNeedsApproval("/w/a.go") {
		t.Error("always answers are not remembered")
	}
	for _, line := range []string{"make build && rm -rf x", "make build x", "make  build", "make"} {
		if !a.CommandNeedsApproval(line) {
			t.Errorf("always for `make build` allowed %q", line)
		}
	}
	if !a.EditNeedsApproval("/w/b.go") {
		t.Error("always for a.go allowed b.go")
	}
}
