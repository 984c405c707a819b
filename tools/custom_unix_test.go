//go:build unix

package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCustomToolInputNeverReachesTheCommandLine(t *testing.T) {
	t.Parallel()
	tool := NewCustomTool(CustomSpec{Name: "SHOW_INPUT", Description: "Shows its input.",
		Command: `printf 'stdin=%s\n' "$(cat)"; printf 'var=%s\n' "$DEV_TOOL_INPUT"`})
	tests := []struct {
		name, input, want string
	}{
		{"plain", "hello", "stdin=hello\nvar=hello"},
		{"empty", "", "stdin=\nvar="},
		{"several lines", "a\nb", "stdin=a\nb\nvar=a\nb"},
		{"shell syntax stays data", "$(touch pwned); `touch pwned2`; ' \" ; rm -rf x", "stdin=$(touch pwned); `touch pwned2`; ' \" ; rm -rf x\nvar=$(touch pwned); `touch pwned2`; ' \" ; rm -rf x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newEnv(t, nil)
			r := runTool(t, tool, env, tt.input)
			if want := "Command succeeded (exit code 0).\n" + tt.want; !r.OK || r.Output != want {
				t.Errorf("OK=%v Output=%q, want %q", r.OK, r.Output, want)
			}
			for _, f := range []string{"pwned", "pwned2"} {
				if _, err := os.Stat(filepath.Join(env.Dir, f)); err == nil {
					t.Errorf("the input ran as shell: %s exists", f)
				}
			}
			if r.Command != tool.spec.Command || r.ExitCode != 0 {
				t.Errorf("Command=%q ExitCode=%d", r.Command, r.ExitCode)
			}
		})
	}
}

func TestCustomToolRunsLikeCommand(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{"here.txt": ""})
	tool := NewCustomTool(CustomSpec{Name: "CHECK", Description: "d", Command: `ls; echo "$CI $GIT_PAGER"; echo oops >&2; exit 4`})
	r := runTool(t, tool, env, "look")
	want := "Command failed (exit code 4).\nhere.txt\n1 cat\noops"
	if r.OK || r.ExitCode != 4 || r.Output != want || r.Tool != "CHECK" || r.Summary != "look" {
		t.Errorf("result = %+v, want output %q", r, want)
	}
	// Long output is cut and saved like COMMAND's.
	long := runTool(t, NewCustomTool(CustomSpec{Name: "LONG", Description: "d", Command: "seq 1 20000"}), env, "")
	if !strings.Contains(long.Output, "cut (") || !strings.Contains(long.Output, "full output saved in "+env.OutputDir) || long.Summary != "seq 1 20000" {
		t.Errorf("long output: %q", long.Output[:min(300, len(long.Output))])
	}
}

func TestCustomToolLargeInputOnStdinOnly(t *testing.T) {
	t.Parallel()
	env := newEnv(t, nil)
	tool := NewCustomTool(CustomSpec{Name: "COUNT", Description: "d", Command: `wc -c | tr -d ' '; echo "var=${DEV_TOOL_INPUT+set}"`})
	input := strings.Repeat("x", maxInputVariable+1)
	r := runTool(t, tool, env, input)
	if want := "Command succeeded (exit code 0).\n65538\nvar="; r.Output != want {
		t.Errorf("Output = %q, want %q", r.Output, want)
	}
}

func TestCustomToolTimeoutMovesToTheBackground(t *testing.T) {
	t.Parallel()
	env, _, exits := bgEnv(t, time.Hour, time.Second)
	gate := mkfifo(t, env.Dir, "gate")
	// The tool's own timeout wins over commandTimeout.
	tool := NewCustomTool(CustomSpec{Name: "SLOW", Description: "d", Command: "echo started; read x < gate", Timeout: 300 * time.Millisecond})
	r := runTool(t, tool, env, "")
	backgrounded(t, r)
	if r.Tool != "SLOW" || !strings.Contains(r.Output, "Output so far:\nstarted\n") {
		t.Errorf("result = %+v", r)
	}
	open(t, gate)
	awaitExit(t, exits)
}

func TestApprovalDecidesBeforeAnythingStarts(t *testing.T) {
	t.Parallel()
	env := newEnv(t, nil)
	var seen []Action
	env.Approve = func(_ context.Context, a Action) Verdict {
		seen = append(seen, a)
		return Verdict{Why: "the user did not allow `touch`."}
	}
	custom := NewCustomTool(CustomSpec{Name: "TOUCH", Description: "d", Command: "touch custom"})
	for _, tc := range []struct {
		tool  Tool
		input string
	}{{CommandTool{}, "touch command"}, {custom, "in"}} {
		r := runTool(t, tc.tool, env, tc.input)
		if r.OK || r.Output != "Refused: the user did not allow `touch`." {
			t.Errorf("%s: %+v", tc.tool.Name(), r)
		}
	}
	want := []Action{{Tool: Command, Command: "touch command", Input: "touch command"}, {Tool: "TOUCH", Command: "touch custom", Input: "in"}}
	if len(seen) != 2 || seen[0] != want[0] || seen[1] != want[1] {
		t.Errorf("Approve saw %+v, want %+v", seen, want)
	}
	entries, _ := os.ReadDir(env.Dir)
	if len(entries) != 0 {
		t.Errorf("something ran: %v", entries)
	}
}
