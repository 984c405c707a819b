//go:build unix

package e2e

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/devagent/dev/tools"
)

// seqOutput is what `seq 1 n` prints.
func seqOutput(n int) []byte {
	out := make([]byte, 0, n*9)
	for i := 1; i <= n; i++ {
		out = strconv.AppendInt(out, int64(i), 10)
		out = append(out, '\n')
	}
	return out
}

// TestCommandSpillFileIsCapped: a command printing 200 MB leaves a saved
// output of at most 64 MB: its first 32 MB, a line saying how much was cut,
// and its last bytes, exactly as printed. It used to save all 200 MB (and
// `cat /dev/zero` 22 GB in two minutes).
func TestCommandSpillFileIsCapped(t *testing.T) {
	w := newWorld(t, map[string]any{"commandTimeout": 600})
	const n = 23_000_000 // seq 1 23000000 prints about 200 MB
	w.srv.Script(reply("Print a lot.", "COMMAND", "seq 1 "+strconv.Itoa(n)), done("Printed."))
	r := w.run("-p", "print a lot", "--no-audit")
	r.expect(t, 0)
	printed := seqOutput(n)
	res := lastUser(w.srv.Requests()[1])
	m := regexp.MustCompile(`its first 32 MB and last 32 MB saved in (\S+)\]`).FindStringSubmatch(res)
	if m == nil {
		t.Fatalf("the result does not name a cut saved file:\n%s", res[max(0, len(res)-3000):])
	}
	saved, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if len(saved) > tools.SpillMax {
		t.Errorf("saved file of %d bytes for %d printed: more than %d", len(saved), len(printed), tools.SpillMax)
	}
	head, rest, ok := strings.Cut(string(saved), "\n[… dev cut ")
	note, tail, ok2 := strings.Cut(rest, " …]\n")
	if !ok || !ok2 {
		t.Fatalf("no note of the cut in the saved file (%d bytes)", len(saved))
	}
	if head != string(printed[:tools.SpillHead]) {
		t.Errorf("the saved head (%d bytes) is not the first 32 MB printed", len(head))
	}
	if tail != string(printed[len(printed)-len(tail):]) || len(tail) < tools.SpillHead-1024 {
		t.Errorf("the saved tail (%d bytes) is not the end of what was printed", len(tail))
	}
	cut := len(printed) - len(head) - len(tail)
	if !strings.Contains(note, "("+strconv.Itoa(cut)+" bytes)") {
		t.Errorf("the note %q does not say %d bytes were cut", note, cut)
	}
}
