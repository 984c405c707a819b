package web

import (
	"fmt"
	"math"
	"strings"

	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/textfmt"
)

// The chart of a session's requests is drawn here, as SVG geometry that
// the page's template writes out: two panels sharing the x axis, the
// tokens of each request (prompt, the cached part of it, completion) and
// its time (to the first byte, then the rest). Drawing it in Go keeps the
// page free of a charting library and testable without a browser.
//
// Nothing in it is scaled, so that its labels keep their size on a phone
// (SPEC §17): a viewBox shrinks a 720-unit chart and its 11-unit labels
// to half on a 390 px screen. Heights are pixels; along x the bars and the
// request numbers are placed in percent of the plot's width, the plot
// taking what the y axis's labels leave (a column of its own).

// Geometry of the chart, in pixels.
const (
	axisWidth   = 48.0  // the y labels' column
	plotHeight  = 120.0 // of a panel's bars
	plotTop     = 8.0   // above the bars: room for the top label
	markHeight  = 4.0   // the purpose mark under a bar
	xLabelsRoom = 22.0  // under the time panel's marks: the request numbers
)

type chart struct {
	AxisWidth float64
	Panels    []panel
}

// panel is one of the chart's two plots, Height pixels high: its grid's
// lines and labels, its bars, and (the last one) the request numbers.
type panel struct {
	Title   string
	Height  float64
	Grid    []label // Y: a horizontal line's, in pixels
	Bars    []bar
	XLabels []label // X in percent
}

type label struct {
	X, Y float64
	Text string
}

// bar is one request in a panel: its rectangles and what a pointer over
// it says.
type bar struct {
	Title   string
	Purpose string // worker, audit, compress: the class of its mark
	Rects   []rect
}

// rect is a rectangle, X and W in percent of the plot's width, Y and H
// in pixels.
type rect struct {
	Class      string
	X, Y, W, H float64
}

// newChart lays out the chart of reqs; nil when there is none to draw.
func newChart(reqs []sessions.Request) *chart {
	if len(reqs) == 0 {
		return nil
	}
	var maxTokens, maxMs float64
	for _, r := range reqs {
		maxTokens = max(maxTokens, float64(r.PromptTokens+r.CompletionTokens))
		maxMs = max(maxMs, float64(r.DurationMs), float64(r.FirstByteMs))
	}
	tokenTop, timeTop := niceCeil(maxTokens), niceCeil(maxMs)
	bottom := plotTop + plotHeight
	tokens := panel{Title: "Tokens per request (prompt, cached part, completion)", Height: bottom + 4}
	times := panel{Title: "Time per request (to the first byte, then the rest)", Height: bottom + 2 + markHeight + xLabelsRoom}
	for _, f := range []float64{0, 0.5, 1} {
		tokens.Grid = append(tokens.Grid, label{Y: bottom - f*plotHeight, Text: shortNumber(f * tokenTop)})
		times.Grid = append(times.Grid, label{Y: bottom - f*plotHeight, Text: shortSeconds(f * timeTop)})
	}

	slot := 100 / float64(len(reqs))
	gap := 0.0
	if slot >= 0.6 { // a bar that would be thinner than its gap has none
		gap = math.Min(slot*0.2, 0.9)
	}
	w := slot - gap
	scale := func(v, top float64) float64 {
		if top == 0 {
			return 0
		}
		return v / top * plotHeight
	}
	for i, r := range reqs {
		x := float64(i)*slot + gap/2
		cached := 0
		if r.CachedTokens != nil {
			cached = min(*r.CachedTokens, r.PromptTokens)
		}
		title := barTitle(i+1, r)
		// Stacked from the bottom: cached prompt, the rest of the
		// prompt, completion.
		tb := bar{Title: title, Purpose: r.Purpose}
		y := bottom
		for _, part := range []struct {
			class string
			v     int
		}{{"cached", cached}, {"prompt", r.PromptTokens - cached}, {"completion", r.CompletionTokens}} {
			h := scale(float64(part.v), tokenTop)
			if h > 0 {
				y -= h
				tb.Rects = append(tb.Rects, rect{Class: part.class, X: x, Y: y, W: w, H: h})
			}
		}
		tokens.Bars = append(tokens.Bars, tb)

		first := min(r.FirstByteMs, r.DurationMs)
		if r.DurationMs == 0 {
			first = r.FirstByteMs
		}
		mb := bar{Title: title, Purpose: r.Purpose}
		y = bottom
		for _, part := range []struct {
			class string
			v     int64
		}{{"firstbyte", first}, {"generation", r.DurationMs - first}} {
			h := scale(float64(part.v), timeTop)
			if h > 0 {
				y -= h
				mb.Rects = append(mb.Rects, rect{Class: part.class, X: x, Y: y, W: w, H: h})
			}
		}
		// The purpose, under the time bar, so audit and compression
		// requests stand out.
		mb.Rects = append(mb.Rects, rect{Class: "mark " + r.Purpose, X: x, Y: bottom + 2, W: w, H: markHeight})
		times.Bars = append(times.Bars, mb)
	}
	for _, i := range xTicks(len(reqs)) {
		times.XLabels = append(times.XLabels, label{X: (float64(i) + 0.5) * slot, Y: bottom + 2 + markHeight + 14, Text: fmt.Sprint(i + 1)})
	}
	return &chart{AxisWidth: axisWidth, Panels: []panel{tokens, times}}
}

// xTicks are the indexes of requests numbered under the axis: at most
// about ten, the first and the last among them.
func xTicks(n int) []int {
	step := max(1, int(math.Ceil(float64(n)/10)))
	var out []int
	for i := 0; i < n; i += step {
		out = append(out, i)
	}
	if out[len(out)-1] != n-1 {
		if n-1-out[len(out)-1] < step/2 {
			out = out[:len(out)-1]
		}
		out = append(out, n-1)
	}
	return out
}

func barTitle(n int, r sessions.Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Request %d · %s · %s\n", n, r.Purpose, r.Model)
	fmt.Fprintf(&b, "%s tokens in", textfmt.Thousands(int64(r.PromptTokens)))
	if r.CachedTokens != nil {
		fmt.Fprintf(&b, " (%s cached)", textfmt.Thousands(int64(*r.CachedTokens)))
	}
	fmt.Fprintf(&b, ", %s out", textfmt.Thousands(int64(r.CompletionTokens)))
	if r.Estimated {
		b.WriteString(" (estimated)")
	}
	fmt.Fprintf(&b, "\nfirst byte %s, %s in all", shortSeconds(float64(r.FirstByteMs)), shortSeconds(float64(r.DurationMs)))
	if r.FormatError {
		b.WriteString("\nformat error")
	}
	if r.EarlyStop {
		b.WriteString("\nearly stop")
	}
	return b.String()
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten, for the y
// axis's top.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// shortNumber writes a count as 950, 1.5k, 12k, 1.2M.
func shortNumber(v float64) string {
	switch {
	case v >= 1e6:
		return trimZero(fmt.Sprintf("%.1f", v/1e6)) + "M"
	case v >= 1e3:
		return trimZero(fmt.Sprintf("%.1f", v/1e3)) + "k"
	}
	return fmt.Sprintf("%.0f", v)
}

// shortSeconds writes milliseconds as seconds: 0.4 s, 12 s.
func shortSeconds(ms float64) string {
	if ms < 10_000 {
		return trimZero(fmt.Sprintf("%.1f", ms/1000)) + " s"
	}
	return fmt.Sprintf("%.0f s", ms/1000)
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }
