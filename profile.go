package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfiles writes a CPU profile to the file env DEV_CPUPROFILE names
// and, at the end, a heap profile (allocations over the whole run) to
// DEV_MEMPROFILE's: how the performance work measures dev as a whole
// process (go run ./bench -profile). stop writes them; a failure is only
// reported.
func startProfiles(getenv func(string) string) (stop func()) {
	cpuPath, memPath := getenv("DEV_CPUPROFILE"), getenv("DEV_MEMPROFILE")
	if cpuPath == "" && memPath == "" {
		return func() {}
	}
	var cpu *os.File
	if cpuPath != "" {
		// Short runs: 1 ms samples, not 10. StartCPUProfile then prints that
		// it cannot set its own rate, and keeps this one.
		runtime.SetCPUProfileRate(1000)
		f, err := os.Create(cpuPath)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "dev: cpu profile:", err)
		} else {
			cpu = f
		}
	}
	if memPath != "" {
		runtime.MemProfileRate = 4096
	}
	return func() {
		if cpu != nil {
			pprof.StopCPUProfile()
			cpu.Close()
		}
		if memPath != "" {
			f, err := os.Create(memPath)
			if err == nil {
				err = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "dev: memory profile:", err)
			}
		}
	}
}
