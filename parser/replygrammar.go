package parser

import (
	"fmt"
	"strings"
)

// InputShape is the shape a tool's `## Tool Input` takes in a reply the
// server shapes with ReplyGrammar. The zero value is free text.
type InputShape int

// Input shapes, from the tools' documented inputs.
const (
	// InputText is free text that is not empty: lines, and fenced code
	// blocks that close (DONE's summary, ASK_USER's question, custom tools).
	InputText InputShape = iota
	// InputOptionalText is free text or nothing (custom tools).
	InputOptionalText
	// InputCommand is free text, or text that starts with a fenced code
	// block whose first line is not blank (COMMAND).
	InputCommand
	// InputLine is one line of text that is not blank (a background
	// process id; the auditor's single command).
	InputLine
	// InputPathOrGlob is nothing (the working directory) or one path or
	// doublestar glob without brackets or braces (LIST_DIRECTORY).
	InputPathOrGlob
	// InputFileRange is a path, optionally followed by a line range
	// `40-80` (READ_FILE).
	InputFileRange
	// InputFileBlock is a path line, then one fenced code block of three
	// or four backticks (WRITE_FILE).
	InputFileBlock
	// InputFindReplace is a path line, a ```find block that is not empty
	// and a ```replace block (FIND_AND_REPLACE_IN_FILE).
	InputFindReplace
	// InputJSON is one JSON object (MCP tools).
	InputJSON
	// InputToolName is the name of one of the tools offered (TOOL_HELP).
	InputToolName
	// InputNone is nothing (UPDATE_TASK_LIST, LIST_BACKGROUND_PROCESSES).
	InputNone
)

// GrammarTool is a tool as the reply grammar offers it.
type GrammarTool struct {
	Name  string
	Input InputShape
}

// doneTool ends the tools of a reply (§1.4): nothing may follow its input.
const doneTool = "DONE"

// Bounds of the parts of a reply the grammar allows. A small model
// decoding greedily repeats itself: a line, a task, a tool pair, until its
// output limit. Bounded, every part of the template ends, and with it the
// reply, well within the default reply cap; a file's content (WRITE_FILE,
// the find and replace blocks) is not bounded.
const (
	// MaxToolCalls bounds the Tool Choice / Tool Input pairs of a reply.
	MaxToolCalls = 4
	// MaxLineChars bounds a line of text: Thoughts, a task, a path, a line
	// of a free-text input or of a code block in it.
	MaxLineChars = 240
	// MaxThoughtLines bounds the lines of Thoughts (blank ones included):
	// fewer in a small reply cap (ThoughtLines).
	MaxThoughtLines = 8
	// MaxTasks bounds the Task List, and MaxTaskChars a task.
	MaxTasks     = 10
	MaxTaskChars = 120
	// MaxTextLines bounds the lines and code blocks of a free-text input
	// (DONE's summary, ASK_USER's question, COMMAND), and MaxBlockLines
	// the lines of a code block in it.
	MaxTextLines  = 24
	MaxBlockLines = 60
)

const (
	maxIndent = 16 // leading blanks of a line of text
	maxInfo   = 24 // characters of a fence's info string
	// MaxFileLineChars bounds a line of a file's content.
	MaxFileLineChars = 1000
)

// GrammarOptions shape a reply grammar.
type GrammarOptions struct {
	// Thinking lets a <think>…</think> block come first: for a model
	// known to reason (SPEC §18). A model that does not reason, shown the
	// way in, takes it and spends its reply there.
	Thinking bool
	// ReplyCap is the max_tokens the replies are sent with; 0: unknown.
	// It bounds a file's content (see FileLines) and Thoughts
	// (ThoughtLines).
	ReplyCap int
}

