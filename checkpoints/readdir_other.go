//go:build !linux && !darwin

package checkpoints

import (
	"io/fs"
	"os"
)

// readDir lists the directory abs, sorted by name, with the type of each
// entry and the stat of each regular file.
func readDir(abs string) ([]dirent, error) {
	list, err := os.ReadDir(abs)
	out := make([]dirent, len(list))
	for i, e := range list {
		d := &out[i]
		d.name, d.typ = e.Name(), e.Type()&fs.ModeType
		if !d.typ.IsRegular() {
			continue
		}
		if fi, serr := e.Info(); serr != nil {
			d.typ, d.statErr = fs.ModeIrregular, serr
		} else {
			d.st = statOf(fi)
		}
	}
	return out, err
}
