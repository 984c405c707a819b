package parser

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// grammarTools mirror the worker's tools and shapes (package tools gives
// each tool its shape; its own property test runs the tools' checks).
var grammarTools = []GrammarTool{
	{"LIST_DIRECTORY", InputPathOrGlob},
	{"READ_FILE", InputFileRange},
	{"WRITE_FILE", InputFileBlock},
	{"FIND_AND_REPLACE_IN_FILE", InputFindReplace},
	{"COMMAND", InputCommand},
	{"READ_BACKGROUND_PROCESS", InputLine},
	{"LIST_BACKGROUND_PROCESSES", InputNone},
	{"UPDATE_TASK_LIST", InputNone},
	{"ASK_USER", InputText},
	{"github.create_issue", InputJSON},
	{"TOOL_HELP", InputToolName},
	{"DONE", InputText},
}

// grammarPool are the characters the draws use: the ones that could start
// a heading, a fence, a tag or a list, blanks, and a few others.
var grammarPool = []rune("aZ09 \t#`~<>/tThink_-*+[]{}():;\"'\\|=!.,?&$@^\r\x00é世🙂\u00a0\u2028\v")

// drawReplies draws n replies from g, each with the tool names its calls
// chose, in order.
func drawReplies(g *Grammar, tools []GrammarTool, seed uint64, n int) (replies []string, chosen [][]string) {
	r := rand.New(rand.NewPCG(seed, 1))
	for range n {
		var names []string
		reply := g.Generate(r, grammarPool, func(rule string) {
			if n, ok := strings.CutPrefix(rule, "call"); ok {
				if i, err := strconv.Atoi(n); err == nil {
					names = append(names, tools[i].Name)
				}
			}
		})
		replies = append(replies, reply)
		chosen = append(chosen, names)
	}
	return replies, chosen
}

// Every reply the grammar allows parses, without a format error or a
// lenience warning, into the tools it chose (SPEC §18): with and without
// the thinking block.
func TestReplyGrammarRepliesParse(t *testing.T) {
	names := make([]string, len(grammarTools))
	for i, tool := range grammarTools {
		names[i] = tool.Name
	}
	for _, opts := range []GrammarOptions{{ReplyCap: 2048}, {Thinking: true, ReplyCap: 2048}} {
		thinking := opts.Thinking
		g := ReplyGrammar(grammarTools, opts)
		replies, chosen := drawReplies(g, grammarTools, 7, 3000)
		sawThink := false
		for i, reply := range replies {
			if strings.HasPrefix(reply, "<think>") {
				sawThink = true
				if !thinking {
					t.Fatalf("a think block without thinking: %q", reply)
				}
			}
			resp, err := Parse(reply, names)
			if err != nil {
				t.Fatalf("thinking %v: the grammar allowed a reply Parse rejects:\n%s\n---\n%q\nerror: %v", thinking, reply, reply, err)
			}
			if len(resp.Warnings) > 0 {
				t.Fatalf("thinking %v: a reply the grammar allowed needed lenience %q:\n%q", thinking, resp.Warnings, reply)
			}
			var got []string
			for _, c := range resp.Tools {
				got = append(got, c.Name)
			}
			if !slices.Equal(got, chosen[i]) {
				t.Fatalf("reply %q parsed into tools %v, the grammar chose %v", reply, got, chosen[i])
			}
			if strings.Contains(reply, "\r") {
				t.Fatalf("the grammar allowed a carriage return: %q", reply)
			}
		}
		if thinking && !sawThink {
			t.Errorf("no draw had a <think> block")
		}
	}
}