// FileLines bounds the lines of each block of a file's content (WRITE_FILE's
// block, the find and the replace block) in a reply capped at replyCap
// tokens: a sixteenth of the cap, so that a model repeating a short line
// (four or five tokens with its newline) ends a find and a replace block
// of such lines well before the cap cuts the reply, while content of real
// lines (sixteen tokens or more) reaches the cap first, as it would
// unbounded. A reply holds at most one file tool (it ends the reply).
// 0 (an unknown cap): no bound.
func FileLines(replyCap int) int {
	if replyCap <= 0 {
		return 0
	}
	return min(max(replyCap/16, 32), 1000) // llama.cpp refuses a repetition past 2,000 rules
}

// ThoughtLines bounds the lines of Thoughts in a reply capped at replyCap
// tokens, so that Thoughts take at most a quarter of the cap even at a
// token a character (a model repeating "1. " comes close): MaxThoughtLines
// from a cap of 7,680 up, 2 lines at 2,048, at least 1. Unbounded by the
// cap, SmolLM2 at 2,048 filled eight lines with "1. 1. 1." and the cap cut
// the tool call after them, in the same task of the built-in suite at
// every run. 0 (an unknown cap): MaxThoughtLines.
func ThoughtLines(replyCap int) int {
	if replyCap <= 0 {
		return MaxThoughtLines
	}
	return min(max(replyCap/4/MaxLineChars, 1), MaxThoughtLines)
}

// endsReply reports whether a tool of shape s is the last of its reply, as
// DONE is: a file tool, whose content is the longest part a reply may
// hold, comes once, so that the reply's length stays within its cap.
func endsReply(name string, s InputShape) bool {
	return name == doneTool || s == InputFileBlock || s == InputFindReplace
}

// ReplyGrammar is the grammar of the replies that Parse accepts without a
// format error (SPEC §18), for tools offered in that order:
//
//	# Agent Response
//
//	## Thoughts
//	{up to ThoughtLines lines of text, the first not blank}
//
//	## Task List
//	{up to MaxTasks [ ], [~] or [x] lines of a task}
//
//	## Tool Choice
//	{one of the tools}
//
//	## Tool Input
//	{that tool's input shape}
//
// then more Tool Choice / Tool Input pairs, up to MaxToolCalls, none after
// DONE's or a file tool's (endsReply). With thinking, one <think>…</think> block may come first: a
// server may apply the grammar to the reasoning too (llama.cpp does,
// before it splits the reasoning out).
//
// Text is what Parse can never misread: outside fenced blocks no line
// starts (after blanks) with #, ```, ~~~ or <, and no thinking tag or
// `</` appears anywhere (StripThinking and the invention watch act on
// them); every fenced block closes, and no line inside a block could close
// or nest it. The reply can end only where a tool's input may end, and
// every part but a file's content is bounded, so the model's end-of-text
// comes there.
func ReplyGrammar(tools []GrammarTool, opts GrammarOptions) *Grammar {
	b := grammarBuilder{fileLines: FileLines(opts.ReplyCap), thoughtLines: ThoughtLines(opts.ReplyCap)}
	head := seq{lit("# Agent Response\n\n## Thoughts\n"), b.thoughts(), lit("\n## Task List\n"), upTo(b.task(), MaxTasks), b.calls(tools)}
	if opts.Thinking {
		head = append(seq{opt(b.think())}, head...)
	}
	b.g = newGrammar(head)
	for _, r := range b.pending {
		b.g.add(r.name, r.body)
	}
	return b.g
}

// upTo repeats e at most n times.
func upTo(e expr, n int) rep { return rep{e, 0, n} }

// grammarBuilder collects the rules the root refers to, in the order they
// are first used, so that the GBNF reads top down.
type grammarBuilder struct {
	g            *Grammar
	pending      []rule
	defined      map[string]bool
	fileLines    int // bound of a file's lines, 0 none
	thoughtLines int // bound of the lines of Thoughts
}

// fileRun repeats a line of a file's content: up to fileLines times.
func (b *grammarBuilder) fileRun(e expr) expr {
	if b.fileLines > 0 {
		return upTo(e, b.fileLines)
	}
	return star(e)
}

