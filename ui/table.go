package ui

import (
	"io"
	"strings"

	"github.com/rivo/uniseg"

	"github.com/devagent/dev/textfmt"
)

// Table is rows of cells laid out in aligned columns that fit a width:
// the one writer of dev's tables (dev stats, dev config show, dev sessions
// list, dev checkpoints and their interactive twins). A cell is one line;
// a cell too long for its column is cut with an ellipsis, never wrapped
// into the next row, so every line is at most the width given.
type Table struct {
	Columns []Column
	Rows    [][]string
}

// Column says how one column is laid out.
type Column struct {
	// Header is the column's name. A table whose headers are all empty
	// has no header line.
	Header string
	// Right aligns the column's cells to the right: numbers.
	Right bool
	// Cut says whether and where a cell too wide for the column is cut.
	Cut Cut
	// Min is the fewest columns a cut leaves the column; 0 is the
	// header's width.
	Min int
	// Yields: the column gets room only once the other columns that may
	// be cut are whole (a long id whose prefix is enough).
	Yields bool
	// Optional columns are left out, the last first, when the table
	// cannot fit otherwise, or when a column that may be cut would be
	// narrower than its Want.
	Optional bool
	// Want is the width below which a cut column would rather the
	// optional columns gave way (a request's first words before a count
	// of tokens); 0 is Min. Without optional columns left, it may be
	// narrower, down to Min.
	Want int
}

// Cut says which end of a long cell gives way.
type Cut int

const (
	NoCut    Cut = iota // the cell is shown whole
	CutEnd              // keep the start: names, prompts, values
	CutStart            // keep the end: paths, whose last elements say most
)

// Fit is the room a table has.
type Fit struct {
	// Width is the most columns a line may take; 0 is no limit.
	Width int
	// ASCII marks a cut with "..." instead of "…" (no UTF-8 locale).
	ASCII bool
}

// gap is the space between two columns.
const gap = 2

