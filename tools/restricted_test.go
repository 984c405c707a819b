package tools

import (
	"context"
	"strings"
	"testing"
)

// A restricted set keeps every tool's name, documentation and input check;
// what is not allowed is refused when it runs, and a tool may run another
// in its place.
func TestRestricted(t *testing.T) {
	t.Parallel()
	set := Restricted{
		Tools: Worker(),
		Allow: func(tool Tool) (Tool, bool) {
			switch tool.Name() {
			case ReadFile:
				return tool, true
			case Command:
				return DoneTool{}, true
			}
			return nil, false
		},
		Why: func(name string) string { return name + " is not allowed here." },
	}
	if got, want := strings.Join(set.Names(), ","), strings.Join(Worker().Names(), ","); got != want {
		t.Errorf("names %s, want %s", got, want)
	}
	write, ok := set.Lookup(WriteFile)
	if !ok || write.Doc().Description != (WriteFileTool{}).Doc().Description {
		t.Fatalf("WRITE_FILE: %v %+v", ok, write)
	}
	if _, err := write.Check("a.txt"); err == nil {
		t.Error("the refused tool's input is not checked")
	}
	dir := t.TempDir()
	res := runTool(t, write, &Env{Dir: dir}, "a.txt\n```\nx\n```")
	if res.OK || res.Output != "Refused: WRITE_FILE is not allowed here." || res.Tool != WriteFile || res.Summary != "a.txt" {
		t.Errorf("refused WRITE_FILE: %+v", res)
	}
	if read, _ := set.Lookup(ReadFile); read != (ReadFileTool{}) {
		t.Errorf("READ_FILE runs as %T", read)
	}
	cmd, _ := set.Lookup(Command)
	call, err := cmd.Check("all done")
	if err != nil {
		t.Fatal(err)
	}
	if res := call.Run(context.Background(), &Env{Dir: dir}); !res.Done || cmd.Name() != Command {
		t.Errorf("COMMAND in place: %s %+v", cmd.Name(), res)
	}
	if _, ok := set.Lookup("NOPE"); ok {
		t.Error("an unknown tool was found")
	}
}
