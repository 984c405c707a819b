// Package mention attaches the files a request names with @path (SPEC
// §15): `@src/main.go` or `@"notes/my file.md"`, relative to the working
// directory, each file's content added after the request text as
// <file path="…">…</file>, capped as READ_FILE caps a read. A binary file
// is named, not attached; an @ followed by anything that is not an existing
// file stays text. It also completes paths after @ for the line editor.
// Pure functions of the request and the file system.
package mention

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/tools"
)

// Attachment is a file a request mentions.
type Attachment struct {
	Path   string // as the request wrote it
	Lines  int    // lines in the file (text files)
	Size   int64
	Binary bool // named, not attached
}

// Expand returns the request with the files it mentions attached after its
// text, and what was attached, in order of first mention. The request text
// itself is kept as written. A file mentioned twice is attached once.
func Expand(dir, text string) (string, []Attachment) {
	var (
		files []File
		list  []Attachment
		seen  = map[string]bool{}
	)
	for _, path := range mentions(dir, text) {
		abs := resolve(dir, path)
		if seen[abs] {
			continue
		}
		seen[abs] = true
		f, err := tools.ReadText(abs, path)
		if err != nil {
			continue // unreadable: the mention stays text, as for a missing file
		}
		list = append(list, Attachment{Path: path, Lines: f.Lines, Size: f.Size, Binary: f.Binary})
		files = append(files, File{Path: path, Text: f.Text, Size: f.Size, Binary: f.Binary})
	}
	return Attach(text, files), list
}

// File is a file attached to a request with its content: one a mention
// names, or one an editor sends with a prompt (whose content may be an
// unsaved buffer's).
type File struct {
	Path   string // as the model sees it: relative to the working directory when inside it
	Text   string
	Size   int64
	Binary bool // named, not attached
}

// Attach adds files after the request text, each as <file path="…">…</file>,
// the way Expand attaches the files a request mentions.
func Attach(text string, files []File) string {
	if len(files) == 0 {
		return text
	}
	blocks := make([]string, len(files))
	for i, f := range files {
		if f.Binary {
			blocks[i] = fileOpen + strconv.Quote(f.Path) + ">\n" + binaryPrefix + textfmt.Size(f.Size) + binarySuffix + fileClose
			continue
		}
		blocks[i] = fileOpen + strconv.Quote(f.Path) + ">\n" + neutralise(strings.TrimSuffix(f.Text, "\n")) + fileClose
	}
	return strings.TrimRight(text, "\n") + "\n\n" + strings.Join(blocks, "\n\n")
}

// startsMention reports whether text[i] is an @ that begins a mention: at
// the start of the text or after white space or an opening bracket, so
// that e-mail addresses stay text.
func startsMention(text string, i int) bool {
	return text[i] == '@' && (i == 0 || strings.ContainsRune(" \t\n\r([{", rune(text[i-1])))
}

// mentions lists the paths of the @ mentions of text that name existing
// regular files.
func mentions(dir, text string) []string {
	var out []string
	for i := 0; i < len(text); i++ {
		if !startsMention(text, i) {
			continue
		}
		rest := text[i+1:]
		if strings.HasPrefix(rest, `"`) {
			if end := strings.IndexByte(rest[1:], '"'); end > 0 {
				if p := rest[1 : 1+end]; isFile(dir, p) {
					out = append(out, p)
				}
				i += 1 + end + 1
			}
			continue
		}
		word := rest
		if end := strings.IndexAny(rest, " \t\n\r"); end >= 0 {
			word = rest[:end]
		}
		// "see @a.go." or "(@a.go)": punctuation after a path is
		// prose, unless the file's name really ends with it.
		for p := word; p != ""; p = p[:len(p)-1] {
			if isFile(dir, p) {
				out = append(out, p)
				break
			}
			if !strings.ContainsRune(".,;:!?)]}'\"", rune(p[len(p)-1])) {
				break
			}
		}
		i += len(word)
	}
	return out
}

func resolve(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, filepath.FromSlash(p))
}

func isFile(dir, p string) bool {
	info, err := os.Stat(resolve(dir, p))
	return err == nil && info.Mode().IsRegular()
}

// Attached is a file Expand attached to a request, read back from the
// request: its path, its lines as attached (a long file's first ones and a
// note), and its content; a binary file is named, not attached.
type Attached struct {
	Path    string
	Lines   int
	Binary  bool
	Content string
}

// The wrapper Expand puts around each file, and what it says of a binary
// one.
const (
	fileOpen     = "<file path="
	fileClose    = "\n</file>"
	binaryPrefix = "(a binary file of "
	binarySuffix = ": not attached)"
)

