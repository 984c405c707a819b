package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

func printTable(w io.Writer, rows []row) {
	fmt.Fprintln(w, "| scenario | runs | wall | CPU (with its commands) | peak RSS | first request | step gap (median / max) | gap after a command | notes | target |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		first, gap, slow := "–", "–", "–"
		if r.hasRequests {
			first = ms(r.firstRequest)
		}
		if r.hasGaps {
			gap = ms(r.gap) + " / " + ms(r.gapMax)
		}
		if r.hasSlowGaps {
			slow = ms(r.slowGap)
		}
		rss := "n/a"
		if r.rss > 0 {
			rss = fmt.Sprintf("%.1f MB", float64(r.rss)/(1<<20))
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			r.title, r.runs, ms(r.wall), ms(r.cpu), rss, first, gap, slow, r.notes, r.target)
	}
}

// ms writes a duration in milliseconds, with two decimals below 10 ms.
func ms(d time.Duration) string {
	f := float64(d) / float64(time.Millisecond)
	switch {
	case f < 10:
		return strconv.FormatFloat(f, 'f', 2, 64) + " ms"
	case f < 10000:
		return strconv.FormatFloat(f, 'f', 0, 64) + " ms"
	}
	return strconv.FormatFloat(f/1000, 'f', 1, 64) + " s"
}

// machine describes where the figures come from.
func machine(rows []row) string {
	cpu := cpuModel()
	mem := memTotal()
	goVersion := runtime.Version()
	if out, err := exec.Command("go", "env", "GOVERSION").Output(); err == nil {
		goVersion = strings.TrimSpace(string(out))
	}
	kernel := ""
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = " " + strings.TrimSpace(string(data))
	}
	var floor int64
	for _, r := range rows {
		floor = max(floor, r.floor)
	}
	return fmt.Sprintf("Machine: %d CPUs (%s), %s RAM, %s/%s%s, %s; mock server: llm/llmtest, zero model latency; "+
		"peak RSS cannot read below %.1f MB (the spawner's own peak, see bench/spawn.go).",
		runtime.NumCPU(), cpu, mem, runtime.GOOS, runtime.GOARCH, kernel, goVersion, float64(floor)/(1<<20))
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "CPU model unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "CPU model unknown"
}

func memTotal() string {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseFloat(fields[1], 64)
			if err == nil {
				return fmt.Sprintf("%.1f GB", kb/(1<<20))
			}
		}
	}
	return "unknown"
}
