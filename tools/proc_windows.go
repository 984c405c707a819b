//go:build windows

package tools

import "time"

// forcedHow says how a background process was stopped: Windows has no TERM.
func forcedHow(time.Duration) string {
	return "its process tree was ended (taskkill /T /F)"
}

// posixShell: cmd.exe lines are not POSIX shell. The deny rules still read
// them as shell (a denied program is named the same way), but a line the
// shell reader cannot parse is not refused for that alone.
const posixShell = false