// Split reads a request Expand made back: the text the user typed, and
// the files it attached after it. A request without attachments, or whose
// end does not read as Expand writes it, is all text.
func Split(request string) (text string, files []Attached) {
	for at := 0; ; {
		i := strings.Index(request[at:], "\n\n"+fileOpen)
		if i < 0 {
			return request, nil
		}
		if files, ok := readFiles(request[at+i+2:]); ok {
			return request[:at+i], files
		}
		at += i + 2
	}
}

// readFiles reads s as Expand's blocks, separated by a blank line, to its
// end; ok is false when s is anything else.
func readFiles(s string) (files []Attached, ok bool) {
	for {
		rest, found := strings.CutPrefix(s, fileOpen)
		if !found {
			return nil, false
		}
		line, rest, found := strings.Cut(rest, ">\n")
		path, err := strconv.Unquote(line)
		if !found || err != nil {
			return nil, false
		}
		// The content cannot hold the closing tag: neutralise escaped it.
		content, rest, found := strings.Cut(rest, fileClose)
		if !found {
			return nil, false
		}
		f := Attached{Path: path, Content: restore(content)}
		switch {
		case strings.HasPrefix(content, binaryPrefix) && strings.HasSuffix(content, binarySuffix) && !strings.Contains(content, "\n"):
			f.Binary, f.Content = true, ""
		case content != "":
			f.Lines = strings.Count(content, "\n") + 1
		}
		files = append(files, f)
		if rest == "" {
			return files, true
		}
		if s, found = strings.CutPrefix(rest, "\n\n"); !found {
			return nil, false
		}
	}
}

// neutralise keeps a file's content from closing its <file> wrapper early:
// the '<' of every </file is escaped.
func neutralise(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i+6 <= len(s); i++ {
		if s[i] == '<' && strings.EqualFold(s[i:i+6], "</file") {
			b.WriteString(s[last:i])
			b.WriteString("&lt;")
			last = i + 1
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// restore undoes neutralise.
func restore(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "&lt;/")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		if rest := s[i+len("&lt;"):]; len(rest) >= 5 && strings.EqualFold(rest[:5], "/file") {
			b.WriteByte('<')
		} else {
			b.WriteString("&lt;")
		}
		s = s[i+len("&lt;"):]
	}
}

// Typed finds the @ mention that before (the line up to the cursor) ends
// in, read as Expand reads mentions: an @ that starts a mention, then a
// path without white space, or a quote not closed yet. word is the text
// after the @, for Complete; ok is false when the cursor is in no mention.
func Typed(before string) (word string, ok bool) {
	for i := 0; i < len(before); i++ {
		if !startsMention(before, i) {
			continue
		}
		rest := before[i+1:]
		if strings.HasPrefix(rest, `"`) {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return rest, true
			}
			i += 1 + end + 1
			continue
		}
		end := strings.IndexAny(rest, " \t\n\r")
		if end < 0 {
			return rest, true
		}
		i += end
	}
	return "", false
}

// maxCandidates bounds what Complete returns.
const maxCandidates = 200

// Complete lists the completions of word, the text after an @ up to the
// cursor (it may start with a quote): each is a whole replacement for
// "@"+word, e.g. "@src/main.go" or "@src/" for a directory, quoted when the
// path holds a space (`@"my notes.md"`). Hidden entries are offered when
// word's last part starts with a dot; .git never.
func Complete(dir, word string) []string {
	quoted := strings.HasPrefix(word, `"`)
	word = strings.TrimPrefix(word, `"`)
	parent, base := "", word
	if i := strings.LastIndexByte(word, '/'); i >= 0 {
		parent, base = word[:i+1], word[i+1:]
	}
	entries, err := os.ReadDir(resolve(dir, parent+"."))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || name == ".git" || (strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		isDir := e.IsDir()
		if e.Type()&os.ModeSymlink != 0 {
			if info, err := os.Stat(resolve(dir, parent+name)); err == nil {
				isDir = info.IsDir()
			}
		}
		p := parent + name
		switch {
		case isDir && (quoted || strings.ContainsAny(p, " \t")):
			out = append(out, `@"`+p+"/") // open: the path goes on
		case isDir:
			out = append(out, "@"+p+"/")
		case quoted || strings.ContainsAny(p, " \t"):
			out = append(out, `@"`+p+`"`)
		default:
			out = append(out, "@"+p)
		}
		if len(out) == maxCandidates {
			break
		}
	}
	// By path, whatever the quoting.
	sort.Slice(out, func(i, j int) bool { return strings.Trim(out[i], `@"`) < strings.Trim(out[j], `@"`) })
	return out
}
