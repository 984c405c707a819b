package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/textfmt"
)

// ReadFile is the tool's name, as the protocol spells it.
const ReadFile = "READ_FILE"

const (
	// MaxReadLines and MaxReadBytes cap what one READ_FILE shows.
	MaxReadLines = 1000
	MaxReadBytes = 48 << 10
)

// ReadFileTool shows a text file, or a range of its lines.
type ReadFileTool struct{}

// Name implements Tool.
func (ReadFileTool) Name() string { return ReadFile }

// Doc implements Tool.
func (ReadFileTool) Doc() Doc {
	return describe(ReadFile, "read_file", parser.InputFileRange, ReachNothing, struct{ MaxLines, MaxKB int }{MaxReadLines, MaxReadBytes >> 10})
}

// lineRange matches an unquoted path followed by a range: a.go:40-80, a.go 40-80.
var lineRange = regexp.MustCompile(`^(.*?)(?::|\s+)(\d+)\s*-\s*(\d+)$`)

// rangeOnly matches what may follow a quoted path: 40-80 or :40-80.
var rangeOnly = regexp.MustCompile(`^:?\s*(\d+)\s*-\s*(\d+)$`)

// readInput is READ_FILE's input as Check reads it.
type readInput struct {
	path     string
	from, to int // 0 without a range
	// whole is the first line as one path, range and all: a file of that
	// name, when it exists, is read instead ("report 2024-2025").
	whole string
	// summary is the input in a line, the result's before the path is
	// resolved.
	summary string
}

// readArgs parses `"a.go"`, `"a.go" 40-80`, `a.go:40-80` or `a.go 40-80`.
func readArgs(input string) (readInput, error) {
	line, _ := splitFirstLine(input)
	if line == "" {
		return readInput{}, fmt.Errorf("READ_FILE needs a path. Expected a path, optionally with a line range, e.g.:\n%s", readExample())
	}
	var path, rest string
	if q := line[0]; isQuote(q) {
		if end := strings.IndexByte(line[1:], q); end >= 0 {
			path, rest = line[1:1+end], strings.TrimSpace(line[2+end:])
		}
	}
	if path == "" {
		if m := lineRange.FindStringSubmatch(line); m != nil {
			path, rest = unquote(m[1]), m[2]+"-"+m[3]
		} else {
			path = unquote(line)
		}
	}
	path = strings.TrimSpace(path)
	if path == "" {
		return readInput{}, fmt.Errorf("READ_FILE needs a path. Expected a path, optionally with a line range, e.g.:\n%s", readExample())
	}
	if rest == "" {
		return readInput{path: path}, nil
	}
	m := rangeOnly.FindStringSubmatch(rest)
	if m == nil {
		return readInput{}, fmt.Errorf("READ_FILE: cannot read the line range %q. Write it as two line numbers after the path, e.g.:\n%s", rest, readExample())
	}
	from, _ := strconv.Atoi(m[1])
	to, _ := strconv.Atoi(m[2])
	// A range that ends before it starts is well formed, like a path that
	// does not exist: run says so (a reply shaped by the server's grammar,
	// which cannot compare numbers, must never be a format error).
	return readInput{path: path, from: max(from, 1), to: max(to, 1), whole: unquote(line), summary: textfmt.Summary(input, 80)}, nil
}

