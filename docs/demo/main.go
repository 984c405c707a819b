// Command demo serves a scripted model for the terminal recording in
// docs/interactive-session.txt (made by docs/record.sh): a worker that adds
// a function with a test, then an auditor that checks it. It prints the
// apiUrl to use, then serves until interrupted.
package main

import (
	"fmt"
	"os"
	"os/signal"

	"github.com/devagent/dev/llm/llmtest"
)

func main() {
	srv := llmtest.New("qwen3-coder")
	defer srv.Close()
	srv.Script(script()...)
	fmt.Println(srv.BaseURL())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	<-stop
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
			"DONE", "Added Greet(name) in greet.go with a test in greet_test.go; go test ./... passes."),
		// The auditor.
		reply("Check the function the agent says it wrote.", "", "READ_FILE", "\"greet.go\""),
		reply("Run the tests myself.", "", "COMMAND", "go test ./..."),
		reply("Greet exists, is tested, and the tests pass.", "", "DONE",
			"| check | result |\n|---|---|\n| greet.go defines Greet | PASS |\n| go test ./... | PASS |\n\nOverall: PASS"),
	}
}
