package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Peak RSS is measured by a separate, small spawner process. On Linux a
// child's peak RSS (wait4) starts at its parent's own peak: Go starts
// children with vfork, and exec records the high-water mark of the memory
// the child shared with its parent until then. The bench process grows
// (the mock keeps every request), so dev would inherit its peak; the
// spawner, started before the bench grows, only ever holds a few MB, which
// is the floor a measurement cannot go below (printed with the table).

// spawnerEnv marks the bench binary started as the spawner.
const spawnerEnv = "DEV_BENCH_SPAWNER"

// spawnRequest asks the spawner to run one command; stdout and stderr go
// to files.
type spawnRequest struct {
	Path, Dir, Stdout, Stderr string
	Args, Env                 []string
	Timeout                   time.Duration
}

// spawnResult is what the spawner measured.
type spawnResult struct {
	Start      time.Time
	Wall       time.Duration
	User, Sys  time.Duration
	RSS        int64 // bytes
	Code       int
	Err        string
	SpawnerRSS int64 // the spawner's own peak: the floor of RSS
}

// spawner is the connection to the spawner process.
type spawner struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startSpawner() (*spawner, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), spawnerEnv+"=1")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &spawner{cmd: cmd, in: in, out: bufio.NewScanner(out)}, nil
}

func (s *spawner) run(req spawnRequest) (spawnResult, error) {
	data, err := json.Marshal(req)
	if err != nil {
		return spawnResult{}, err
	}
	if _, err := s.in.Write(append(data, '\n')); err != nil {
		return spawnResult{}, fmt.Errorf("spawner: %w", err)
	}
	if !s.out.Scan() {
		return spawnResult{}, fmt.Errorf("spawner: no answer: %v", s.out.Err())
	}
	var res spawnResult
	if err := json.Unmarshal(s.out.Bytes(), &res); err != nil {
		return spawnResult{}, fmt.Errorf("spawner: %w", err)
	}
	if res.Err != "" {
		return res, fmt.Errorf("%s", res.Err)
	}
	return res, nil
}

func (s *spawner) close() {
	s.in.Close()
	_ = s.cmd.Wait()
}

// spawnerMain serves spawn requests, one JSON object a line, until stdin
// ends.
func spawnerMain() int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 16<<20)
	enc := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req spawnRequest
		res := spawnResult{}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			res.Err = err.Error()
		} else {
			res = spawnOne(req)
		}
		res.SpawnerRSS = selfPeakRSS()
		if err := enc.Encode(res); err != nil {
			return 1
		}
	}
	return 0
}

func spawnOne(req spawnRequest) (res spawnResult) {
	ctx, cancel := context.WithTimeout(context.Background(), req.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, req.Path, req.Args...)
	cmd.Dir, cmd.Env = req.Dir, req.Env
	stdout, err := os.Create(req.Stdout)
	if err != nil {
		return spawnResult{Err: err.Error()}
	}
	defer stdout.Close()
	stderr, err := os.Create(req.Stderr)
	if err != nil {
		return spawnResult{Err: err.Error()}
	}
	defer stderr.Close()
	cmd.Stdout, cmd.Stderr = stdout, stderr
	res.Start = time.Now()
	err = cmd.Run()
	res.Wall = time.Since(res.Start)
	if ctx.Err() != nil {
		return spawnResult{Err: "did not finish within " + req.Timeout.String()}
	}
	if err != nil {
		exit, ok := err.(*exec.ExitError)
		if !ok {
			return spawnResult{Err: err.Error()}
		}
		res.Code = exit.ExitCode()
	}
	st := cmd.ProcessState
	res.User, res.Sys = st.UserTime(), st.SystemTime()
	res.RSS = peakRSS(st)
	return res
}

// selfPeakRSS is this process's peak RSS (VmHWM), 0 when unknown.
func selfPeakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
