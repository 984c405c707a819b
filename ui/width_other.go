//go:build !unix

package ui

import "golang.org/x/term"

// watchWidth reads the width of the console on fd whenever it is asked:
// Windows has no resize signal, and the call is cheap.
func watchWidth(fd, initial int) func() int {
	return func() int {
		if w, _, err := term.GetSize(fd); err == nil && w > 0 {
			return w
		}
		return initial
	}
}