// rule defines name once and refers to it.
func (b *grammarBuilder) rule(name string, body func() expr) ref {
	if b.defined == nil {
		b.defined = map[string]bool{}
	}
	if !b.defined[name] {
		b.defined[name] = true
		i := len(b.pending)
		b.pending = append(b.pending, rule{name: name})
		b.pending[i].body = body()
	}
	return ref(name)
}

const noLineEnd = "\n\r" // \r too: Parse reads a lone \r as a line end

// blank are the characters strings.TrimSpace removes, besides the line
// ends: a line of them is blank to the tools.
const blank = " \t\v\f\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"

// char is a character of text: '<' only in a run followed by a character
// that cannot start a thinking tag or a closing tag.
func (b *grammarBuilder) char() ref {
	return b.rule("char", func() expr {
		return alt{except("<" + noLineEnd), seq{plus(lit("<")), except("</tT" + noLineEnd)}}
	})
}

// line is a line of text that is not blank and cannot be read as a
// heading, a fence or a tag: what follows its leading blanks is none of
// #, ```, ~~~, <t, </.
func (b *grammarBuilder) line() ref {
	return b.rule("line", func() expr {
		notAfter := func(c string) charClass { return except(c + "<" + noLineEnd) }
		first := alt{
			except(blank + "#`~<" + noLineEnd),
			seq{lit("`"), notAfter("`")},
			seq{lit("``"), notAfter("`")},
			seq{lit("~"), notAfter("~")},
			seq{lit("~~"), notAfter("~")},
			seq{plus(lit("<")), except("</tT \t" + noLineEnd)},
		}
		return seq{upTo(chars(" \t"), maxIndent), first, upTo(b.char(), MaxLineChars)}
	})
}

// thoughts are the Thoughts: a first line that is not blank, then lines
// and blank lines.
func (b *grammarBuilder) thoughts() ref {
	return b.rule("thoughts", func() expr {
		first := seq{b.line(), lit("\n")}
		if b.thoughtLines <= 1 {
			return first
		}
		return append(first, upTo(seq{opt(b.line()), lit("\n")}, b.thoughtLines-1))
	})
}

// text is free text: a first line that is not blank, then lines, blank
// lines and fenced code blocks, each ending in a newline.
func (b *grammarBuilder) text() ref {
	return b.rule("text", func() expr {
		return seq{b.line(), lit("\n"), upTo(b.item(), MaxTextLines-1)}
	})
}

func (b *grammarBuilder) item() ref {
	return b.rule("item", func() expr {
		return alt{seq{opt(b.line()), lit("\n")}, b.block()}
	})
}

// info is a fence's info string.
func (b *grammarBuilder) info() ref {
	return b.rule("info", func() expr { return upTo(chars("a-zA-Z0-9_+.#-"), maxInfo) })
}

// any is any character of a line.
func (b *grammarBuilder) any() ref {
	return b.rule("any", func() expr { return except(noLineEnd) })
}

// Code blocks. Inside a block fenced with three backticks no line starts
// (after up to three spaces) with ```, except for blocks nested as
// CodeBlocks nests them: ```info … ```, which a model writing a markdown
// file uses for the file's own code. A block in free text is bounded
// (MaxBlockLines lines of MaxLineChars); a file's by the reply cap
// (FileLines lines of MaxFileLineChars).

// block is a bounded code block of free text.
func (b *grammarBuilder) block() ref {
	return b.rule("block", func() expr {
		return seq{lit("```"), b.info(), lit("\n"), b.blockBody(), lit("```\n")}
	})
}

func (b *grammarBuilder) blockBody() ref {
	return b.rule("blockbody", func() expr {
		nested := b.rule("blocknested", func() expr {
			return seq{lit("```"), b.infoNamed(), lit("\n"), b.blockBody(), lit("```\n")}
		})
		return upTo(b.rule("blockitem", func() expr { return alt{seq{b.codeLine(true), lit("\n")}, nested} }), MaxBlockLines)
	})
}

