package realserver

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/devagent/dev/history"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/prompts"
	"github.com/devagent/dev/shape"
	"github.com/devagent/dev/tools"
)

// llama-server accepts the JSON form's schema dev builds (the worker's,
// custom and MCP tools included, and the auditor's), within its grammar
// parser's limits, and the reply it shapes with it is an object of the
// form: dev turns it into a template that parses (SPEC §18).
func TestRealServerAppliesTheJSONForm(t *testing.T) {
	srv := server(t, "smollm2", 8192, 1)
	extended, err := tools.Compose(tools.NewCustomTool(tools.CustomSpec{Name: "RUN_TESTS", Description: "Runs the tests.", Command: "true"}))
	if err != nil {
		t.Fatal(err)
	}
	auditor := []tools.Doc{tools.ReadFileTool{}.Doc(), tools.ListDirectoryTool{}.Doc(),
		{Name: tools.Command, Input: parser.InputLine}, tools.DoneTool{}.Doc()}
	system, request := prompts.DoctorProtocol()
	for name, docs := range map[string][]tools.Doc{"worker": extended.Docs(), "auditor": auditor} {
		offered := tools.Shaped(docs)
		form := parser.ReplyJSON(offered)
		body := map[string]any{"model": "smollm2", "temperature": 0, "max_tokens": 1024,
			"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": shape.SchemaName, "strict": true,
				"schema": json.RawMessage(form.Schema())}},
			"messages": []map[string]string{{"role": "system", "content": system},
				{"role": "user", "content": history.Request(request).Content + "\n\n" + shape.Note(form)}}}
		status, out := chat(t, srv, body)
		if status != http.StatusOK {
			t.Errorf("%s: llama-server answered %d: %v", name, status, out)
			continue
		}
		content, finish := "", ""
		if cs, ok := out["choices"].([]any); ok && len(cs) > 0 {
			choice, _ := cs[0].(map[string]any)
			msg, _ := choice["message"].(map[string]any)
			content, _ = msg["content"].(string)
			finish, _ = choice["finish_reason"].(string)
		}
		t.Logf("%s: %s, %v: %s", name, finish, out["usage"], content)
		if finish == "length" {
			t.Errorf("%s: the shaped reply ran to 1,024 tokens: %q", name, content)
			continue
		}
		text, err := form.Template(content)
		if err != nil {
			t.Errorf("%s: the reply llama-server shaped is not in the JSON form: %v\n%s", name, err, content)
			continue
		}
		if _, err := parser.Parse(text, extended.Names()); err != nil {
			t.Errorf("%s: the template of the reply does not parse: %v\n%s", name, err, text)
		}
	}
}
