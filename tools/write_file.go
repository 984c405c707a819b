package tools

import (
	"context"
	"fmt"

	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/textfmt"
)

// WriteFile is the tool's name, as the protocol spells it.
const WriteFile = "WRITE_FILE"

// WriteFileTool creates or overwrites a file with the content of a code block.
type WriteFileTool struct{}

// Name implements Tool.
func (WriteFileTool) Name() string { return WriteFile }

// Doc implements Tool.
func (WriteFileTool) Doc() Doc {
	return describe(WriteFile, "write_file", parser.InputFileBlock, ReachItsFiles, nil)
}

// writeInput is WRITE_FILE's input as Check reads it.
type writeInput struct {
	path   string
	blocks []parser.CodeBlock // the first is the content
}

func writeArgs(input string) (writeInput, error) {
	path, rest, ok := pathInput(input)
	if !ok {
		return writeInput{}, fmt.Errorf("WRITE_FILE needs the file's path on the first line, then one fenced code block with the whole content, e.g.:\n%s",
			WriteFileTool{}.Doc().Example)
	}
	blocks := parser.CodeBlocks(rest)
	if len(blocks) == 0 {
		return writeInput{}, fmt.Errorf("WRITE_FILE for %s has no fenced code block. Put the whole file content in one block after the path, e.g.:\n%s",
			path, WriteFileTool{}.Doc().Example)
	}
	return writeInput{path: path, blocks: blocks}, nil
}

// Check implements Tool.
func (t WriteFileTool) Check(input string) (Checked, error) {
	return Bind(input, writeArgs, t.run)
}

func (WriteFileTool) run(ctx context.Context, env *Env, in writeInput) Result {
	abs := resolve(env.Dir, in.path)
	disp := display(env.Dir, abs)
	r := Result{Tool: WriteFile, Summary: disp, Attrs: [][2]string{{"path", disp}}}
	content := in.blocks[0].Content
	if why := writeRefusal(env, abs); why != "" {
		return r.refuse(why)
	}
	if why := redactedRefusal(disp, content); why != "" {
		return r.refuse(why)
	}
	if v := env.approveChange(ctx, WriteFile, disp, abs, content); !v.Allowed {
		return r.refuse(v.Why)
	}
	created, err := writeAtomic(abs, []byte(content))
	if err != nil {
		return r.fail(fmt.Sprintf("cannot write %s: %s.", disp, fsErr(err)))
	}
	r.OK = true
	r.Files = []string{disp}
	verb := "overwritten"
	if created {
		verb = "created"
	}
	r.Output = fmt.Sprintf("File %s: %s (%s, %s).", verb, disp, textfmt.Plural(countLines(content), "line"), textfmt.Plural(len(content), "byte"))
	switch n := len(in.blocks) - 1; {
	case n == 1:
		r.Output += " Only the first code block was written; the block after it was ignored."
	case n > 1:
		r.Output += fmt.Sprintf(" Only the first code block was written; the %d blocks after it were ignored.", n)
	}
	return r
}
