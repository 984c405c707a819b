package checkpoints

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// ChangeKind says what happened to a file between two snapshots. The
// values are those of --json's tool_result files.
type ChangeKind string

// Change kinds.
const (
	Added    ChangeKind = "added"
	Modified ChangeKind = "modified"
	Deleted  ChangeKind = "deleted"
)

// File is a file or symbolic link as a snapshot holds it.
type File struct {
	Mode fs.FileMode // fs.ModeSymlink for a link, else a regular file; with the permission bits
	Size int64
	ID   ID // of the content (a link's content is its target)
}

// Change is one file that differs between two snapshots. Its JSON form is
// the {path, change} of --json's tool_result files.
type Change struct {
	Path   string     `json:"path"` // slash-separated, relative to the working directory
	Change ChangeKind `json:"change"`
	From   File       `json:"-"` // zero when added
	To     File       `json:"-"` // zero when deleted
}

// ModeOnly reports a modification of the permissions (or of a file into a
// link) without a change of content.
func (c Change) ModeOnly() bool { return c.Change == Modified && c.From.ID == c.To.ID }

// Changes lists the files that differ from snapshot from to snapshot to,
// in path order ("" is the empty snapshot). Directories appear only through the files they hold.
func (s *Store) Changes(ctx context.Context, from, to ID) ([]Change, error) {
	a, err := parseTreeID(from)
	if err != nil {
		return nil, err
	}
	b, err := parseTreeID(to)
	if err != nil {
		return nil, err
	}
	var out []Change
	if err := s.diffTrees(ctx, "", a, b, &out); err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(x, y Change) int { return strings.Compare(x.Path, y.Path) })
	return out, nil
}

func parseTreeID(id ID) (hash, error) {
	if id == "" {
		return hash{}, nil // no snapshot: nothing
	}
	return parseID(id)
}

// diffTrees appends the changes from tree a to tree b (the zero hash: no
// tree) under prefix.
func (s *Store) diffTrees(ctx context.Context, prefix string, a, b hash, out *[]Change) error {
	if a == b {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var ea, eb []entry
	var err error
	if a != (hash{}) {
		if ea, err = s.obj.tree(a); err != nil {
			return err
		}
	}
	if b != (hash{}) {
		if eb, err = s.obj.tree(b); err != nil {
			return err
		}
	}
	for len(ea) > 0 || len(eb) > 0 {
		var x, y *entry
		switch {
		case len(eb) == 0 || len(ea) > 0 && ea[0].name < eb[0].name:
			x, ea = &ea[0], ea[1:]
		case len(ea) == 0 || eb[0].name < ea[0].name:
			y, eb = &eb[0], eb[1:]
		default:
			x, y, ea, eb = &ea[0], &eb[0], ea[1:], eb[1:]
		}
		var name string
		if x != nil {
			name = x.name
		} else {
			name = y.name
		}
		p := name
		if prefix != "" {
			p = prefix + "/" + name
		}
		// A directory against a file is the directory's files deleted
		// (or added) and the file added (or deleted).
		var subA, subB hash
		var fileA, fileB *entry
		if x != nil {
			if x.dir() {
				subA = x.hash
			} else {
				fileA = x
			}
		}
		if y != nil {
			if y.dir() {
				subB = y.hash
			} else {
				fileB = y
			}
		}
		if subA != (hash{}) || subB != (hash{}) {
			if err := s.diffTrees(ctx, p, subA, subB, out); err != nil {
				return err
			}
		}
		switch {
		case fileA != nil && fileB != nil:
			if fileA.hash != fileB.hash || fileA.mode&^lazyMode != fileB.mode&^lazyMode {
				from, to := s.fileOf(fileA), s.fileOf(fileB)
				if from != to { // not a file read since it was recorded by its stat
					*out = append(*out, Change{Path: p, Change: Modified, From: from, To: to})
				}
			}
		case fileA != nil:
			*out = append(*out, Change{Path: p, Change: Deleted, From: s.fileOf(fileA)})
		case fileB != nil:
			*out = append(*out, Change{Path: p, Change: Added, To: s.fileOf(fileB)})
		}
	}
	return nil
}

// fileOf is a file as a snapshot holds it: for one recorded by its stat,
// with the hash of its content when that is stored.
func (s *Store) fileOf(e *entry) File {
	h := e.hash
	if e.mode&lazyMode != 0 {
		h, _ = s.obj.resolve(h)
	}
	return File{Mode: e.mode &^ lazyMode, Size: e.size, ID: h.id()}
}

// binarySniff is how much of a file is searched for a NUL byte, as git
// does, to call it binary.
const binarySniff = 8000

func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0
}