// llama.cpp expands a bounded repetition x{0,n} into n rules times the
// rules x brings (a group counts every rule it names for the first time),
// and refuses more than 2,000: a long repetition repeats one rule or one
// character class, never a group.
func TestBoundedRepetitionsStayWithinLlamaCpp(t *testing.T) {
	for _, replyCap := range []int{0, 2048, 32768, 1 << 20} {
		g := ReplyGrammar(grammarTools, GrammarOptions{Thinking: true, ReplyCap: replyCap})
		var walk func(e expr)
		walk = func(e expr) {
			switch e := e.(type) {
			case seq:
				for _, x := range e {
					walk(x)
				}
			case alt:
				for _, x := range e {
					walk(x)
				}
			case rep:
				if e.max > 2000 {
					t.Errorf("cap %d: a repetition of %d", replyCap, e.max)
				}
				switch e.e.(type) {
				case ref, charClass, lit:
				default:
					if e.max > 60 {
						t.Errorf("cap %d: a group repeated %d times: %#v", replyCap, e.max, e.e)
					}
				}
				walk(e.e)
			}
		}
		for _, r := range g.rules {
			walk(r.body)
		}
	}
}

// DONE and the file tools end a reply: a file's content is the longest
// part a reply may hold, so a reply changes one file at most and its
// length stays within the reply cap.
func TestFileToolsAndDoneEndTheReply(t *testing.T) {
	g := ReplyGrammar(grammarTools, GrammarOptions{ReplyCap: 2048})
	_, chosen := drawReplies(g, grammarTools, 11, 3000)
	lastSeen := map[string]bool{}
	for _, names := range chosen {
		for i, name := range names {
			last := i == len(names)-1
			switch name {
			case "DONE", "WRITE_FILE", "FIND_AND_REPLACE_IN_FILE":
				if !last {
					t.Fatalf("the grammar allowed %v: %s before another tool", names, name)
				}
				if len(names) > 1 {
					lastSeen[name] = true
				}
			}
		}
	}
	// The draws reached each of them after another tool: the check above
	// looked where it could fail.
	for _, name := range []string{"DONE", "WRITE_FILE", "FIND_AND_REPLACE_IN_FILE"} {
		if !lastSeen[name] {
			t.Errorf("no draw had %s after another tool", name)
		}
	}
}

// A block of a file's content may take a sixteenth of the reply cap in
// lines, within llama.cpp's limit on a repetition's rules.
func TestFileLines(t *testing.T) {
	for _, tc := range []struct{ replyCap, want int }{
		{0, 0}, {256, 32}, {2048, 128}, {8192, 512}, {16384, 1000}, {32768, 1000},
	} {
		if got := FileLines(tc.replyCap); got != tc.want {
			t.Errorf("FileLines(%d) = %d, want %d", tc.replyCap, got, tc.want)
		}
	}
}

// Thoughts may take a quarter of the reply cap at a token a character:
// fewer lines in a small cap, never none, MaxThoughtLines in a large one.
func TestThoughtLines(t *testing.T) {
	for _, tc := range []struct{ replyCap, want int }{
		{0, MaxThoughtLines}, {256, 1}, {1024, 1}, {2048, 2}, {4096, 4}, {7680, 8}, {16384, 8},
	} {
		if got := ThoughtLines(tc.replyCap); got != tc.want {
			t.Errorf("ThoughtLines(%d) = %d, want %d", tc.replyCap, got, tc.want)
		}
	}
	for _, replyCap := range []int{1024, 2048} {
		want := ThoughtLines(replyCap)
		replies, _ := drawReplies(ReplyGrammar(grammarTools, GrammarOptions{ReplyCap: replyCap}), grammarTools, 13, 500)
		most := 0
		for _, reply := range replies {
			thoughts, _, _ := strings.Cut(strings.TrimPrefix(reply, "# Agent Response\n\n## Thoughts\n"), "\n## Task List\n")
			most = max(most, strings.Count(thoughts, "\n")) // each line ends in one
		}
		// The draws reached the bound: the grammar allows that many lines
		// and no more.
		if most != want {
			t.Errorf("cap %d: the longest Thoughts drawn has %d lines, want %d", replyCap, most, want)
		}
	}
}
