package ui

import (
	"strings"
	"testing"

	"github.com/rivo/uniseg"
)

// wideTable has what makes tables hard: a long path, a prompt in CJK, an
// emoji, a status that is never cut and numbers aligned right.
func wideTable() Table {
	return Table{
		Columns: []Column{
			{Header: "ID", Cut: CutEnd, Min: 9, Yields: true},
			{Header: "STATUS"},
			{Header: "TOKENS", Right: true, Optional: true},
			{Header: "DIRECTORY", Cut: CutStart, Min: 9},
			{Header: "PROMPT", Cut: CutEnd, Min: 8},
		},
		Rows: [][]string{
			{"0b0f4d5e-7a1c-4f3e-9b2a-1c2d3e4f5a6b", "complete", "12,345", "/home/ann/src/github.com/example/service/backend", "make `go test` pass & commit"},
			{"1e2feb89-414c-443c-9027-c4d1c386bbc4", "interrupted", "7", "/home/ann/仕事/プロジェクト", "リファクタリングしてください：ユーザー認証モジュール 🙂"},
			{"78e51061-7311-48a3-82ce-6f447ed4d57b", "failed", "-", "/tmp/x", "fix\nthe\tflaky test"},
		},
	}
}

func writeTable(t *testing.T, tb Table, f Fit) string {
	t.Helper()
	var b strings.Builder
	if err := tb.Write(&b, f); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Every line fits the width, measured in display columns (a CJK rune or
// an emoji takes two); a cell that was cut ends with the ellipsis (or,
// for a path, starts with it); no line ends in spaces.
func TestTableFitsWidth(t *testing.T) {
	for _, width := range []int{200, 80, 60, 40} {
		out := writeTable(t, wideTable(), Fit{Width: width})
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if w := uniseg.StringWidth(line); w > width {
				t.Errorf("width %d: a line of %d columns: %q", width, w, line)
			}
			if strings.TrimRight(line, " ") != line {
				t.Errorf("width %d: trailing spaces: %q", width, line)
			}
		}
		switch width {
		case 200: // everything whole, in a table
			for _, want := range []string{"0b0f4d5e-7a1c-4f3e-9b2a-1c2d3e4f5a6b", "/home/ann/src/github.com/example/service/backend",
				"リファクタリングしてください：ユーザー認証モジュール 🙂", "fix the flaky test", "TOKENS"} {
				if !strings.Contains(out, want) {
					t.Errorf("width 200 lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "…") {
				t.Errorf("width 200 cut a cell:\n%s", out)
			}
		case 80, 60: // a table with cut cells
			lines := strings.Split(out, "\n")
			if !strings.HasPrefix(lines[0], "ID ") || !strings.HasPrefix(lines[1], "0b0f4d5e…") {
				t.Errorf("width %d: the id is not cut to its prefix:\n%s", width, out)
			}
			if !strings.Contains(lines[1], "…") || !strings.Contains(lines[1], "/backend") || !strings.Contains(lines[1], "complete") {
				t.Errorf("width %d: the path keeps its end, the status is whole:\n%s", width, out)
			}
		case 40: // too narrow for columns: one record per row
			if !strings.Contains(out, "\nSTATUS     interrupted\n") || !strings.Contains(out, "PROMPT     fix the flaky test\n") {
				t.Errorf("width 40 is not written as records:\n%s", out)
			}
		}
	}
}

// Cut cells end with the ellipsis at the widths of wide runes: a CJK rune
// that would straddle the width is left out, not split.
func TestTableCutsWideRunes(t *testing.T) {
	tb := Table{Columns: []Column{{Header: "A"}, {Header: "B", Cut: CutEnd, Min: 4}}, Rows: [][]string{
		{"x", "日本語のテキスト"},
		{"y", "🙂🙂🙂🙂🙂🙂"},
	}}
	got := writeTable(t, tb, Fit{Width: 10})
	want := "A  B\nx  日本語…\ny  🙂🙂🙂…\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got = writeTable(t, tb, Fit{Width: 11, ASCII: true})
	want = "A  B\nx  日本...\ny  🙂🙂...\n"
	if got != want {
		t.Errorf("ASCII: got\n%s\nwant\n%s", got, want)
	}
}

// Numbers align right, text left, and without a width nothing is cut:
// a pipe gets whole cells.
func TestTableAlignsAndKeepsWholeWithoutWidth(t *testing.T) {
	tb := Table{Columns: []Column{{Header: "MODEL", Cut: CutEnd}, {Header: "REQUESTS", Right: true}, {Header: "NOTE"}}, Rows: [][]string{
		{"a-very-long-model-name-that-goes-on-and-on", "7", "ok"},
		{"b", "1,234", ""},
	}}
	got := writeTable(t, tb, Fit{})
	want := "MODEL                                       REQUESTS  NOTE\n" +
		"a-very-long-model-name-that-goes-on-and-on         7  ok\n" +
		"b                                              1,234\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// The room a width leaves goes first to the columns that do not yield;
// optional columns are left out before the table becomes records.
func TestTableYieldsAndOptional(t *testing.T) {
	tb := Table{Columns: []Column{
		{Header: "ID", Cut: CutEnd, Min: 5, Yields: true},
		{Header: "N", Right: true, Optional: true},
		{Header: "TEXT", Cut: CutEnd, Min: 4},
	}, Rows: [][]string{{"abcdefghijkl", "12345", "the quick brown fox"}}}
	for _, tt := range []struct {
		width int
		want  string
	}{
		{60, "ID                N  TEXT\nabcdefghijkl  12345  the quick brown fox\n"},
		{30, "ID         N  TEXT\nabcd…  12345  the quick brown…\n"},          // TEXT grows first
		{36, "ID            N  TEXT\nabcdefg…  12345  the quick brown fox\n"}, // then ID
		{13, "ID     TEXT\nabcd…  the q…\n"},                                  // N is left out
		{10, "ID    abc…\nN     123…\nTEXT  the…\n"},                          // records
	} {
		if got := writeTable(t, tb, Fit{Width: tt.width}); got != tt.want {
			t.Errorf("width %d: got\n%s\nwant\n%s", tt.width, got, tt.want)
		}
	}
}

// A column cut below its Want has the optional columns give way first;
// when even that leaves it short, the table stays a table, narrower.
func TestTableWant(t *testing.T) {
	tb := Table{Columns: []Column{
		{Header: "ID", Cut: CutEnd, Min: 5, Yields: true},
		{Header: "N", Right: true, Optional: true},
		{Header: "TEXT", Cut: CutEnd, Min: 4, Want: 12},
	}, Rows: [][]string{{"abcdefghijkl", "12345", "the quick brown fox"}}}
	for _, tt := range []struct {
		width int
		want  string
	}{
		{30, "ID         N  TEXT\nabcd…  12345  the quick brown…\n"}, // TEXT has what it wants
		{24, "ID     TEXT\nabcd…  the quick brown …\n"},              // N gives way for it
		{13, "ID     TEXT\nabcd…  the q…\n"},                         // not enough even so
	} {
		if got := writeTable(t, tb, Fit{Width: tt.width}); got != tt.want {
			t.Errorf("width %d: got\n%s\nwant\n%s", tt.width, got, tt.want)
		}
	}
}

// A table without headers that cannot fit has its lines cut; Tail keeps
// a path's end.
func TestTableWithoutHeadersAndTail(t *testing.T) {
	tb := Table{Columns: []Column{{}, {Cut: CutEnd, Min: 6}}, Rows: [][]string{{"checkpointMaxFileBytes", "10485760"}}}
	if got, want := writeTable(t, tb, Fit{Width: 20}), "checkpointMaxFileBy…\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := writeTable(t, tb, Fit{Width: 30}), "checkpointMaxFileBytes  10485…\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := (Fit{Width: 25}).Tail("config file: ", "/home/ann/.dev-agent/config.json"), "config file: …config.json"; got != want {
		t.Errorf("Tail: %q, want %q", got, want)
	}
	if got, want := (Fit{}).Tail("config file: ", "/a/config.json"), "config file: /a/config.json"; got != want {
		t.Errorf("Tail without a width: %q, want %q", got, want)
	}
}

// At any width from 8 columns up, every line fits, whatever layout the
// width leads to; below that nothing panics.
func TestTableFitsEveryWidth(t *testing.T) {
	for width := 1; width <= 220; width++ {
		for _, tb := range []Table{wideTable(), {Columns: []Column{{}, {Cut: CutEnd}, {Cut: CutStart, Min: 3}}, Rows: wideTable().Rows}} {
			out := writeTable(t, tb, Fit{Width: width})
			if width < 8 {
				continue
			}
			for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				if w := uniseg.StringWidth(line); w > width {
					t.Fatalf("width %d: a line of %d columns: %q\n%s", width, w, line, out)
				}
			}
		}
	}
}
