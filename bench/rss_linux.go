package main

import (
	"os"
	"syscall"
)

// peakRSS is the child's peak resident set size in bytes (Linux reports
// kilobytes).
func peakRSS(st *os.ProcessState) int64 {
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss * 1024
	}
	return 0
}
