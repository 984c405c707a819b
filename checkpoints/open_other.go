//go:build !linux && !darwin

package checkpoints

import "os"

// openFile opens a file the scan saw as regular.
func openFile(path string) (*os.File, error) { return os.Open(path) }
