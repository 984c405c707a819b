package capture

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/devagent/dev/redact"
	"github.com/devagent/dev/textfmt"
)

// SessionSpillMax bounds the saved command output of one session, all its
// files together (SPEC §11): past it the oldest files are emptied, each
// down to a line saying why.
const SessionSpillMax = 256 << 20

// spillPattern names the files of saved output in the output directory.
const spillPattern = "command-*.log"

// keptSize: a file this small (an emptied one) is not worth emptying.
const keptSize = 512

// Spills is a session's account of its saved command output (SPEC §2,
// §11, §13): the files are masked for secrets as they are written, and
// the files of the output directory stay under a total: when a file
// grows past it, the oldest others are emptied, and the output that
// caused it names them. It counts the files earlier runs of the session
// left, from the first file it saves. Safe for concurrent use.
type Spills struct {
	mask *redact.Redactor // nil: saved as printed
	max  int64

	mu     sync.Mutex
	dir    string       // the directory counted, once a file was saved
	files  []*spillFile // oldest first
	byPath map[string]*spillFile
	first  int // files before it are emptied (or small) and closed
	total  int64
}

type spillFile struct {
	path string
	size int64
	open bool // being written: never emptied
	// made is the file as dev saw it when it made or counted it: what
	// the path must still name for dev to empty it (see empty).
	made os.FileInfo
}

// NewSpills returns the account of a session's saved output, masking
// with mask (nil: redaction is off).
func NewSpills(mask *redact.Redactor) *Spills {
	return &Spills{mask: mask, max: SessionSpillMax}
}

// create opens a new file for saved output in dir.
func (s *Spills) create(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, spillPattern)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return f, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	made, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if s.dir != dir {
		s.load(dir, f.Name())
	}
	s.add(&spillFile{path: f.Name(), open: true, made: made})
	return f, nil
}

// load counts the files of saved output dir holds, oldest first, but for
// the one just created. Sandboxed commands may write the directory: a
// link or anything else that is not a regular file is not counted, so
// never emptied.
func (s *Spills) load(dir, skip string) {
	s.dir, s.files, s.byPath, s.first, s.total = dir, nil, map[string]*spillFile{}, 0, 0
	paths, _ := filepath.Glob(filepath.Join(dir, spillPattern))
	type old struct {
		f   *spillFile
		mod int64
	}
	var olds []old
	for _, p := range paths {
		info, err := os.Lstat(p)
		if p == skip || err != nil || !info.Mode().IsRegular() {
			continue
		}
		olds = append(olds, old{&spillFile{path: p, size: info.Size(), made: info}, info.ModTime().UnixNano()})
	}
	slices.SortFunc(olds, func(a, b old) int { return cmp.Or(cmp.Compare(a.mod, b.mod), cmp.Compare(a.f.path, b.f.path)) })
	for _, o := range olds {
		s.add(o.f)
	}
}

func (s *Spills) add(f *spillFile) {
	s.files = append(s.files, f)
	s.byPath[f.path] = f
	s.total += f.size
}

// sized records the size of the file at path, and empties the oldest
// other files while the total is over the cap. It returns the paths it
// emptied.
func (s *Spills) sized(path string, size int64, open bool) []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.byPath[path]; f != nil {
		s.total += size - f.size
		f.size, f.open = size, open
	}
	for s.first < len(s.files) && !s.files[s.first].open && s.files[s.first].size <= keptSize {
		s.first++
	}
	var emptied []string
	for _, f := range s.files[s.first:] {
		if s.total <= s.max {
			break
		}
		if f.open || f.size <= keptSize {
			continue
		}
		note := fmt.Sprintf("[dev emptied this file, which held a command's saved output: a session keeps at most %s of saved output, and this was among the oldest. Run the command again to see its output.]\n", textfmt.Size(s.max))
		if err := f.empty([]byte(note)); err != nil {
			// Not dev's to empty (or gone): not dev's to count either,
			// else it would empty its own newer files in its place.
			s.total -= f.size
			f.size = 0
			continue
		}
		s.total += int64(len(note)) - f.size
		f.size = int64(len(note))
		emptied = append(emptied, f.path)
	}
	return emptied
}

// errNotMade: the path no longer names the file dev made or counted.
var errNotMade = errors.New("not the saved output dev counted")

// empty replaces the file's content by note. dev runs unsandboxed, and
// sandboxed commands may write the output directory (SPEC §13): the path
// is opened without following a link (nor waiting on a pipe), and written
// only when it still names the regular file dev counted, with no other
// name (a hard link would reach a file elsewhere). Anything else is left
// as it is.
func (f *spillFile) empty(note []byte) error {
	h, err := openNoFollow(f.path, os.O_WRONLY)
	if err != nil {
		return err
	}
	defer h.Close()
	info, err := h.Stat()
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() || !os.SameFile(info, f.made) || otherNames(info) {
		return errNotMade
	}
	if err := h.Truncate(0); err != nil {
		return err
	}
	_, err = h.WriteAt(note, 0)
	return err
}

// redactor is the mask saved output goes through (nil: none).
func (s *Spills) redactor() *redact.Redactor {
	if s == nil {
		return nil
	}
	return s.mask
}

// limit is the session's total.
func (s *Spills) limit() int64 {
	if s == nil {
		return SessionSpillMax
	}
	return s.max
}

// emptiedNote says which files were emptied to make room, for the result.
func emptiedNote(paths []string, max int64) string {
	if len(paths) == 0 {
		return ""
	}
	shown := paths[:min(len(paths), 5)]
	more := ""
	if len(paths) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(paths)-len(shown))
	}
	return fmt.Sprintf("[to keep this session's saved output under %s, dev emptied the oldest saved outputs: %s%s]", textfmt.Size(max), strings.Join(shown, ", "), more)
}
