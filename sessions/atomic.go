package sessions

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// writeFileAtomic replaces dir/name with data so that readers, and the file
// left by a crash, only ever see the old content or the new: the data goes
// to a temporary file in the same directory, is synced, then renamed over.
// The directory is created (0700) when missing.
func writeFileAtomic(dir, name string, data []byte) (err error) {
	pattern := "." + name + ".tmp-*"
	f, err := os.CreateTemp(dir, pattern)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		f, err = os.CreateTemp(dir, pattern)
	}
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return rename(tmp, filepath.Join(dir, name))
}

// isTemp reports whether name is a temporary file of writeFileAtomic.
func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}
