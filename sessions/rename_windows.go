package sessions

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// rename replaces to with from. os.Rename uses MoveFileEx with
// MOVEFILE_REPLACE_EXISTING, which replaces an existing file, but fails
// while another process (a second dev reading the file, an indexer, an
// antivirus) has the target open without FILE_SHARE_DELETE. Those holds are
// brief, so retry for a while, as cmd/go's robustio does.
func rename(from, to string) error {
	const (
		errorAccessDenied     = syscall.Errno(5)
		errorSharingViolation = syscall.Errno(32)
	)
	delay := time.Millisecond
	deadline := time.Now().Add(2 * time.Second)
	for {
		err := os.Rename(from, to)
		if err == nil || !(errors.Is(err, errorAccessDenied) || errors.Is(err, errorSharingViolation)) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(delay)
		delay = min(2*delay, 100*time.Millisecond)
	}
}

// syncDir: Windows has no way to sync a directory; a file's entry is
// durable with the file.
func syncDir(string) error { return nil }
