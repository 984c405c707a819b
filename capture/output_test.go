package capture

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/devagent/dev/textfmt"
)

func TestOutputShort(t *testing.T) {
	t.Parallel()
	o := New("", nil)
	if got := o.String(); got != "(no output)" {
		t.Errorf("empty: %q", got)
	}
	for _, s := range []string{"a\n", "b", "\xff\n"} {
		if _, err := o.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	o.Close()
	if got := o.String(); got != "a\nb\uFFFD" {
		t.Errorf("%q", got)
	}
}

func TestOutputLongKeepsHeadAndTailAndSavesAll(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "session")
	o := New(dir, nil)
	var all strings.Builder
	line := strings.Repeat("x", 99) + "\n"
	for i := range 2000 {
		chunk := line
		if i == 0 {
			chunk = "FIRST\n" + line
		}
		if i == 1999 {
			chunk = line + "LAST\n"
		}
		all.WriteString(chunk)
		if n, err := o.Write([]byte(chunk)); n != len(chunk) || err != nil {
			t.Fatal(n, err)
		}
	}
	o.Close()
	got := o.String()
	if !strings.HasPrefix(got, "FIRST\n") || !strings.HasSuffix(got, "\nLAST") {
		t.Errorf("head or tail lost: %.20q … %q", got, got[len(got)-20:])
	}
	if len(got) > OutputHead+OutputTail+300 {
		t.Errorf("shown output is %d bytes", len(got))
	}
	// Head and tail are cut on line boundaries: 40 and 81 lines of 100 bytes,
	// plus the FIRST and LAST lines.
	want := "[… 183.5 KB cut (1879 lines of 195.3 KB in all, 2002 lines) … full output saved in " + o.savedPath + "]"
	if !strings.Contains(got, "\n"+want+"\n") {
		t.Errorf("marker missing; want %q in\n%s", want, got[OutputHead-200:OutputHead+400])
	}
	if c, ok := CutOf(got); !ok || c != (Cut{Note: want, Lines: 1879, Size: "183.5 KB", Path: o.savedPath}) {
		t.Errorf("CutOf = %+v, %v", c, ok)
	}
	if c, ok := CutOf("Command succeeded (exit code 0).\nok\n"); ok {
		t.Errorf("CutOf of an output not cut = %+v", c)
	}
	if filepath.Dir(o.savedPath) != dir {
		t.Errorf("saved in %s, want %s", o.savedPath, dir)
	}
	if saved := readFile(t, o.savedPath); saved != all.String() {
		t.Errorf("saved output differs: %d bytes, want %d", len(saved), all.Len())
	}
}

func TestOutputCannotSave(t *testing.T) {
	t.Parallel()
	o := New("", nil)
	big := strings.Repeat("y\n", OutputHead+OutputTail)
	o.Write([]byte(big))
	o.Close()
	got := o.String()
	if !strings.Contains(got, "the full output could not be saved: no output directory was given]") {
		t.Errorf("%s", got[OutputHead-100:OutputHead+200])
	}
	if c, ok := CutOf(got); !ok || c.Path != "" || c.Lines == 0 {
		t.Errorf("CutOf of an output not saved = %+v, %v", c, ok)
	}
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	o = New(filepath.Join(blocker, "sub"), nil)
	o.Write([]byte(big))
	o.Close()
	if got := o.String(); !strings.Contains(got, "the full output could not be saved: not a directory]") {
		t.Errorf("%s", got[OutputHead-100:OutputHead+200])
	}
}

// counting writes n bytes to w in numbered blocks of a MB ("block
// 000000001" and lines of dots) and returns the bytes of each range.
func counting(t *testing.T, w io.Writer, n int64, ranges ...[2]int64) [][]byte {
	t.Helper()
	block := bytes.Repeat([]byte(strings.Repeat(".", 63)+"\n"), 1<<14)
	kept := make([][]byte, len(ranges))
	var written int64
	for i := 0; written < n; i++ {
		copy(block, fmt.Sprintf("block %09d\n", i))
		piece := block[:min(int64(len(block)), n-written)]
		for j, r := range ranges {
			lo, hi := max(r[0], written), min(r[1], written+int64(len(piece)))
			if lo < hi {
				kept[j] = append(kept[j], piece[lo-written:hi-written]...)
			}
		}
		if _, err := w.Write(piece); err != nil {
			t.Fatal(err)
		}
		written += int64(len(piece))
	}
	return kept
}

// TestOutputSpillCap: an output past SpillMax is saved as its first
// SpillHead bytes, a line saying what was cut, and its last bytes; the file
// never outgrows SpillMax. An output below it is saved whole.
func TestOutputSpillCap(t *testing.T) {
	t.Parallel()
	for _, size := range []int64{SpillMax - 1<<20, 3*SpillMax + 12345} {
		o := New(t.TempDir(), nil)
		want := counting(t, o, size, [2]int64{0, SpillHead}, [2]int64{size - spillTail, size}, [2]int64{0, size})
		o.Close()
		saved := readFile(t, o.savedPath)
		if int64(len(saved)) > SpillMax {
			t.Errorf("%d bytes printed: saved file of %d bytes, more than %d", size, len(saved), SpillMax)
		}
		if size < SpillMax {
			if saved != string(want[2]) {
				t.Errorf("%d bytes printed: not saved whole (%d bytes)", size, len(saved))
			}
			continue
		}
		cut := size - SpillHead - spillTail
		head, rest, _ := strings.Cut(saved, "\n[… dev cut ")
		note, tail, _ := strings.Cut(rest, " …]\n")
		if head != string(want[0]) || tail != string(want[1]) {
			t.Errorf("head (%d bytes) or tail (%d bytes) differ from what was printed", len(head), len(tail))
		}
		if wantNote := fmt.Sprintf("%s here (%d bytes): the output was %s in all; this file keeps its first 32 MB and its last %s",
			textfmt.Size(cut), cut, textfmt.Size(size), textfmt.Size(spillTail)); note != wantNote {
			t.Errorf("note %q, want %q", note, wantNote)
		}
		got := o.String()
		if !strings.Contains(got, "its first 32 MB and last 32 MB saved in "+o.savedPath+"]") {
			t.Errorf("the result does not say the file was cut:\n%s", got[OutputHead-200:OutputHead+300])
		}
		if c, ok := CutOf(got); !ok || c.Path != o.savedPath || c.Size == "" {
			t.Errorf("CutOf of an output whose file was cut = %+v, %v", c, ok)
		}
		if left, _ := filepath.Glob(filepath.Join(filepath.Dir(o.savedPath), "*.tail")); len(left) > 0 {
			t.Errorf("ring files left: %v", left)
		}
	}
}
