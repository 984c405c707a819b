package tools

import (
	"embed"
	"github.com/devagent/dev/parser"
	"strings"
	"text/template"
)

// Descriptions are markdown templates so that the limits the code enforces
// are written into them from the same constants; examples are plain files.
//
//go:embed descriptions
var descriptions embed.FS

// describe renders descriptions/<file>.md with data and reads the example
// input descriptions/<file>.example. The templates are fixed at build time
// and every one is rendered by the tests, so a failure here is a bug in this
// package, not bad input.
func describe(name, file string, input parser.InputShape, data any) Doc {
	t, err := template.ParseFS(descriptions, "descriptions/"+file+".md")
	if err != nil {
		panic("tools: description of " + name + ": " + err.Error())
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		panic("tools: description of " + name + ": " + err.Error())
	}
	ex, err := descriptions.ReadFile("descriptions/" + file + ".example")
	if err != nil {
		panic("tools: example of " + name + ": " + err.Error())
	}
	return Doc{
		Name:        name,
		Description: strings.TrimSpace(b.String()),
		Example:     strings.TrimRight(string(ex), "\n"),
		Input:       input,
	}
}
