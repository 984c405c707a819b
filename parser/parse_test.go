package parser

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files and the fuzz seed corpus from the current output")

// testTools are the worker's tools (SPEC §2).
var testTools = []string{
	"LIST_DIRECTORY", "READ_FILE", "WRITE_FILE", "FIND_AND_REPLACE_IN_FILE", "COMMAND",
	"UPDATE_TASK_LIST", "ASK_USER", "DONE",
	"READ_BACKGROUND_PROCESS", "LIST_BACKGROUND_PROCESSES", "KILL_BACKGROUND_PROCESS",
}

// goldenReply reads testdata/parse/<name>.md. Line endings cannot be kept
// reliably in a text file, so a name starting with "crlf_" or "cr_" turns
// "\n" into "\r\n" or "\r".
func goldenReply(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, name := string(b), filepath.Base(path)
	switch {
	case strings.HasPrefix(name, "crlf_"):
		s = strings.ReplaceAll(s, "\n", "\r\n")
	case strings.HasPrefix(name, "cr_"):
		s = strings.ReplaceAll(s, "\n", "\r")
	}
	return s
}

// TestParseGolden parses every testdata/parse/*.md and compares a readable
// dump of the result with the .golden beside it. Accepted replies must also
// round-trip through Template.
func TestParseGolden(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/parse/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 40 {
		t.Fatalf("only %d golden cases; want at least 40", len(files))
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".md")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			reply := goldenReply(t, path)
			r, err := Parse(reply, testTools)
			got := dump(r, err)
			golden := strings.TrimSuffix(path, ".md") + ".golden"
			if *update {
				writeFile(t, golden, got)
				seed := "go test fuzz v1\nstring(" + strconv.Quote(reply) + ")\n"
				writeFile(t, filepath.Join("testdata", "fuzz", "FuzzParse", name), seed)
			}
			want, err2 := os.ReadFile(golden)
			if err2 != nil {
				t.Fatalf("%v (run go test ./parser -update)", err2)
			}
			if got != string(want) {
				t.Errorf("Parse(%s) differs from %s:\n--- got\n%s\n--- want\n%s", path, golden, got, want)
			}
			if err == nil {
				checkRoundTrip(t, r)
			}
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// dump renders a Parse result for a golden file. Multi-line text is shown
// with each line after "| ", so blank lines and indentation stay visible.
func dump(r Response, err error) string {
	var b strings.Builder
	block := func(title, text string) {
		fmt.Fprintf(&b, "%s:\n", title)
		if text == "" {
			b.WriteString("  (empty)\n")
			return
		}
		for _, line := range strings.Split(text, "\n") {
			fmt.Fprintf(&b, "  | %s\n", line)
		}
	}
	if err != nil {
		var fe *FormatError
		if !errors.As(err, &fe) {
			fmt.Fprintf(&b, "UNEXPECTED ERROR TYPE %T\n", err)
		}
		block("FORMAT ERROR", err.Error())
		if r.Reasoning != "" {
			block("reasoning", r.Reasoning)
		}
		return b.String()
	}
	b.WriteString("OK\n")
	if len(r.Warnings) > 0 {
		b.WriteString("warnings:\n")
		for _, w := range r.Warnings {
			fmt.Fprintf(&b, "  - %s\n", w)
		}
	}
	if r.Reasoning != "" {
		block("reasoning", r.Reasoning)
	}
	block("thoughts", r.Thoughts)
	if !r.HasTaskList {
		b.WriteString("task list: absent\n")
	} else {
		fmt.Fprintf(&b, "task list: %d tasks\n", len(r.Tasks))
		for _, task := range r.Tasks {
			fmt.Fprintf(&b, "  - %s: %q\n", task.Status, task.Text)
		}
	}
	for i, tool := range r.Tools {
		block(fmt.Sprintf("tool %d: %s, input", i+1, tool.Name), tool.Input)
	}
	block("template", r.Template())
	return b.String()
}

// checkRoundTrip asserts that the template of r parses back to r, and that
// the template itself needs no leniency.
func checkRoundTrip(t testing.TB, r Response) {
	t.Helper()
	tpl := r.Template()
	again, err := Parse(tpl, testTools)
	if err != nil {
		t.Fatalf("Parse(Template()) failed: %v\ntemplate:\n%s", err, tpl)
	}
	if again.Thoughts != r.Thoughts || again.HasTaskList != r.HasTaskList ||
		!reflect.DeepEqual(again.Tasks, r.Tasks) || !reflect.DeepEqual(again.Tools, r.Tools) {
		t.Fatalf("Parse(Template()) differs\n got  %#v\n want %#v\ntemplate:\n%s", again, r, tpl)
	}
	if again.Reasoning != "" {
		t.Errorf("Parse(Template()) found reasoning %q in\n%s", again.Reasoning, tpl)
	}
	for _, w := range again.Warnings {
		if w != "The reply had no Thoughts." {
			t.Errorf("Parse(Template()) warned %q for\n%s", w, tpl)
		}
	}
	if got := again.Template(); got != tpl {
		t.Errorf("Template() is not stable:\n%s\n---\n%s", got, tpl)
	}
}

// TestParseErrorsStayShort: many broken tool calls give one short message.
func TestParseErrorsStayShort(t *testing.T) {
	t.Parallel()
	reply := "# Agent Response\n## Thoughts\nx\n" + strings.Repeat("## Tool Choice\nNOPE\n## Tool Input\nx\n", 50)
	_, err := Parse(reply, testTools)
	if err == nil {
		t.Fatal("Parse accepted unknown tools")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "Your reply has 50 format problems:\n1. Unknown tool \"NOPE\"") ||
		!strings.Contains(msg, "\n5. ") || strings.Contains(msg, "\n6. ") ||
		!strings.Contains(msg, "\n… and 45 more.\nValid tools: LIST_DIRECTORY,") {
		t.Errorf("message:\n%s", msg)
	}
	if strings.Count(msg, "Valid tools") != 1 {
		t.Errorf("the valid tools are listed %d times", strings.Count(msg, "Valid tools"))
	}
}

func TestParseWithoutTools(t *testing.T) {
	t.Parallel()
	_, err := Parse("# Agent Response\n## Tool Choice\nDONE", nil)
	want := "Unknown tool \"DONE\" under `## Tool Choice`: write exactly one of the valid tool names.\nNo tools are available."
	if err == nil || err.Error() != want {
		t.Errorf("Parse with no tools: %v, want %q", err, want)
	}
}

// TestParseMissingToolChoiceListsSectionsOnce: the sections found are named
// once each, in order.
func TestParseMissingToolChoiceListsSectionsOnce(t *testing.T) {
	t.Parallel()
	_, err := Parse("## Thoughts\na\n## Task List\n## Thoughts\nb\n## Tool Input\nc", testTools)
	want := "Your reply has no `## Tool Choice` section (found: `## Thoughts`, `## Task List`, `## Tool Input`). " +
		"Add `## Tool Choice` with one tool name on the next line, then `## Tool Input`."
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
