//go:build unix

package e2e

import (
	"strings"
	"testing"
)

// On a terminal of 80 columns, without COLUMNS, dev sessions list fits the
// terminal's width.
func TestTablesFitTheTerminal(t *testing.T) {
	w, id := tablesWorld(t)
	term := w.startTerminalAt(t.Context(), 80, "sessions", "list")
	if code := term.exitCode(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	<-term.done
	screen := strings.ReplaceAll(term.since(0), "\r\n", "\n")
	fits(t, "sessions list", screen, 80)
	if !strings.Contains(screen, "\n"+id[:7]+"…") {
		t.Errorf("the id is not cut to its prefix:\n%s", screen)
	}
}
