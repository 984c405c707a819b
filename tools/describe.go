package tools

import (
	"embed"
	"strings"
	"text/template"

	"github.com/devagent/dev/parser"
)

// Descriptions are markdown templates so that the limits the code enforces
// are written into them from the same constants; each ends with an example
// input, after exampleMark, taken as it is written.
//
//go:embed descriptions
var descriptions embed.FS

// exampleMark separates a description from its example input.
const exampleMark = "\n<!-- example -->\n"

// describe renders descriptions/<file>.md with data, up to its example.
// The files are fixed at build time and every one is rendered by the
// tests, so a failure here is a bug in this package, not bad input.
func describe(name, file string, input parser.InputShape, reach Reach, data any) Doc {
	src, err := descriptions.ReadFile("descriptions/" + file + ".md")
	if err != nil {
		panic("tools: description of " + name + ": " + err.Error())
	}
	text, example, ok := strings.Cut(string(src), exampleMark)
	if !ok {
		panic("tools: description of " + name + " has no example")
	}
	t, err := template.New(file).Parse(text)
	if err != nil {
		panic("tools: description of " + name + ": " + err.Error())
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		panic("tools: description of " + name + ": " + err.Error())
	}
	return Doc{
		Name:        name,
		Description: strings.TrimSpace(b.String()),
		Example:     strings.TrimRight(example, "\n"),
		Input:       input,
		Reach:       reach,
	}
}
