//go:build unix

package capture

import (
	"os"
	"syscall"
)

// openNoFollow opens path with flag, failing on a symbolic link instead
// of following it, and on a named pipe instead of waiting for its other
// end.
func openNoFollow(path string, flag int) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// otherNames reports whether the file has more names than one (hard
// links).
func otherNames(info os.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return !ok || st.Nlink != 1
}
