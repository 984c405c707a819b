package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOutputShort(t *testing.T) {
	t.Parallel()
	o := newOutput("")
	if got := o.String(); got != "(no output)" {
		t.Errorf("empty: %q", got)
	}
	for _, s := range []string{"a\n", "b", "\xff\n"} {
		if _, err := o.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	o.close()
	if got := o.String(); got != "a\nb\uFFFD" {
		t.Errorf("%q", got)
	}
}

func TestOutputLongKeepsHeadAndTailAndSavesAll(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "session")
	o := newOutput(dir)
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
	o.close()
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
	if filepath.Dir(o.savedPath) != dir {
		t.Errorf("saved in %s, want %s", o.savedPath, dir)
	}
	if saved := readFile(t, o.savedPath); saved != all.String() {
		t.Errorf("saved output differs: %d bytes, want %d", len(saved), all.Len())
	}
}

func TestOutputCannotSave(t *testing.T) {
	t.Parallel()
	o := newOutput("")
	big := strings.Repeat("y\n", OutputHead+OutputTail)
	o.Write([]byte(big))
	o.close()
	if got := o.String(); !strings.Contains(got, "the full output could not be saved: no output directory was given]") {
		t.Errorf("%s", got[OutputHead-100:OutputHead+200])
	}
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	o = newOutput(filepath.Join(blocker, "sub"))
	o.Write([]byte(big))
	o.close()
	if got := o.String(); !strings.Contains(got, "the full output could not be saved: not a directory]") {
		t.Errorf("%s", got[OutputHead-100:OutputHead+200])
	}
}
