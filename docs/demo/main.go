// Command demo serves a scripted model for the terminal recordings in
// docs/ (made by docs/record.sh) and the README's quick start: a worker
// that adds a function with a test, an auditor that checks it, then an
// answer to a question. It prints the apiUrl to use, then serves until
// interrupted. Requests that are not dev's worker or auditor (dev doctor's
// probes) are answered aside, so that the script is not used up by them.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/devagent/dev/llm/llmtest"
)

func main() {
	srv := llmtest.New("qwen3-coder")
	defer srv.Close()
	srv.Respond(probe)
	srv.Script(script()...)
	fmt.Println(srv.BaseURL())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	<-stop
}

// The first words of the system prompts of dev's worker and auditor.
const (
	workerPrompt  = "You are dev, a software engineering agent working in a terminal. Working directory:"
	auditorPrompt = "You are the auditor of dev"
)

// probe answers what is not a step of the scripted session: dev doctor's
// one-word probes, and its protocol probe in the reply format.
func probe(req llmtest.Request) (llmtest.Response, bool) {
	system := ""
	if len(req.Messages) > 0 && req.Messages[0].Role == "system" {
		system = req.Messages[0].Content
	}
	switch {
	case strings.HasPrefix(system, workerPrompt), strings.HasPrefix(system, auditorPrompt):
		return llmtest.Response{}, false
	case strings.HasPrefix(system, "You are dev"):
		return llmtest.Response{Content: llmtest.Reply("The format check.", "DONE", "OK")}, true
	}
	return llmtest.Response{Content: "OK."}, true
}

func reply(thoughts, tasks, tool, input string) llmtest.Response {
	return llmtest.Response{Content: llmtest.Template(thoughts, tasks, llmtest.Call{Tool: tool, Input: input})}
}

const greet = "package hello\n\n// Greet says hello to name.\nfunc Greet(name string) string {\n\treturn \"Hello, \" + name + \"!\"\n}\n"

const greetTest = "package hello\n\nimport \"testing\"\n\nfunc TestGreet(t *testing.T) {\n\tif got := Greet(\"Ada\"); got != \"Hello, Ada!\" {\n\t\tt.Errorf(\"Greet(Ada) = %q\", got)\n\t}\n}\n"

func script() []llmtest.Response {
	return []llmtest.Response{
		reply("The user wants a Greet function with a test. First I look at the project.",
			"[~] look at the project\n[ ] add Greet\n[ ] add a test\n[ ] run the tests",
			"LIST_DIRECTORY", "."),
		reply("A Go module named hello with no code yet. I add greet.go.",
			"[x] look at the project\n[~] add Greet\n[ ] add a test\n[ ] run the tests",
			"WRITE_FILE", "\"greet.go\"\n```go\n"+greet+"```"),
		reply("Now a test for Greet.",
			"[x] look at the project\n[x] add Greet\n[~] add a test\n[ ] run the tests",
			"WRITE_FILE", "\"greet_test.go\"\n```go\n"+greetTest+"```"),
		reply("Run the tests.",
			"[x] look at the project\n[x] add Greet\n[x] add a test\n[~] run the tests",
			"COMMAND", "go test ./..."),
		reply("The test passes. Done.",
			"[x] look at the project\n[x] add Greet\n[x] add a test\n[x] run the tests",
			"DONE", "Added **Greet(name)** with a test:\n\n| file | what |\n|---|---|\n| greet.go | `Greet` returns \"Hello, name!\" |\n| greet_test.go | `TestGreet` checks it |\n\n`go test ./...` passes."),
		// The auditor.
		reply("Check the function the agent says it wrote.", "", "READ_FILE", "\"greet.go\""),
		reply("Run the tests myself.", "", "COMMAND", "go test ./..."),
		reply("Greet exists, is tested, and the tests pass.", "", "DONE",
			"| check | result |\n|---|---|\n| greet.go defines Greet | PASS |\n| go test ./... | PASS |\n\nOverall: PASS"),
		// A question: answered without changes, so not audited.
		reply("Greet concatenates; an empty name gives an empty greeting target.", "", "DONE",
			"`Greet(\"\")` returns `\"Hello, !\"`: nothing checks for an empty name."),
	}
}
