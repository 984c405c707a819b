//go:build !unix

package realserver

import "os"

// lockFile does nothing where there is no flock: the real server runs on
// Linux only.
func lockFile(*os.File) error { return nil }