// file is a code block holding a file's content, unbounded.
func (b *grammarBuilder) file() ref {
	return b.rule("file", func() expr {
		return seq{lit("```"), b.info(), lit("\n"), b.fileBody(), lit("```\n")}
	})
}

func (b *grammarBuilder) fileBody() ref {
	return b.rule("filebody", func() expr {
		nested := b.rule("filenested", func() expr {
			return seq{lit("```"), b.infoNamed(), lit("\n"), b.fileBody(), lit("```\n")}
		})
		return b.fileRun(b.rule("fileitem", func() expr { return alt{seq{b.codeLine(false), lit("\n")}, nested} }))
	})
}

// infoNamed is an info string that is not empty: what nests a block.
func (b *grammarBuilder) infoNamed() ref {
	return b.rule("infonamed", func() expr {
		return seq{chars("a-zA-Z0-9_+.#-"), upTo(chars("a-zA-Z0-9_+.#-"), maxInfo-1)}
	})
}

// sp3 is up to three spaces, where a fence may still start.
func (b *grammarBuilder) sp3() ref {
	return b.rule("sp3", func() expr { return opt(seq{lit(" "), opt(seq{lit(" "), opt(lit(" "))})}) })
}

// codeLine is a line inside a ``` block: not a fence of three backticks or
// more. Four spaces make any line code. bounded: at most MaxLineChars.
func (b *grammarBuilder) codeLine(bounded bool) ref {
	name := "fileline"
	if bounded {
		name = "codeline"
	}
	return b.rule(name, func() expr {
		return alt{seq{b.sp3(), opt(b.rest(3, bounded))}, seq{lit("    "), b.anyRun(bounded)}}
	})
}

// anyRun is the rest of a line: any characters, up to MaxLineChars in
// text, MaxFileLineChars in a file.
func (b *grammarBuilder) anyRun(text bool) expr {
	// Shared rules: llama.cpp expands each bounded repetition into as
	// many rules as its bound.
	if text {
		return b.rule("textrun", func() expr { return upTo(b.any(), MaxLineChars) })
	}
	return b.rule("filerun", func() expr { return upTo(b.any(), MaxFileLineChars) })
}

// rest is what may follow up to three spaces in a block fenced with n
// backticks: text starting with fewer than n backticks.
func (b *grammarBuilder) rest(n int, bounded bool) ref {
	name := fmt.Sprintf("rest%d", n)
	if bounded {
		name += "b"
	}
	return b.rule(name, func() expr {
		a := alt{seq{except("` " + noLineEnd), b.anyRun(bounded)}}
		for k := 1; k < n; k++ {
			a = append(a, seq{lit(strings.Repeat("`", k)), opt(seq{except("`" + noLineEnd), b.anyRun(bounded)})})
		}
		return a
	})
}

// fence4 is a file's block fenced with four backticks: it may hold ```
// lines, as a markdown file written through WRITE_FILE does.
func (b *grammarBuilder) fence4() ref {
	return b.rule("fence4", func() expr {
		line4 := b.rule("line4", func() expr {
			return alt{seq{b.sp3(), opt(b.rest(4, false))}, seq{lit("    "), b.anyRun(false)}}
		})
		item4 := b.rule("line4item", func() expr { return seq{line4, lit("\n")} })
		return seq{lit("````"), b.info(), lit("\n"), b.fileRun(item4), lit("````\n")}
	})
}

// task is a Task List line.
func (b *grammarBuilder) task() ref {
	return b.rule("task", func() expr {
		// A task starts with neither a blank nor '[': "[ ] [ ] [ ] …" is
		// how a small model repeats itself here.
		first := alt{except(blank + "[<" + noLineEnd), seq{plus(lit("<")), except("</tT" + noLineEnd)}}
		return seq{lit("["), chars(" x~"), lit("] "), first, upTo(b.char(), MaxTaskChars-1), lit("\n")}
	})
}

