//go:build !unix

package main

// ignoreBrokenPipe: only Unix raises SIGPIPE on a write to a closed pipe.
func ignoreBrokenPipe() {}
