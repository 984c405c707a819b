//go:build linux || darwin

package checkpoints

import (
	"os"
	"syscall"
)

// openFile opens a file the scan saw as regular. Should it have become a
// link or a named pipe since, the open neither follows it nor waits for a
// writer.
func openFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