// backwards is the failure of a line range that ends before it starts.
func backwards(from, to int) string {
	return fmt.Sprintf("the line range %d-%d ends before it starts. Write the first line, then the last, e.g.:\n%s", from, to, readExample())
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func readExample() string { return ReadFileTool{}.Doc().Example }

// Check implements Tool.
func (t ReadFileTool) Check(input string) (Checked, error) {
	return Bind(input, readArgs, t.run)
}

func (ReadFileTool) run(ctx context.Context, env *Env, in readInput) Result {
	p, from, to := in.path, in.from, in.to
	// A name such as "report 2024-2025" that exists is a path, not a range.
	if from > 0 && in.whole != p && exists(resolve(env.Dir, in.whole)) {
		p, from, to = in.whole, 0, 0
	}
	r := Result{Tool: ReadFile, Summary: in.summary}
	if from > to {
		return r.fail(backwards(from, to))
	}
	abs := resolve(env.Dir, p)
	disp := display(env.Dir, abs)
	r.Summary = disp
	if from > 0 {
		r.Summary = fmt.Sprintf("%s %d-%d", disp, from, to)
	}
	r.Attrs = [][2]string{{"path", disp}}
	info, err := os.Stat(abs)
	switch {
	case err != nil:
		return r.fail(missingMessage(ctx, env, abs, err, true))
	case info.IsDir():
		return r.fail(fmt.Sprintf("%s is a directory, not a file. Use LIST_DIRECTORY to see what it holds.", disp))
	case !info.Mode().IsRegular():
		return r.fail(fmt.Sprintf("%s is not a regular file (%s); READ_FILE reads text files only.", disp, info.Mode().Type()))
	}
	f, err := os.Open(abs)
	if err != nil {
		return r.fail(missingMessage(ctx, env, abs, err, true))
	}
	defer f.Close()
	head, err := sniff(f)
	if err != nil {
		return r.fail(fmt.Sprintf("cannot read %s: %s.", disp, fsErr(err)))
	}
	if isBinary(head) {
		return r.fail(fmt.Sprintf("%s is a binary file (%s); READ_FILE shows text only. Inspect it with COMMAND instead (e.g. `file`, `xxd | head`).",
			disp, textfmt.Size(info.Size())))
	}
	rd, err := readLines(f, from, to)
	if err != nil {
		return r.fail(fmt.Sprintf("cannot read %s: %s.", disp, fsErr(err)))
	}
	if from > rd.total || (from == 0 && rd.total == 0) {
		if rd.total == 0 {
			if from > 0 {
				return r.fail(fmt.Sprintf("%s is empty; there is no line %d.", disp, from))
			}
			r.OK, r.Output = true, disp+" (empty file, 0 lines)"
			return r
		}
		return r.fail(fmt.Sprintf("%s has %s; the range %d-%d starts past the end. Read \"%s\" %d-%d instead.",
			disp, textfmt.Plural(rd.total, "line"), from, to, disp, max(1, rd.total-MaxReadLines+1), rd.total))
	}
	r.OK, r.Output = true, rd.format(disp, from)
	return r
}

// reading is the part of a file READ_FILE shows.
type reading struct {
	text      strings.Builder
	first     int  // first line shown
	last      int  // last line shown (0: none)
	total     int  // lines in the file
	crlf      bool // shown lines end in \r\n
	cutLine   int  // a line too long to show whole (0: none)
	stopped   bool // stopped by the caps before the requested end
	requested int  // the requested last line, 0 for none
}

// readLines reads the lines from-to (all when from is 0) within the caps,
// and counts the lines of the whole file. Memory stays bounded by the caps
// whatever the file holds, one huge line included.
func readLines(f io.Reader, from, to int) (*reading, error) {
	rd := &reading{first: max(from, 1), requested: to}
	br := bufio.NewReaderSize(f, 64<<10)
	var cur []byte // the current line, kept only up to the byte cap
	long := false  // cur was cut
	line := 1
	endLine := func(nl bool) {
		defer func() { cur, long = cur[:0], false }()
		if rd.stopped || line < rd.first || (to > 0 && line > to) {
			return
		}
		shown := rd.last - rd.first + 1
		if rd.last == 0 {
			shown = 0
		}
		if shown == MaxReadLines || (shown > 0 && rd.text.Len()+len(cur) > MaxReadBytes) {
			rd.stopped = true
			return
		}
		text := cur
		if nl {
			text = bytes.TrimSuffix(text, []byte("\n"))
			if bytes.HasSuffix(text, []byte("\r")) {
				text, rd.crlf = text[:len(text)-1], true
			}
		}
		if long || len(text) > MaxReadBytes {
			text = trimToRune(text, MaxReadBytes)
			rd.cutLine = line
		}
		if shown > 0 {
			rd.text.WriteByte('\n')
		}
		rd.text.Write(text)
		rd.last = line
		if rd.cutLine == line {
			rd.stopped = to == 0 || line < to
		}
	}
	for {
		frag, err := br.ReadSlice('\n')
		if len(frag) > 0 {
			if len(cur) <= MaxReadBytes {
				cur = append(cur, frag[:min(len(frag), MaxReadBytes+1-len(cur))]...)
			}
			if len(cur) > MaxReadBytes {
				long = true
			}
			if frag[len(frag)-1] == '\n' {
				endLine(true)
				line++
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
	rd.total = line - 1
	if len(cur) > 0 {
		endLine(false)
		rd.total = line
	}
	return rd, nil
}

// trimToRune cuts b to at most n bytes without splitting a UTF-8 sequence.
func trimToRune(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	b = b[:n]
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		if r, size := utf8.DecodeLastRune(b); r != utf8.RuneError || size != 1 {
			break
		}
		b = b[:len(b)-1]
	}
	return b
}

func (rd *reading) format(disp string, from int) string {
	var b strings.Builder
	b.WriteString(disp)
	whole := rd.first == 1 && rd.last == rd.total
	if whole {
		b.WriteString(" (" + textfmt.Plural(rd.total, "line"))
	} else {
		fmt.Fprintf(&b, " (lines %d-%d of %d", rd.first, rd.last, rd.total)
	}
	if rd.crlf {
		b.WriteString(", CRLF line endings")
	}
	b.WriteString(")\n")
	b.WriteString(rd.body(disp))
	return b.String()
}

// body is the lines shown, then the notes on what was not.
func (rd *reading) body(disp string) string {
	var b strings.Builder
	b.WriteString(strings.ToValidUTF8(rd.text.String(), "\uFFFD"))
	if rd.cutLine > 0 {
		fmt.Fprintf(&b, "\n[Line %d is longer than %d KB; only its start is shown.]", rd.cutLine, MaxReadBytes>>10)
	}
	end := rd.total
	if rd.requested > 0 {
		end = min(rd.requested, rd.total)
	}
	if rd.stopped && rd.last < end {
		next := rd.last + 1
		fmt.Fprintf(&b, "\n[Shown up to line %d: one read shows at most %d lines or %d KB. To read on: \"%s\" %d-%d]",
			rd.last, MaxReadLines, MaxReadBytes>>10, disp, next, min(end, next+MaxReadLines-1))
	}
	return b.String()
}

// TextFile is a file read as READ_FILE reads it whole, for attaching it to
// a request (@file mentions).
type TextFile struct {
	Text   string // the lines READ_FILE would show, then its note on what was cut
	Lines  int    // lines in the file
	Binary bool   // not text: Text is empty
	Size   int64
}

// ReadText reads the file at path within READ_FILE's caps (MaxReadLines,
// MaxReadBytes); disp is how the notes name it (the path as the user wrote
// it). A binary file is reported, not read.
func ReadText(path, disp string) (TextFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return TextFile{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return TextFile{}, err
	}
	head, err := sniff(f)
	if err != nil {
		return TextFile{}, err
	}
	if isBinary(head) {
		return TextFile{Binary: true, Size: info.Size()}, nil
	}
	rd, err := readLines(f, 0, 0)
	if err != nil {
		return TextFile{}, err
	}
	return TextFile{Text: rd.body(disp), Lines: rd.total, Size: info.Size()}, nil
}

// TextOf is content that did not come from the disk (an editor's unsaved
// buffer) read as ReadText reads a file: within READ_FILE's caps; disp
// names it in the notes.
func TextOf(content, disp string) TextFile {
	size := int64(len(content))
	if isBinary([]byte(content[:min(len(content), sniffLen)])) {
		return TextFile{Binary: true, Size: size}
	}
	rd, _ := readLines(strings.NewReader(content), 0, 0) // a strings.Reader never fails
	return TextFile{Text: rd.body(disp), Lines: rd.total, Size: size}
}
