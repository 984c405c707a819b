// Command bench measures dev as users run it: it builds the binary, runs
// each scenario several times as a whole process against the scripted mock
// server of llm/llmtest (zero model latency), checks that the work was done,
// and prints medians as a markdown table:
//
//	go run ./bench                 # every scenario, 5 timed runs each
//	go run ./bench -runs 1 -only version,fix-a-bug
//
// Wall time and CPU time are the process's from start to exit; peak RSS is
// the child's (wait4 rusage); first request is the time from starting the
// process to the mock receiving the first chat request; step gap is the
// time from the end of a reply (the mock's last byte) to the next request.
// The scenarios' commands (grep, wc, yes, head) need a Unix system; peak
// RSS is read on Linux and macOS.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	if os.Getenv(spawnerEnv) == "1" {
		os.Exit(spawnerMain())
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("bench", flag.ContinueOnError)
	flags.SetOutput(stderr)
	runs := flags.Int("runs", 5, "timed runs per scenario (the 1 GB scenario runs at most 3)")
	warmup := flags.Int("warmup", 1, "untimed runs per scenario before the timed ones")
	only := flags.String("only", "", "comma-separated scenario names (default: all): "+strings.Join(scenarioNames(), ", "))
	devPath := flags.String("dev", "", "measure this dev binary instead of building one")
	profile := flags.String("profile", "", "write a CPU profile of every timed run to `DIR` (go tool pprof reads several at once)")
	keep := flags.String("stderr", "", "keep dev's stderr of every timed run in `DIR`")
	memProfile := flags.Bool("memprofile", false, "with -profile, also write allocation profiles (slows the runs down)")
	if err := flags.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		return 2
	}
	selected, err := selectScenarios(*only)
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 2
	}
	// First, while this process is small: see spawn.go.
	sp, err := startSpawner()
	if err != nil {
		fmt.Fprintln(stderr, "bench: starting the spawner:", err)
		return 1
	}
	defer sp.close()
	tmp, err := os.MkdirTemp("", "dev-bench-")
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	bin := *devPath
	if bin == "" {
		bin = filepath.Join(tmp, "dev")
		fmt.Fprintln(stderr, "bench: building dev")
		out, err := exec.Command("go", "build", "-o", bin, "github.com/devagent/dev").CombinedOutput()
		if err != nil {
			fmt.Fprintf(stderr, "bench: building dev: %v\n%s", err, out)
			return 1
		}
	}
	b := &bench{sp: sp, dev: bin, tmp: tmp, log: stderr, profile: *profile, memProfile: *memProfile, keepStderr: *keep}
	for _, dir := range []string{b.profile, b.keepStderr} {
		if dir == "" {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintln(stderr, "bench:", err)
			return 1
		}
	}
	var rows []row
	failed := false
	for _, sc := range selected {
		n := *runs
		if sc.maxRuns > 0 {
			n = min(n, sc.maxRuns)
		}
		r, err := b.measure(sc, *warmup, n)
		if err != nil {
			fmt.Fprintf(stderr, "bench: %s: %v\n", sc.name, err)
			failed = true
			continue
		}
		rows = append(rows, r)
	}
	fmt.Fprintln(stdout, machine(rows))
	fmt.Fprintln(stdout)
	printTable(stdout, rows)
	if failed {
		return 1
	}
	return 0
}

func scenarioNames() []string {
	var names []string
	for _, sc := range scenarios() {
		names = append(names, sc.name)
	}
	return names
}

func selectScenarios(only string) ([]scenario, error) {
	all := scenarios()
	if only == "" {
		return all, nil
	}
	var out []scenario
	for _, name := range strings.Split(only, ",") {
		found := false
		for _, sc := range all {
			if sc.name == strings.TrimSpace(name) {
				out = append(out, sc)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("no scenario %q (have %s)", name, strings.Join(scenarioNames(), ", "))
		}
	}
	return out, nil
}
