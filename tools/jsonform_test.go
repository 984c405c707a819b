package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devagent/dev/mcp"
	"github.com/devagent/dev/parser"
)

// jsonPool are the pieces the draws of the JSON form are made of: what
// could start a heading, a fence, a tag, an HTML block, a list or a line
// range, blanks, line ends, and others.
var jsonPool = []string{"a", "Z", "0", "go", " ", "\t", "\n", "\r", "\r\n", "#", "## Tool Choice", "# Agent Response", "## Thoughts",
	"```", "````", "~~~", "```python", "    ```", "<think>", "</think>", "<Thinking>", "<!--", "-->", "<script>", "<tool_result>",
	"[ ]", "[x]", "- [ ] ", "\"", "'", "`", "\\", ":", "é", "世", "🙂", "\u00a0", "\u2028", "*", "{", "}", "[", "]", "40-80",
	"12", "<", ">", "/", "&", "\x00", "    ", "-", "=", "---", "> "}

// Every reply the JSON form of the worker's tools (built-in, custom, MCP,
// TOOL_HELP) allows becomes a template that passes ParseReply, without
// lenience, with the calls it names, and with what each call carries: a
// command, a file's content, the find and replace texts, a path (SPEC
// §18's property, as for the grammar).
func TestJSONFormRepliesPassTheToolChecks(t *testing.T) {
	t.Parallel()
	set, err := Compose(NewCustomTool(CustomSpec{Name: "RUN_TESTS", Description: "Runs the tests.", Command: "go test ./..."}),
		MCPTool{t: &mcp.Tool{Server: "github", Name: "create_issue", Description: "Creates an issue."}})
	if err != nil {
		t.Fatal(err)
	}
	form := parser.ReplyJSON(Shaped(set.Docs()))
	r := rand.New(rand.NewPCG(17, 3))
	for range 5000 {
		reply := form.Generate(r, jsonPool)
		text, err := form.Template(reply)
		if err != nil {
			t.Fatalf("a reply of the JSON form does not convert: %v\n%s", err, reply)
		}
		resp, err := ParseReply(text, set)
		if err != nil {
			t.Fatalf("the JSON form allowed a reply that fails: %v\n%s\n---\n%s", err, reply, text)
		}
		if len(resp.Warnings) > 0 {
			t.Fatalf("a reply the JSON form allowed needed lenience %q:\n%s\n---\n%s", resp.Warnings, reply, text)
		}
		var sent struct {
			Calls []map[string]any `json:"calls"`
		}
		if err := json.Unmarshal([]byte(reply), &sent); err != nil {
			t.Fatal(err)
		}
		if len(resp.Tools) != len(sent.Calls) {
			t.Fatalf("%d tools parsed, %d sent:\n%s\n---\n%s", len(resp.Tools), len(sent.Calls), reply, text)
		}
		for i, c := range resp.Tools {
			call := sent.Calls[i]
			if c.Name != call["tool"] {
				t.Fatalf("tool %d is %s, the reply chose %s:\n%s\n---\n%s", i, c.Name, call["tool"], reply, text)
			}
			if problem := carried(c, call); problem != "" {
				t.Fatalf("%s %s:\n%s\n---\n%s", c.Name, problem, reply, text)
			}
			if c.Name == Done {
				break // DONE ends the calls
			}
		}
	}
}

// carried says what of call the parsed tool input c lost, "" when nothing.
func carried(c parser.ToolCall, call map[string]any) string {
	field := func(name string) string { s, _ := call[name].(string); return lines(s) }
	switch c.Name {
	case Command:
		if got, want := CommandText(c.Input), strings.TrimSpace(field("command")); got != want {
			return "runs " + q(got) + ", not " + q(want)
		}
	case WriteFile:
		w, _ := writeArgs(c.Input)
		want := field("content")
		if want != "" && !strings.HasSuffix(want, "\n") {
			want += "\n"
		}
		if got := w.blocks[0].Content; got != want {
			return "writes " + q(got) + ", not " + q(want)
		}
		return samePath(w.path, field("path"))
	case FindAndReplace:
		e, _ := editArgs(c.Input)
		if e.find != field("find") || e.replace != field("replace") {
			return "finds " + q(e.find) + " and replaces with " + q(e.replace)
		}
		return samePath(e.path, field("path"))
	case ReadFile:
		r, _ := readArgs(c.Input)
		return samePath(r.path, field("path"))
	}
	return ""
}

// samePath says how p differs from the path sent, "" when it does not: a
// path with a thinking tag in it, or with all three quotes, is the one
// thing written otherwise.
func samePath(p, sent string) string {
	want := strings.TrimSpace(strings.ReplaceAll(sent, "\n", " "))
	odd := strings.Contains(strings.ToLower(want), "think") || strings.Contains(want, `"`) && strings.Contains(want, "'") && strings.Contains(want, "`")
	if path.Clean(p) != path.Clean(want) && !odd {
		return "reads the path " + q(p) + ", not " + q(want)
	}
	return ""
}

func lines(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

func q(s string) string { b, _ := json.Marshal(s); return string(b) }

// The worker's JSON schema, as a server receives it:
// testdata/worker.schema.json (go test -update rewrites it). It uses only
// what llama.cpp's schema converter enforces, with every bound within what
// it expands (SPEC §18).
func TestWorkerJSONSchemaGolden(t *testing.T) {
	t.Parallel()
	got := parser.ReplyJSON(Shaped(Worker().Docs())).Schema()
	path := filepath.Join("testdata", "worker.schema.json")
	if *update {
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, got, "", "  "); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(pretty.Bytes(), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, want); err != nil {
		t.Fatal(err)
	}
	if compact.String() != string(got) {
		t.Errorf("the worker's JSON schema changed (go test ./tools -run TestWorkerJSONSchemaGolden -update):\n%s", got)
	}
	var walk func(v any, at string)
	allowed := map[string]bool{"type": true, "const": true, "enum": true, "properties": true, "required": true,
		"additionalProperties": true, "items": true, "minItems": true, "maxItems": true, "minLength": true, "maxLength": true, "anyOf": true}
	walk = func(v any, at string) {
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		if _, any := obj["anyOf"]; any && len(obj) > 1 {
			t.Errorf("%s: anyOf beside other keywords", at)
		}
		for k, sub := range obj {
			if !allowed[k] {
				t.Errorf("%s: keyword %q, which llama.cpp's converter does not enforce", at, k)
			}
			if n, ok := sub.(float64); ok && (k == "maxLength" || k == "maxItems") && n > 2000 {
				t.Errorf("%s: %s %v, past llama.cpp's repetition limit", at, k, n)
			}
			switch k {
			case "properties":
				for name, p := range sub.(map[string]any) {
					walk(p, at+"."+name)
				}
			case "items":
				walk(sub, at+"[]")
			case "anyOf":
				for i, a := range sub.([]any) {
					walk(a, fmt.Sprintf("%s|%d", at, i))
				}
			}
		}
	}
	var schema any
	if err := json.Unmarshal(got, &schema); err != nil {
		t.Fatal(err)
	}
	walk(schema, "$")
}