// Write lays the table out in f's width and writes it. When the columns
// cannot fit even with their long cells cut to their minimum and the
// optional columns left out, each row is written as a record instead:
// one "HEADER  value" line per column, a blank line between rows (psql's
// expanded display); a table without headers then has its lines cut.
func (t *Table) Write(w io.Writer, f Fit) error {
	ell := f.ellipsis()
	rows := make([][]string, len(t.Rows))
	for r, row := range t.Rows {
		rows[r] = make([]string, len(t.Columns))
		for c := range t.Columns {
			if c < len(row) {
				rows[r][c] = cell(row[c])
			}
		}
	}
	headers := make([]string, len(t.Columns))
	hasHeader := false
	for c, col := range t.Columns {
		headers[c] = cell(col.Header)
		hasHeader = hasHeader || headers[c] != ""
	}
	natural := make([]int, len(t.Columns))
	for c := range t.Columns {
		natural[c] = textWidth(headers[c])
		for _, row := range rows {
			natural[c] = max(natural[c], textWidth(row[c]))
		}
	}

	shown := make([]bool, len(t.Columns))
	for c := range shown {
		shown[c] = true
	}
	widths, ok := layout(t.Columns, natural, shown, f.Width)
	for c := len(t.Columns) - 1; (!ok || !wanted(t.Columns, natural, shown, widths)) && c >= 0; c-- {
		if t.Columns[c].Optional {
			shown[c] = false
			widths, ok = layout(t.Columns, natural, shown, f.Width)
		}
	}
	var b strings.Builder
	switch {
	case ok:
		if hasHeader {
			writeRow(&b, t.Columns, headers, widths, shown, true, ell)
		}
		for _, row := range rows {
			writeRow(&b, t.Columns, row, widths, shown, false, ell)
		}
	case hasHeader:
		writeRecords(&b, headers, rows, f.Width, ell)
	default:
		for c := range shown {
			shown[c] = true
		}
		widths, _ = layout(t.Columns, natural, shown, f.Width)
		for _, row := range rows {
			var line strings.Builder
			writeRow(&line, t.Columns, row, widths, shown, false, ell)
			b.WriteString(cutEnd(strings.TrimSuffix(line.String(), "\n"), f.Width, ell) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell is s on one line: a line break or tab is a space, and control
// characters and escape sequences are dropped, so a cell is as wide as
// it is measured.
func cell(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s)
	return sanitize(s)
}

// colMin is the column's minimum width.
func colMin(col Column) int {
	if col.Min > 0 {
		return col.Min
	}
	return max(textWidth(cell(col.Header)), 1)
}

// layout gives the shown columns their widths within width (0: no
// limit): whole when they fit. Otherwise each column that may be cut
// starts at its minimum, and the room left goes to them by water-filling
// (the narrowest grow first, so that no cut column is narrower than
// another that was cut less), first to the columns that do not yield,
// then to those that do. When even the minimums do not fit, ok is false
// and widths are the minimums.
func layout(cols []Column, natural []int, shown []bool, width int) (widths []int, ok bool) {
	widths = make([]int, len(cols))
	sum, n := 0, 0
	for c, col := range cols {
		if !shown[c] {
			continue
		}
		widths[c] = natural[c]
		if width > 0 && col.Cut != NoCut {
			widths[c] = min(natural[c], colMin(col))
		}
		sum += widths[c]
		n++
	}
	if width <= 0 {
		return widths, true
	}
	room := width - sum - gap*max(n-1, 0)
	if room < 0 {
		return widths, false
	}
	for _, yields := range []bool{false, true} {
		var class []int
		for c, col := range cols {
			if shown[c] && col.Cut != NoCut && col.Yields == yields {
				class = append(class, c)
			}
		}
		room = fill(class, widths, natural, room)
	}
	return widths, true
}

// wanted reports whether every shown column that may be cut has the
// width it wants, or its whole width when that is less.
func wanted(cols []Column, natural []int, shown []bool, widths []int) bool {
	for c, col := range cols {
		if shown[c] && col.Cut != NoCut && widths[c] < min(col.Want, natural[c]) {
			return false
		}
	}
	return true
}

// fill widens the columns of class from their widths towards their
// natural widths with at most room columns in all, the narrowest first,
// and returns the room left.
func fill(class []int, widths, natural []int, room int) int {
	grown := func(level int) int {
		sum := 0
		for _, c := range class {
			sum += max(min(level, natural[c])-widths[c], 0)
		}
		return sum
	}
	widest := 0
	for _, c := range class {
		widest = max(widest, natural[c])
	}
	// The highest level that fits: what the class grows by rises with it.
	lo, hi := 0, widest
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if grown(mid) <= room {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	room -= grown(lo)
	for _, c := range class {
		widths[c] = max(widths[c], min(lo, natural[c]))
	}
	// What the level left over goes to the first columns still cut, a
	// column each.
	for _, c := range class {
		if room > 0 && widths[c] < natural[c] {
			widths[c]++
			room--
		}
	}
	return room
}

// writeRow writes one line of cells in their columns; no line ends in
// spaces. A header too wide is cut at its end whatever the column's cut.
func writeRow(b *strings.Builder, cols []Column, cells []string, widths []int, shown []bool, header bool, ell string) {
	var line strings.Builder
	first := true
	for c, col := range cols {
		if !shown[c] {
			continue
		}
		if !first {
			line.WriteString(strings.Repeat(" ", gap))
		}
		first = false
		s := cells[c]
		if textWidth(s) > widths[c] {
			if col.Cut == CutStart && !header {
				s = cutStart(s, widths[c], ell)
			} else {
				s = cutEnd(s, widths[c], ell)
			}
		}
		pad := strings.Repeat(" ", max(widths[c]-textWidth(s), 0))
		if col.Right {
			line.WriteString(pad + s)
		} else {
			line.WriteString(s + pad)
		}
	}
	b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
}

// writeRecords writes each row as "HEADER  value" lines, a blank line
// between rows; labels take at most half the width, values the rest.
func writeRecords(b *strings.Builder, headers []string, rows [][]string, width int, ell string) {
	label := 0
	for _, h := range headers {
		label = max(label, textWidth(h))
	}
	if width > 0 {
		label = min(label, max(width/2, 1))
	}
	value := 0 // no limit
	if width > 0 {
		value = max(width-label-gap, 1)
	}
	for r, row := range rows {
		if r > 0 {
			b.WriteString("\n")
		}
		for c, h := range headers {
			h = cutEnd(h, label, ell)
			line := h + strings.Repeat(" ", label-textWidth(h)+gap) + cutEnd(row[c], value, ell)
			b.WriteString(strings.TrimRight(line, " ") + "\n")
		}
	}
}

// cutEnd keeps the start of s that fits in width columns (0: no limit),
// followed by ell when s was longer.
func cutEnd(s string, width int, ell string) string {
	if width <= 0 || textWidth(s) <= width {
		return s
	}
	room := width - textWidth(ell)
	if room < 0 {
		return ell[:width] // "..." in fewer than three columns
	}
	var b strings.Builder
	used, state := 0, -1
	for len(s) > 0 {
		var g string
		var w int
		g, s, w, state = uniseg.FirstGraphemeClusterInString(s, state)
		if used+w > room {
			break
		}
		used += w
		b.WriteString(g)
	}
	return b.String() + ell
}

// cutStart keeps the end of s that fits in width columns, after ell when
// s was longer.
func cutStart(s string, width int, ell string) string {
	if width <= 0 || textWidth(s) <= width {
		return s
	}
	room := width - textWidth(ell)
	if room < 0 {
		return ell[:width]
	}
	var graphemes []string
	var widths []int
	state := -1
	for rest := s; len(rest) > 0; {
		var g string
		var w int
		g, rest, w, state = uniseg.FirstGraphemeClusterInString(rest, state)
		graphemes = append(graphemes, g)
		widths = append(widths, w)
	}
	used, from := 0, len(graphemes)
	for from > 0 && used+widths[from-1] <= room {
		from--
		used += widths[from]
	}
	return ell + strings.Join(graphemes[from:], "")
}

// Tail is prefix and s on one line that fits the width, s cut at its
// start when it is too long: a path, whose end says most.
func (f Fit) Tail(prefix, s string) string {
	if f.Width <= 0 {
		return prefix + s
	}
	return prefix + cutStart(cell(s), max(f.Width-textWidth(prefix), 1), f.ellipsis())
}

// ellipsis is what marks a cut.
func (f Fit) ellipsis() string {
	if f.ASCII {
		return "..."
	}
	return textfmt.Ellipsis
}
