//go:build !windows

package sessions

import "os"

func rename(from, to string) error { return os.Rename(from, to) }
