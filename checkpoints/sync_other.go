//go:build !unix

package checkpoints

// syncDir: Windows has no way to sync a directory; a file's entry is
// durable with the file.
func syncDir(string) error { return nil }
