//go:build !unix

package interrupt

// ignoreBrokenPipe: only Unix raises SIGPIPE on a write to a closed pipe.
func ignoreBrokenPipe() {}
