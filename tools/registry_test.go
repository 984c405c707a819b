package tools

import (
	"strings"
	"testing"
)

func TestWorkerOrderAndLookup(t *testing.T) {
	t.Parallel()
	r := Worker()
	want := []string{ListDirectory, ReadFile, WriteFile, FindAndReplace, Command, ReadBackground, ListBackground, KillBackground, UpdateTaskList, AskUser, Done}
	if got := r.Names(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for _, name := range want {
		tool, ok := r.Lookup(name)
		if !ok || tool.Name() != name {
			t.Errorf("Lookup(%q) = %v, %v", name, tool, ok)
		}
	}
	if _, ok := r.Lookup("RUN_IN_BACKGROUND"); ok {
		t.Error("Lookup of a tool not in the registry succeeded")
	}
	sub := NewRegistry(ReadFileTool{}, DoneTool{})
	if got := strings.Join(sub.Names(), ","); got != "READ_FILE,DONE" {
		t.Errorf("NewRegistry names = %s", got)
	}
}

func TestDocs(t *testing.T) {
	t.Parallel()
	// The limits the code enforces must appear in the descriptions.
	mustContain := map[string][]string{
		ListDirectory:  {"500"},
		ReadFile:       {"1000 lines", "48 KB"},
		Command:        {"4 KB", "8 KB"},
		FindAndReplace: {"10 MB", "exactly once"},
		ReadBackground: {"16 KB"},
		KillBackground: {"2 s"},
	}
	docs := Worker().Docs()
	if len(docs) != 11 {
		t.Fatalf("%d docs, want 11", len(docs))
	}
	for _, d := range docs {
		if d.Description == "" || strings.Contains(d.Description, "{{") || strings.Contains(d.Description, "<no value>") {
			t.Errorf("%s: description not rendered: %q", d.Name, d.Description)
		}
		if n := strings.Count(d.Description, "\n") + 1; n > 3 || len(d.Description) > 400 {
			t.Errorf("%s: description has %d lines, %d bytes; keep it short", d.Name, n, len(d.Description))
		}
		for _, s := range mustContain[d.Name] {
			if !strings.Contains(d.Description, s) {
				t.Errorf("%s: description lacks %q: %s", d.Name, s, d.Description)
			}
		}
		tool, _ := Worker().Lookup(d.Name)
		if _, err := tool.Check(d.Example); err != nil {
			t.Errorf("%s: the example fails Check: %v", d.Name, err)
		}
		if d.Name != UpdateTaskList && d.Name != ListBackground && d.Example == "" {
			t.Errorf("%s: no example", d.Name)
		}
	}
}

// What each built-in tool may change decides where the checkpoint after it
// looks (SPEC §12: no scan after a tool that cannot change files, only its
// paths after a file tool); a tool that says nothing may change anything.
func TestReach(t *testing.T) {
	t.Parallel()
	r, err := Compose(NewCustomTool(CustomSpec{Name: "RUN_TESTS", Command: "true"}))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Reach{
		ReadFile: ReachNothing, ListDirectory: ReachNothing, ReadBackground: ReachNothing, ListBackground: ReachNothing,
		UpdateTaskList: ReachNothing, AskUser: ReachNothing, Done: ReachNothing,
		WriteFile: ReachItsFiles, FindAndReplace: ReachItsFiles,
		Command: ReachAnything, KillBackground: ReachAnything, "RUN_TESTS": ReachAnything, "NO_SUCH_TOOL": ReachAnything,
	}
	for name, reach := range want {
		if got := r.Reach(name); got != reach {
			t.Errorf("Reach(%s) = %d, want %d", name, got, reach)
		}
	}
	if got := (ToolHelpTool{}).Doc().Reach; got != ReachNothing {
		t.Errorf("TOOL_HELP's reach %d", got)
	}
}
