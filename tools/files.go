package tools

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// sniffLen is how much of a file decides whether it is binary.
const sniffLen = 8 << 10

// isBinary reports whether the start of a file looks binary: a NUL byte, or
// mostly bytes that are not UTF-8 (a Latin-1 text file has only a few).
func isBinary(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	invalid := 0
	for b := head; len(b) > 0; {
		r, size := utf8.DecodeRune(b)
		// A rune cut by the end of the sniff is not evidence.
		if r == utf8.RuneError && size == 1 && utf8.FullRune(b) {
			invalid++
		}
		b = b[size:]
	}
	return invalid*10 > len(head)*3
}

// sniff reads the first sniffLen bytes of f and rewinds it.
func sniff(f *os.File) ([]byte, error) {
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return head[:n], nil
}

// countLines counts lines the way editors do: a final line without "\n"
// still counts.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// writeAtomic replaces path with data through a temporary file in the same
// directory and a rename, so nobody ever sees half a file. Parent
// directories are created; an existing file keeps its mode; a symbolic link
// is followed so that the link itself survives.
func writeAtomic(path string, data []byte) (created bool, err error) {
	target := path
	if t, err := filepath.EvalSymlinks(path); err == nil {
		target = t
	}
	mode := fs.FileMode(0o644)
	info, err := os.Stat(target)
	switch {
	case err == nil:
		if info.IsDir() {
			return false, fmt.Errorf("it is a directory")
		}
		mode = info.Mode().Perm()
	case errors.Is(err, fs.ErrNotExist):
		created = true
	default:
		return false, err
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return false, err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = f.Chmod(mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, err
	}
	return created, os.Rename(tmp, target)
}

// fsErr describes a file-system error for the model without repeating the
// path it already knows.
func fsErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error()
}