// think is a reasoning block: anything but a closing tag, or "</" at all.
func (b *grammarBuilder) think() ref {
	return b.rule("think", func() expr {
		tchar := b.rule("think-char", func() expr { return alt{except("<\r"), seq{plus(lit("<")), except("</\r")}} })
		return seq{lit("<think>"), star(tchar), lit("</think>"), opt(seq{lit("\n"), opt(lit("\n"))})}
	})
}

// calls are the Tool Choice / Tool Input pairs: up to MaxToolCalls tools,
// DONE and a file tool only last (endsReply).
func (b *grammarBuilder) calls(tools []GrammarTool) expr {
	choice := lit("\n## Tool Choice\n")
	var steps, finals alt
	for i, t := range tools {
		name := fmt.Sprintf("call%d", i)
		call := b.rule(name, func() expr {
			return seq{lit(t.Name + "\n\n## Tool Input\n"), b.input(t.Input, tools)}
		})
		if endsReply(t.Name, t.Input) {
			finals = append(finals, call)
			continue
		}
		steps = append(steps, call)
	}
	var done expr
	switch len(finals) {
	case 0:
	case 1:
		done = finals[0]
	default:
		done = b.rule("last", func() expr { return finals })
	}
	switch {
	case len(steps) == 0 && done == nil:
		// No tools: nothing can parse; still a valid grammar.
		return seq{choice, lit(doneTool + "\n\n## Tool Input\n")}
	case len(steps) == 0:
		return seq{choice, done}
	}
	step := b.rule("step", func() expr {
		if len(steps) == 1 {
			return steps[0]
		}
		return steps
	})
	// callsN: a tool and up to N-1 more, or DONE.
	var rest expr
	for n := 1; n <= MaxToolCalls; n++ {
		next := seq{step}
		if rest != nil {
			next = append(next, opt(rest))
		}
		var body expr = seq{choice, next}
		if done != nil {
			body = seq{choice, alt{next, done}}
		}
		rest = b.rule(fmt.Sprintf("calls%d", n), func() expr { return body })
	}
	return rest
}

// input is the rule of a tool input of shape s.
func (b *grammarBuilder) input(s InputShape, tools []GrammarTool) expr {
	switch s {
	case InputOptionalText:
		return opt(b.text())
	case InputCommand:
		return b.rule("command", func() expr { return alt{b.text(), seq{b.codeFirst(), upTo(b.item(), MaxTextLines-1)}} })
	case InputLine:
		return seq{b.line(), lit("\n")}
	case InputPathOrGlob:
		return b.rule("dir", func() expr {
			glob := "\"'`<:#~[]{}\\" // no brackets or braces: an unbalanced one is an invalid glob
			quoted := seq{lit(`"`), except(`"` + blank + glob + noLineEnd), upTo(except(`"`+glob+noLineEnd), MaxLineChars), lit(`"`)}
			bare := seq{except(blank + glob + noLineEnd), upTo(except(" \t"+glob+noLineEnd), MaxLineChars)}
			return opt(seq{alt{quoted, bare}, lit("\n")})
		})
	case InputFileRange:
		return b.rule("read", func() expr {
			digits := seq{chars("0-9"), upTo(chars("0-9"), 8)}
			return seq{b.path(), opt(seq{lit(" "), digits, lit("-"), digits}), lit("\n")}
		})
	case InputFileBlock:
		return b.rule("write", func() expr {
			return seq{b.path(), lit("\n"), opt(lit("\n")), alt{b.file(), b.fence4()}}
		})
	case InputFindReplace:
		return b.rule("edit", func() expr {
			find := seq{lit("```find\n"), b.findFirst(), lit("\n"), b.fileBody(), lit("```\n")}
			replace := seq{lit("```replace\n"), b.fileBody(), lit("```\n")}
			return seq{b.path(), lit("\n"), opt(lit("\n")), find, opt(lit("\n")), replace}
		})
	case InputJSON:
		return seq{b.jsonObject(), lit("\n")}
	case InputToolName:
		return b.rule("toolname", func() expr {
			var names alt
			for _, t := range tools {
				names = append(names, lit(t.Name))
			}
			return seq{names, lit("\n")}
		})
	case InputNone:
		return lit("")
	}
	return b.text()
}

