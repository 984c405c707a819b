// Command demo serves a scripted model for the terminal recordings in
// docs/ (made by scripts/record.sh): a worker that adds a function with a
// test in nine steps (the test fails first, then the fix), an auditor that
// checks it, then an answer to a question. It prints the apiUrl to use,
// then serves until interrupted. Requests that are not dev's worker or auditor (dev doctor's
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

const greetTest = "package hello\n\nimport \"testing\"\n\nfunc TestGreet(t *testing.T) {\n\tfor name, want := range map[string]string{\"Ada\": \"Hello, Ada!\", \"\": \"Hello, there!\"} {\n\t\tif got := Greet(name); got != want {\n\t\t\tt.Errorf(\"Greet(%q) = %q, want %q\", name, got, want)\n\t\t}\n\t}\n}\n"

// tasks is the task list with the first done tasks complete and the next
// in progress.
func tasks(done int) string {
	names := []string{"look at the project", "add Greet", "add a test", "run the tests"}
	var lines []string
	for i, n := range names {
		mark := "[ ]"
		switch {
		case i < done:
			mark = "[x]"
		case i == done:
			mark = "[~]"
		}
		lines = append(lines, mark+" "+n)
	}
	return strings.Join(lines, "\n")
}

// script is the recorded session: a 9-step edit (a test fails, the fix,
// the tests and go vet pass), its audit, then a question.
func script() []llmtest.Response {
	return []llmtest.Response{
		reply("The user wants a Greet function with a test. First I look at the project.", tasks(0), "LIST_DIRECTORY", "."),
		reply("A Go module with no code yet. I check its Go version.", tasks(0), "READ_FILE", "go.mod"),
		reply("Go 1.22. I add greet.go.", tasks(1), "WRITE_FILE", "\"greet.go\"\n```go\n"+greet+"```"),
		reply("Now a test, an empty name included.", tasks(2), "WRITE_FILE", "\"greet_test.go\"\n```go\n"+greetTest+"```"),
		reply("Run the tests.", tasks(3), "COMMAND", "go test ./..."),
		reply("An empty name needs a default: I fix Greet.", tasks(3), "FIND_AND_REPLACE_IN_FILE",
			"greet.go\n```find\n\treturn \"Hello, \" + name + \"!\"\n```\n```replace\n\tif name == \"\" {\n\t\tname = \"there\"\n\t}\n\treturn \"Hello, \" + name + \"!\"\n```"),
		reply("Run the tests again.", tasks(3), "COMMAND", "go test ./..."),
		reply("They pass. go vet as well.", tasks(3), "COMMAND", "go vet ./..."),
		reply("All clean. Done.", tasks(4), "DONE",
			"Added **Greet(name)** in `greet.go`, with `TestGreet`; an empty name greets \"there\". `go test` and `go vet` pass."),
		// The auditor.
		reply("Check the function the agent says it wrote.", "", "READ_FILE", "\"greet.go\""),
		reply("Run the tests myself.", "", "COMMAND", "go test ./..."),
		reply("Greet exists, is tested, and the tests pass.", "", "DONE",
			"| check | result |\n|---|---|\n| greet.go defines Greet | PASS |\n| go test ./... | PASS |\n\nOverall: PASS"),
		// A question: answered without changes, so not audited.
		reply("Greet gives an empty name a default.", "", "DONE",
			"`Greet(\"\")` returns `\"Hello, there!\"`: an empty name is greeted as \"there\"."),
	}
}
