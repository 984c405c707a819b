package main

import (
	"os"
	"syscall"
)

// peakRSS is the child's peak resident set size in bytes (macOS reports
// bytes).
func peakRSS(st *os.ProcessState) int64 {
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
