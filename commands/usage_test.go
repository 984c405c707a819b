package commands

import (
	"strings"
	"testing"
)

// Every command of the tree, as typed.
var everyCommand = [][]string{
	{}, {"sessions"}, {"sessions", "list"}, {"sessions", "show"}, {"sessions", "serve"},
	{"config"}, {"config", "path"}, {"config", "show"},
	{"checkpoints"}, {"diff"}, {"rewind"},
	{"doctor"}, {"mcp"}, {"stats"}, {"profiles"},
}

// A flag a command does not have is a usage error (exit 2) in one line
// that names the command and its valid flags; nothing else is printed
// (urfave/cli's default printed the whole help, and exited 1).
func TestEveryCommandRejectsAnUnknownFlag(t *testing.T) {
	h := newHome(t)
	for _, cmd := range everyCommand {
		name := strings.Join(append([]string{"dev"}, cmd...), " ")
		r := h.run(append(cmd, "--bogus")...)
		want := []string{"unknown flag --bogus"}
		if len(cmd) > 0 {
			want = append(want, name+": ")
		}
		r.usage(t, want...)
		if r.stdout != "" || r.stderr != "" {
			t.Errorf("%s --bogus printed:\nstdout:\n%s\nstderr:\n%s", name, r.stdout, r.stderr)
		}
		if r.err != nil && strings.Count(r.err.Error(), "\n") > 0 {
			t.Errorf("%s --bogus: %q is more than one line", name, r.err)
		}
	}
}

func TestFlagMistakesNameTheValidChoices(t *testing.T) {
	h := newHome(t)
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--bogus"}, []string{"unknown flag --bogus (valid: -p/--prompt PROMPT, --resume, --session ID", "--version)"}},
		{[]string{"--resum"}, []string{"did you mean --resume?"}},
		{[]string{"-p"}, []string{"-p needs a value (-p PROMPT)"}},
		{[]string{"sessions", "list", "--bogus"}, []string{"dev sessions list: unknown flag --bogus (valid: --json)"}},
		{[]string{"sessions", "--bogus"}, []string{"dev sessions takes no flags; its commands: list, show, serve)"}},
		{[]string{"sessions", "serve", "--port", "x"}, []string{`dev sessions serve: invalid value "x" for --port: a whole number is needed`}},
		{[]string{"config", "--bogus"}, []string{"dev config takes no flags; its commands: path, show)"}},
		{[]string{"config", "show", "--profil", "x"}, []string{"did you mean --profile?", "(valid: --profile NAME)"}},
		{[]string{"checkpoints", "--bogus"}, []string{"dev checkpoints: unknown flag --bogus (valid: --session ID)"}},
		{[]string{"rewind", "3", "--bogus"}, []string{"(valid: --session ID, --files-only, -y/--yes)"}},
		{[]string{"doctor", "-m"}, []string{"dev doctor: -m needs a value (-m MODEL)"}},
		{[]string{"stats", "--days", "x"}, []string{`dev stats: invalid value "x" for --days: a whole number is needed`}},
		{[]string{"stats", "--json=maybe"}, []string{`invalid value "maybe" for --json: it takes no value`}},
		{[]string{"stats", "--day", "3"}, []string{"did you mean --days?", "(valid: --days N, --json)"}},
		{[]string{"stats", "--hepl"}, []string{"did you mean --help?"}},
		{[]string{"mcp", "--bogus"}, []string{"(valid: -v/--verbose)"}},
		{[]string{"profiles", "--bogus"}, []string{"(valid: --profile NAME)"}},
	} {
		h.run(tt.args...).usage(t, tt.want...)
	}
}

// A command that takes no arguments, or a fixed number, says so; an
// unknown subcommand names the valid ones.
func TestArgumentMistakes(t *testing.T) {
	h := newHome(t)
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"x"}, []string{`unexpected argument "x"`, `-p "…"`}},
		{[]string{"sessions"}, []string{"dev sessions needs a command: list, show, serve"}},
		{[]string{"sessions", "lst"}, []string{`dev sessions: unknown command "lst"; did you mean list? (valid: list, show, serve)`}},
		{[]string{"sessions", "list", "x"}, []string{`dev sessions list takes no arguments (got "x")`}},
		{[]string{"sessions", "show"}, []string{"usage: dev sessions show <id>"}},
		{[]string{"sessions", "show", "a", "b"}, []string{"usage: dev sessions show <id>"}},
		{[]string{"sessions", "serve", "x"}, []string{`dev sessions serve takes no arguments (got "x"); use --port N`}},
		{[]string{"sessions", "serve", "--port", "70000"}, []string{"--port must be a port number"}},
		{[]string{"config", "nonsense"}, []string{`dev config: unknown command "nonsense" (valid: path, show)`, "dev config alone opens the file"}},
		{[]string{"config", "shw"}, []string{"did you mean show?"}},
		{[]string{"config", "path", "x"}, []string{`dev config path takes no arguments (got "x")`}},
		{[]string{"config", "show", "x"}, []string{`dev config show takes no arguments (got "x")`}},
		{[]string{"checkpoints", "x"}, []string{`dev checkpoints takes no arguments (got "x"); give the session with --session`}},
		{[]string{"diff", "x"}, []string{`"x" is not a checkpoint number`}},
		{[]string{"diff", "1", "2", "3"}, []string{"usage: dev diff [FROM [TO]]"}},
		{[]string{"rewind"}, []string{"usage: dev rewind N"}},
		{[]string{"rewind", "x"}, []string{`"x" is not a checkpoint number`}},
		{[]string{"doctor", "x"}, []string{`dev doctor takes no arguments (got "x")`}},
		{[]string{"mcp", "x"}, []string{`dev mcp takes no arguments (got "x")`}},
		{[]string{"stats", "x"}, []string{`dev stats takes no arguments (got "x"); use --days N`}},
		{[]string{"stats", "--days", "0"}, []string{"--days must be at least 1, got 0"}},
		{[]string{"profiles", "x"}, []string{`dev profiles takes no arguments (got "x")`}},
	} {
		h.run(tt.args...).usage(t, tt.want...)
	}
}

func TestFlagsFirst(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"dev rewind 3 --yes", "dev rewind --yes 3"},
		{"dev rewind 3 --session abc --files-only", "dev rewind --session abc --files-only 3"},
		{"dev diff 1 2", "dev diff 1 2"},
		{"dev -p rewind", "dev -p rewind"},
		{"dev sessions show x --json", "dev sessions show x --json"},
	} {
		if got := strings.Join(flagsFirst(strings.Fields(tt.in)), " "); got != tt.want {
			t.Errorf("flagsFirst(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
