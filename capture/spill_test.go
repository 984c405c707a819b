package capture

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devagent/dev/redact"
)

// spillOnce saves an output of n bytes through a new output of spills,
// written in pieces, and returns it closed.
func spillOnce(t *testing.T, dir string, spills *Spills, n int, line string) *Output {
	t.Helper()
	o := New(dir, spills)
	for written := 0; written < n; written += len(line) {
		if _, err := o.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	o.Close()
	if o.savedPath == "" {
		t.Fatal("nothing saved")
	}
	return o
}

func dirSize(t *testing.T, dir string) (total int64, files int) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, spillPattern))
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		total += info.Size()
	}
	return total, len(paths)
}

// The session's saved output stays under its cap: past it the oldest
// files are emptied down to a line saying why, and the result that made
// room names them (issue 22: 8 commands put 513 MB in one session).
func TestSpillsSessionCap(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := NewSpills(nil)
	s.max = 100 << 10
	line := strings.Repeat("z", 99) + "\n"
	var outs []*Output
	for i := 0; i < 8; i++ {
		outs = append(outs, spillOnce(t, dir, s, 40<<10, line))
		if total, _ := dirSize(t, dir); total > s.max {
			t.Fatalf("after output %d the session's saved output is %d bytes, over %d", i+1, total, s.max)
		}
	}
	// 40 KB each under 100 KB: two fit, the third empties the first.
	if len(outs[0].emptied)+len(outs[1].emptied) != 0 {
		t.Errorf("the first two outputs emptied %v %v", outs[0].emptied, outs[1].emptied)
	}
	if got := outs[2].emptied; len(got) != 1 || got[0] != outs[0].savedPath {
		t.Errorf("the third output emptied %v, want the first's %s", got, outs[0].savedPath)
	}
	if got := outs[2].String(); !strings.Contains(got, "[to keep this session's saved output under 100.0 KB, dev emptied the oldest saved outputs: "+outs[0].savedPath+"]") {
		t.Errorf("the result does not name what was emptied:\n%s", got[OutputHead-100:OutputHead+500])
	}
	first := readFile(t, outs[0].savedPath)
	if !strings.HasPrefix(first, "[dev emptied this file") || !strings.Contains(first, "at most 100.0 KB of saved output") {
		t.Errorf("the emptied file says %q", first)
	}
	last := readFile(t, outs[7].savedPath)
	if len(last) < 40<<10 || strings.HasPrefix(last, "[dev") {
		t.Error("the newest output was emptied")
	}
	if _, n := dirSize(t, dir); n != 8 {
		t.Errorf("%d files, want 8 (emptied, not removed: their paths still explain)", n)
	}
}

// Files an earlier run of the session left count from the first file
// this run saves, oldest emptied first.
func TestSpillsCountEarlierRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	var earlier []string
	for i := 0; i < 3; i++ {
		p := filepath.Join(dir, fmt.Sprintf("command-old%d.log", i))
		if err := os.WriteFile(p, []byte(strings.Repeat("o", 25<<10)), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old.Add(time.Duration(i)*time.Minute), old.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
		earlier = append(earlier, p)
	}
	s := NewSpills(nil)
	s.max = 100 << 10
	o := spillOnce(t, dir, s, 40<<10, strings.Repeat("n", 99)+"\n")
	if len(o.emptied) != 1 || o.emptied[0] != earlier[0] {
		t.Errorf("emptied %v, want the oldest %s", o.emptied, earlier[0])
	}
	if total, _ := dirSize(t, dir); total > s.max {
		t.Errorf("%d bytes saved, over %d", total, s.max)
	}
}

// Saved output is masked as it is written, also a secret cut in two by
// the writes, and its base64.
func TestSpillsMask(t *testing.T) {
	t.Parallel()
	const secret = "plain-token-value-1"
	s := NewSpills(redact.New([]string{"GITHUB_TOKEN=" + secret}, ""))
	o := New(t.TempDir(), s)
	line := "token " + secret + " b64 " + base64.StdEncoding.EncodeToString([]byte(secret)) + "\n"
	var stream strings.Builder
	for stream.Len() < 300<<10 {
		stream.WriteString(strings.Repeat("filler ", 13) + "\n" + line)
	}
	text := stream.String()
	for i := 0; i < len(text); i += 997 { // boundaries fall inside secrets
		if _, err := o.Write([]byte(text[i:min(len(text), i+997)])); err != nil {
			t.Fatal(err)
		}
	}
	o.Close()
	saved := readFile(t, o.savedPath)
	if strings.Contains(saved, secret) || strings.Contains(saved, base64.StdEncoding.EncodeToString([]byte(secret))[:12]) {
		t.Error("the saved output holds the secret")
	}
	if want := strings.Count(text, "\n"); strings.Count(saved, "\n") != want || strings.Count(saved, "[REDACTED:$GITHUB_TOKEN]") != strings.Count(text, secret) {
		t.Errorf("the saved output is not the output masked: %d lines, %d placeholders", strings.Count(saved, "\n"), strings.Count(saved, "[REDACTED:$GITHUB_TOKEN]"))
	}
}
