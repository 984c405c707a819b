//go:build unix

package checkpoints

import (
	"errors"
	"io/fs"
	"os"
)

// syncDir makes the entries of dir durable (the files created or renamed
// in it); a directory that does not exist has none.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
