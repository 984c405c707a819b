//go:build unix

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/capture"
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
	if len(saved) > capture.SpillMax {
		t.Errorf("saved file of %d bytes for %d printed: more than %d", len(saved), len(printed), capture.SpillMax)
	}
	head, rest, ok := strings.Cut(string(saved), "\n[… dev cut ")
	note, tail, ok2 := strings.Cut(rest, " …]\n")
	if !ok || !ok2 {
		t.Fatalf("no note of the cut in the saved file (%d bytes)", len(saved))
	}
	if head != string(printed[:capture.SpillHead]) {
		t.Errorf("the saved head (%d bytes) is not the first 32 MB printed", len(head))
	}
	if tail != string(printed[len(printed)-len(tail):]) || len(tail) < capture.SpillHead-1024 {
		t.Errorf("the saved tail (%d bytes) is not the end of what was printed", len(tail))
	}
	cut := len(printed) - len(head) - len(tail)
	if !strings.Contains(note, "("+strconv.Itoa(cut)+" bytes)") {
		t.Errorf("the note %q does not say %d bytes were cut", note, cut)
	}
}

// TestSessionSpillCap: a session's saved command output is capped in all
// at 256 MB (issue 22, break 9: 8 commands put 513 MB in one session).
// Three saved outputs of 100 MB from an earlier run (sparse files: cheap)
// are in the session's output directory; the next long output empties the
// oldest, its result says so, and a later read of the emptied file says
// why it is empty.
func TestSessionSpillCap(t *testing.T) {
	w := newWorld(t, nil)
	w.srv.Script(done("Nothing to do."))
	w.run("--no-audit", "-p", "start").expect(t, 0)
	dir := filepath.Join(w.home, "sessions", w.onlySession().ID, "output")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	var earlier []string
	for i := 0; i < 3; i++ {
		p := filepath.Join(dir, fmt.Sprintf("command-earlier%d.log", i))
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(100 << 20); err != nil {
			t.Fatal(err)
		}
		f.Close()
		at := old.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
		earlier = append(earlier, p)
	}
	w.srv.Script(
		reply("Print.", "COMMAND", "seq 1 5000"),
		reply("Read the old one.", "READ_FILE", earlier[0]),
		done("Done."),
	)
	w.run("--resume", "--no-audit", "-p", "print").expect(t, 0)
	var total int64
	paths, _ := filepath.Glob(filepath.Join(dir, "command-*.log"))
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		total += info.Size()
	}
	t.Logf("the session's saved output: %d bytes in %d files", total, len(paths))
	if total > capture.SessionSpillMax {
		t.Errorf("the session's saved output is %d bytes, over %d", total, capture.SessionSpillMax)
	}
	reqs := w.srv.Requests()
	if res := lastUser(reqs[2]); !strings.Contains(res, "[to keep this session's saved output under 256.0 MB, dev emptied the oldest saved outputs: "+earlier[0]+"]") {
		t.Errorf("the result does not say which saved output was emptied:\n%s", res)
	}
	if res := lastUser(reqs[3]); !strings.Contains(res, "dev emptied this file, which held a command's saved output: a session keeps at most 256.0 MB") {
		t.Errorf("reading the emptied file does not say why it is empty:\n%s", res)
	}
	for _, p := range earlier[1:] {
		if info, err := os.Stat(p); err != nil || info.Size() != 100<<20 {
			t.Errorf("%s: a newer saved output was emptied too", p)
		}
	}
}
