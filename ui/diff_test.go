package ui

import (
	"bytes"
	"strings"
	"testing"
)

const samplePatch = `diff --git a/a.txt b/a.txt
old mode 100644
new mode 100755
--- a/a.txt
+++ b/a.txt
@@ -1,3 +1,3 @@
 keep
--- a removed line that looks like a header
+++ an added line that looks like a header
\ No newline at end of file
diff --git a/img.png b/img.png
Binary files a/img.png and b/img.png differ
`

func TestDiffLines(t *testing.T) {
	t.Parallel()
	kinds := func(ls []DiffLine) string {
		var b strings.Builder
		for _, l := range ls {
			b.WriteByte("CAR@HM"[l.Kind])
		}
		return b.String()
	}
	tests := []struct {
		max  int
		want string // a letter per line: Context, Added, Removed, @@, Header, More
		last string
	}{
		{0, "HHHHH@CRACHH", "Binary files a/img.png and b/img.png differ"},
		{6, "HHHHH@M", "… 6 more lines (--verbose shows all)"},
		{12, "HHHHH@CRACHH", "Binary files a/img.png and b/img.png differ"},
		{11, "HHHHH@CRACHM", "… 1 more lines (--verbose shows all)"},
	}
	for _, tt := range tests {
		ls := DiffLines(samplePatch, tt.max)
		if got := kinds(ls); got != tt.want {
			t.Errorf("max %d: kinds %s, want %s", tt.max, got, tt.want)
		}
		if got := ls[len(ls)-1].Text; got != tt.last {
			t.Errorf("max %d: last line %q, want %q", tt.max, got, tt.last)
		}
	}
	if DiffLines("", 5) != nil {
		t.Error("an empty diff has lines")
	}
}

func TestWriteDiff(t *testing.T) {
	t.Parallel()
	hostile := "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-\x1b[2Jold\x07\n+\tnew\n"
	tests := []struct {
		name  string
		text  string
		style DiffStyle
		want  string
	}{
		{"plain is byte for byte", hostile, DiffStyle{}, hostile},
		{"plain, cut", samplePatch, DiffStyle{MaxLines: 2},
			"diff --git a/a.txt b/a.txt\nold mode 100644\n… 10 more lines (--verbose shows all)\n"},
		{"a terminal without colour drops control characters", hostile, DiffStyle{Terminal: true},
			"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+    new\n"},
		{"colour", "@@ -1 +1 @@\n-old\n+new\n same\n", DiffStyle{Color: true, Terminal: true},
			"\x1b[36m@@ -1 +1 @@\x1b[0m\n\x1b[31m-old\x1b[0m\n\x1b[32m+new\x1b[0m\n same\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			if err := WriteDiff(&b, tt.text, tt.style); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
