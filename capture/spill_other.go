//go:build !unix

package capture

import "os"

// openNoFollow opens path with flag. Windows follows a link here; the
// caller's check that the file opened is the one it counted (os.SameFile
// with what Lstat saw) refuses the link's target.
func openNoFollow(path string, flag int) (*os.File, error) {
	return os.OpenFile(path, flag, 0)
}

// otherNames: the count of names is not at hand here.
func otherNames(os.FileInfo) bool { return false }
