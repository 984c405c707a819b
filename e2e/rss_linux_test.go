package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/devagent/dev/llm/llmtest"
)

// BenchmarkCommandOutputPeakRSS runs dev against the mock while a command
// prints a lot, and reports dev's peak resident memory (getrusage of the
// child; Linux reports kilobytes). Memory must not grow with the output:
//
//	go test ./e2e -run '^$' -bench PeakRSS -benchtime 1x
//
// baseline: the command prints one line. background-200MB: the command is
// handed to the background after the 1 s timeout, then prints 200 MB into
// the bounded buffer, and the model reads it. foreground-200MB: it prints
// 200 MB within the timeout (head and tail kept, the rest spilled to disk).
//
// A child's peak RSS on Linux starts at its parent's own peak (Go starts
// children with vfork, and exec records the high-water mark of the memory
// they shared), so the figure cannot be lower than this test process's
// peak, reported as floor-RSS-MB: when both are equal, run this benchmark
// alone, or use go run ./bench, which measures through a small process.
func BenchmarkCommandOutputPeakRSS(b *testing.B) {
	const mb200 = 200 << 20
	for _, bc := range []struct {
		name       string
		size       int
		background bool
	}{
		{"baseline", 0, true},
		{"background-200MB", mb200, true},
		{"foreground-200MB", mb200, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var peakKB, floorKB int64
			for range b.N {
				peak, floor := runPrinting(b, bc.size, bc.background)
				peakKB, floorKB = max(peakKB, peak), max(floorKB, floor)
			}
			b.ReportMetric(float64(peakKB)/1024, "peak-RSS-MB")
			b.ReportMetric(float64(floorKB)/1024, "floor-RSS-MB")
			b.ReportMetric(float64(bc.size)/(1<<20), "MB-printed")
		})
	}
}

// runPrinting runs dev once and returns its peak RSS in KB, and the floor
// of that figure: this process's peak when dev started.
func runPrinting(b *testing.B, size int, background bool) (peakKB, floorKB int64) {
	b.Helper()
	home, dir := b.TempDir(), b.TempDir()
	srv := llmtest.New("mock-model")
	defer srv.Close()
	timeout := 1
	if !background {
		timeout = 300
	}
	conf, _ := json.Marshal(map[string]any{"apiUrl": srv.BaseURL(), "model": "mock-model", "commandTimeout": timeout})
	if err := os.WriteFile(filepath.Join(home, "config.json"), conf, 0o600); err != nil {
		b.Fatal(err)
	}
	printCmd := "yes 0123456789abcdef | head -c " + strconv.Itoa(size)
	if size == 0 {
		printCmd = "echo one line"
	}
	if !background {
		srv.Script(reply("Print.", "COMMAND", printCmd), done("Printed."))
	} else {
		// The command waits at the gate until it is in the background, then
		// prints; the model reads once it is done.
		gate, printed := filepath.Join(dir, "gate"), filepath.Join(dir, "printed")
		srv.Script(
			reply("Print.", "COMMAND", "mkfifo gate; read x < gate; "+printCmd+"; touch printed; exec sleep 300"),
			llmtest.Response{Respond: func(ctx context.Context, req llmtest.Request) llmtest.Response {
				id := procIDRE.FindString(lastUser(req))
				f, err := os.OpenFile(gate, os.O_WRONLY, 0)
				if err != nil {
					b.Error(err)
					return done("no gate")
				}
				f.WriteString("go\n")
				f.Close()
				if !await(ctx, func() bool { _, err := os.Stat(printed); return err == nil }) {
					b.Error("the command did not finish printing")
				}
				return reply("Read.", "READ_BACKGROUND_PROCESS", id)
			}},
			done("Printed."),
		)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(b), "--no-audit", "-p", "print a lot", "-q")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "DEV_AGENT_HOME=" + home, "LANG=C.UTF-8"}
	floorKB = selfPeakKB()
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("dev: %v\n%s", err, out)
	}
	reqs := srv.Requests()
	last := lastUser(reqs[len(reqs)-1])
	if background && size > 0 && !strings.Contains(last, "dropped: only the last 16 KB of output are kept") {
		b.Fatalf("the read did not drop output: %.300q", last)
	}
	return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss, floorKB
}

// selfPeakKB is this process's peak RSS (VmHWM) in KB, 0 when unknown.
func selfPeakKB() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}
