//go:build linux || darwin

package reaper

// supported: processes, start times and boots can be read here
// (procgroup.Processes).
const supported = true