// path is a file path: in double quotes, or bare without blanks, quotes,
// colons (a.go:40-80 is a range) or a leading # or ~~.
func (b *grammarBuilder) path() ref {
	return b.rule("path", func() expr {
		quoted := seq{lit(`"`), except(`"<` + blank + noLineEnd), upTo(except(`"<`+noLineEnd), MaxLineChars), lit(`"`)}
		const bad = " \t\"'`<:" + noLineEnd
		first := alt{except(bad + blank + "#~"), seq{lit("~"), except(bad + "~")}}
		return alt{quoted, seq{first, upTo(except(bad), MaxLineChars)}}
	})
}

// findFirst is the first line of a find block: not empty (an empty find is
// an error), and not a fence.
func (b *grammarBuilder) findFirst() ref {
	return b.rule("findfirst", func() expr {
		return alt{seq{lit(" "), opt(seq{lit(" "), opt(lit(" "))}), opt(b.rest(3, false))}, b.rest(3, false), seq{lit("    "), b.anyRun(false)}}
	})
}

// codeFirst is a ``` block whose first line is not blank: a COMMAND given
// as a block runs its content, which must not be empty.
func (b *grammarBuilder) codeFirst() ref {
	return b.rule("codefirst", func() expr {
		run := b.anyRun(true)
		solid := alt{
			seq{b.sp3(), except("`" + blank + noLineEnd), run},
			seq{b.sp3(), lit("`"), opt(seq{except("`" + noLineEnd), run})},
			seq{b.sp3(), lit("``"), opt(seq{except("`" + noLineEnd), run})},
			seq{lit("    "), upTo(chars(blank), maxIndent), except(blank + noLineEnd), run},
		}
		return seq{lit("```"), b.info(), lit("\n"), solid, lit("\n"), b.blockBody(), lit("```\n")}
	})
}

// jsonObject is a JSON object, as llama.cpp's grammars/json.gbnf has it,
// with no '<' in strings (a thinking tag on a line is not content).
func (b *grammarBuilder) jsonObject() ref {
	return b.rule("json", func() expr {
		ws := b.rule("jws", func() expr { return opt(alt{lit(" "), seq{lit("\n"), upTo(chars(" \t"), maxIndent)}}) })
		hex := chars("0-9a-fA-F")
		str := b.rule("jstring", func() expr {
			return seq{lit(`"`), star(alt{except("\"\\<\x7f\x00-\x1f"), seq{lit(`\`), alt{chars(`"\/bfnrt`), seq{lit("u"), hex, hex, hex, hex}}}}), lit(`"`), ws}
		})
		value := ref("jvalue")
		member := func() expr { return seq{str, lit(":"), ws, value} }
		obj := b.rule("jobject", func() expr {
			return seq{lit("{"), ws, opt(seq{member(), star(seq{lit(","), ws, member()})}), lit("}"), ws}
		})
		arr := b.rule("jarray", func() expr {
			return seq{lit("["), ws, opt(seq{value, star(seq{lit(","), ws, value})}), lit("]"), ws}
		})
		num := b.rule("jnumber", func() expr {
			// At most 16 digits before the point and 2 in the exponent:
			// a number beyond float64 is not JSON that Go (nor most
			// servers' clients) can read.
			return seq{opt(lit("-")), alt{lit("0"), seq{chars("1-9"), upTo(chars("0-9"), 15)}}, opt(seq{lit("."), plus(chars("0-9"))}),
				opt(seq{chars("eE"), opt(chars("-+")), chars("0-9"), opt(chars("0-9"))}), ws}
		})
		b.rule("jvalue", func() expr {
			return alt{obj, arr, str, num, seq{alt{lit("true"), lit("false"), lit("null")}, ws}}
		})
		return seq{lit("{"), ws, opt(seq{member(), star(seq{lit(","), ws, member()})}), lit("}")}
	})
}
