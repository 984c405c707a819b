package tools

import (
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/bgproc"
)

func TestProcID(t *testing.T) {
	t.Parallel()
	tests := []struct{ input, want string }{
		{"proc_ab12cd", "proc_ab12cd"},
		{"  proc_ab12cd\n", "proc_ab12cd"},
		{"`proc_ab12cd`", "proc_ab12cd"},
		{`"PROC_AB12CD"`, "proc_ab12cd"},
		{"```\nproc_ab12cd\n```", "proc_ab12cd"},
		{"the server, proc_0a9z8y please", "proc_0a9z8y"},
		{`"server"`, "server"},
	}
	for _, tt := range tests {
		if got := procID(tt.input); got != tt.want {
			t.Errorf("procID(%q) = %q, want %q", tt.input, got, tt.want)
		}
	}
}

func TestBackgroundToolsWithoutProcesses(t *testing.T) {
	t.Parallel()
	m := bgproc.New(bgproc.Options{})
	t.Cleanup(func() { m.Shutdown() })
	for _, bg := range []Background{nil, m} {
		env := newEnv(t, nil)
		env.Background = bg
		for _, tool := range []Tool{ReadBackgroundTool{}, KillBackgroundTool{}} {
			r := runTool(t, tool, env, "proc_zzzzzz")
			if want := `Error: no background process "proc_zzzzzz": none was started`; r.OK || r.Output != want || r.Summary != "proc_zzzzzz" {
				t.Errorf("%s: OK=%v %q, want %q", tool.Name(), r.OK, r.Output, want)
			}
		}
		if r := runTool(t, ListBackgroundTool{}, env, ""); !r.OK || r.Output != "No background processes." {
			t.Errorf("LIST: OK=%v %q", r.OK, r.Output)
		}
	}
}

func TestBackgroundToolsCheck(t *testing.T) {
	t.Parallel()
	for _, tool := range []Tool{ReadBackgroundTool{}, KillBackgroundTool{}} {
		call, err := tool.Check(" \n")
		if call != nil || err == nil || !strings.HasPrefix(err.Error(), tool.Name()+" needs the id of a background process, e.g.:\nproc_ab12cd\n") {
			t.Errorf("%s: Check(empty) = %v, %v", tool.Name(), call, err)
		}
	}
	if _, err := (ListBackgroundTool{}).Check("anything"); err != nil {
		t.Errorf("LIST: Check = %v", err)
	}
}

func TestRuntimeText(t *testing.T) {
	t.Parallel()
	for d, want := range map[string]string{"354ms": "350ms", "1.4s": "1s", "2m3.6s": "2m4s"} {
		if got := runtimeText(mustDuration(t, d)); got != want {
			t.Errorf("runtimeText(%s) = %s, want %s", d, got, want)
		}
	}
}

func mustDuration(t *testing.T, s string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