// Patch is a change as git shows it: a "diff --git" header, the mode
// lines, and a unified diff with three lines of context, or a line saying
// that binary files differ. binary reports the latter.
//
// A side whose content was never stored (a file changed before dev read
// it, see capture.go) is shown as a line saying so instead of a diff.
func (s *Store) Patch(c Change) (text string, binary bool, err error) {
	old, new, missing, err := s.sides(c)
	if err != nil {
		return "", false, err
	}
	if len(missing) > 0 {
		text, _ = Unified(Change{Path: c.Path, Change: c.Change, From: c.From, To: c.To}, nil, nil)
		return text + fmt.Sprintf("(the content %s was never stored: the file changed before dev read it)\n", strings.Join(missing, " and ")), false, nil
	}
	text, binary = Unified(c, old, new)
	return text, binary, nil
}

// Texts are the text of change c's file before and after it ("" for the
// side a file added or deleted lacks), for a renderer that shows an edit
// whole; ok is false when a side was never stored or is binary.
func (s *Store) Texts(c Change) (old, new string, ok bool) {
	o, n, missing, err := s.sides(c)
	if err != nil || len(missing) > 0 || isBinary(o) || isBinary(n) {
		return "", "", false
	}
	return string(o), string(n), true
}

// sides are the contents of change c's file before and after it (nil for
// a side that does not exist), and which of "before" and "after" were
// never stored.
func (s *Store) sides(c Change) (old, new []byte, missing []string, err error) {
	if c.Change != Added {
		if old, err = s.content(c.From.ID); errors.Is(err, errNotStored) {
			missing = append(missing, "before")
		} else if err != nil {
			return nil, nil, nil, err
		}
	}
	if c.Change != Deleted {
		if new, err = s.content(c.To.ID); errors.Is(err, errNotStored) {
			missing = append(missing, "after")
		} else if err != nil {
			return nil, nil, nil, err
		}
	}
	return old, new, missing, nil
}

func (s *Store) content(id ID) ([]byte, error) {
	h, err := parseID(id)
	if err != nil {
		return nil, err
	}
	return s.obj.content(h)
}

// Unified renders change c of a file whose content went from old to new
// as Patch does; callers holding both contents (a tool that just wrote a
// file) need no store.
func Unified(c Change, old, new []byte) (text string, binary bool) {
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\n", c.Path, c.Path)
	from, to := "a/"+c.Path, "b/"+c.Path
	switch c.Change {
	case Added:
		fmt.Fprintf(&b, "new file mode %s\n", gitMode(c.To.Mode))
		from = "/dev/null"
	case Deleted:
		fmt.Fprintf(&b, "deleted file mode %s\n", gitMode(c.From.Mode))
		to = "/dev/null"
	default:
		if c.From.Mode != c.To.Mode {
			fmt.Fprintf(&b, "old mode %s\nnew mode %s\n", gitMode(c.From.Mode), gitMode(c.To.Mode))
		}
	}
	if bytes.Equal(old, new) {
		return b.String(), false
	}
	if isBinary(old) || isBinary(new) {
		fmt.Fprintf(&b, "Binary files %s and %s differ\n", from, to)
		return b.String(), true
	}
	o, n := string(old), string(new)
	// ToUnified fails only on edits that do not fit the text, and Lines
	// made these from it.
	hunks, _ := udiff.ToUnified(from, to, o, udiff.Lines(o, n), udiff.DefaultContextLines)
	b.WriteString(hunks)
	return b.String(), false
}

// gitMode writes a mode as git does: 100644, 100755, 120000.
func gitMode(m fs.FileMode) string {
	if m&fs.ModeSymlink != 0 {
		return "120000"
	}
	return fmt.Sprintf("100%03o", m.Perm())
}

// Entry is one checkpoint with what changed since the one before.
type Entry struct {
	Checkpoint
	Changes []Change
}

// FileDiff is a changed file and its unified diff (none for a binary file).
type FileDiff struct {
	Change
	Diff   string
	Binary bool
}
