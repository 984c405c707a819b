package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// killPoint is a moment of a rewind, told by what it changes on disk: the
// count-th change of kind. "store": a file written in the session's
// checkpoint store; "session": the session file replaced; "files": a file
// of the working directory deleted or written back (renamed into place).
type killPoint struct {
	kind  string
	count int
}

func (k killPoint) String() string { return fmt.Sprintf("%s-%d", k.kind, k.count) }

// Issue 30, break 2: dev rewind killed at the wrong moment lost work. The
// restore wrote the files first and kept the checkpoint of the state
// before afterwards: killed in between, 1,000 edits in no checkpoint were
// gone, and dev checkpoints had no new entry. Here a workspace of 3,000
// files at checkpoint 1, 1,000 of them then edited, `dev rewind 0 --yes`,
// SIGKILL at moments told by what the rewind changes on disk (no timing):
// its first write to the store, its first save of the session, and its
// n-th file changed, from the first to past the last. After every kill
// the old files are intact, or the checkpoint the preview named ("dev
// rewind N undoes this") brings back all 1,000 edits.
func TestRewindKilledAnywhereLosesNothing(t *testing.T) {
	w := newWorld(t, nil)
	const dirs, perDir = 10, 300
	for d := range dirs {
		for f := range perDir {
			w.write(fmt.Sprintf("d%02d/f%03d.txt", d, f), fmt.Sprintf("file %d/%d as it was\n%s", d, f, strings.Repeat("x", 200)))
		}
	}
	w.srv.Script(reply("Make a file.", "COMMAND", "echo made > made.txt"), done("Made."))
	w.run("--no-audit", "-p", "make a file").expect(t, 0)
	s := w.onlySession()
	if len(s.Checkpoints) != 2 {
		t.Fatalf("%d checkpoints, want 2", len(s.Checkpoints))
	}
	store := filepath.Join(w.home, "sessions", s.ID, "checkpoints", "objects", "pack")
	watched := []string{w.dir, store, filepath.Join(w.home, "sessions")}
	for d := range dirs {
		watched = append(watched, filepath.Join(w.dir, fmt.Sprintf("d%02d", d)))
	}

	points := []killPoint{{"store", 1}, {"session", 1}}
	for _, n := range []int{1, 2, 5, 20, 60, 150, 300, 450, 600, 750, 900, 990, 1001} {
		points = append(points, killPoint{"files", n})
	}
	undoes := regexp.MustCompile(`dev rewind (\d+) undoes this`)
	lost := 0
	outcomes := map[string]int{}
	for i, at := range points {
		// 1,000 edits in no checkpoint, new in every run.
		for d := range dirs {
			for f := 0; f < perDir; f += 3 {
				w.write(fmt.Sprintf("d%02d/f%03d.txt", d, f), fmt.Sprintf("edit %d of file %d/%d\n", i, d, f))
			}
		}
		w.write("made.txt", "made\n")
		edited := tree(t, w.dir)

		code, stderr := w.rewindKilled(t, at, watched, s.ID+".json")
		now := tree(t, w.dir)
		outcome := "old files intact"
		if !sameFiles(now, edited) {
			outcome = "restored by the named checkpoint"
			m := undoes.FindStringSubmatch(stderr)
			if m == nil {
				outcome = "lost: no checkpoint named"
			} else if r := w.run("rewind", m[1], "--yes"); r.code != 0 || !sameFiles(tree(t, w.dir), edited) {
				outcome = fmt.Sprintf("lost: dev rewind %s (exit %d) does not bring the edits back", m[1], r.code)
			}
		}
		if code == 0 {
			outcome = "finished before the kill; " + outcome
		}
		if strings.Contains(outcome, "lost") {
			lost++
			t.Errorf("killed at %s: %s; stderr:\n%s", at, outcome, stderr)
		}
		outcomes[outcome]++
		t.Logf("killed at %s (exit %d): %s", at, code, outcome)
	}
	t.Logf("%d kills during a rewind of 1,000 edited files: %d lost the edits; %v", len(points), lost, outcomes)
}

// sameFiles reports whether two trees (of tree) are the same.
func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// rewindKilled runs dev rewind 0 --yes and kills it with SIGKILL at the
// moment at; it returns its exit code (-1: killed) and stderr.
func (w *world) rewindKilled(t *testing.T, at killPoint, watched []string, sessionFile string) (int, string) {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	events := os.NewFile(uintptr(fd), "inotify") // in the poller: Close ends a Read
	defer events.Close()
	kinds := map[int]string{}
	for i, dir := range watched {
		wd, err := unix.InotifyAddWatch(fd, dir, unix.IN_CREATE|unix.IN_MODIFY|unix.IN_MOVED_TO|unix.IN_DELETE)
		if err != nil {
			t.Fatal(err)
		}
		switch i {
		case 1:
			kinds[wd] = "store"
		case 2:
			kinds[wd] = "session"
		default:
			kinds[wd] = "files"
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd, _, stderr := w.command(ctx, "rewind", "0", "--yes")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		count := 0
		buf := make([]byte, 64<<10)
		for {
			n, err := events.Read(buf)
			if err != nil {
				return
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := strings.TrimRight(string(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)]), "\x00")
				off += unix.SizeofInotifyEvent + int(ev.Len)
				kind := kinds[int(ev.Wd)]
				switch {
				case kind != at.kind:
					continue
				case kind == "session" && (ev.Mask&unix.IN_MOVED_TO == 0 || name != sessionFile):
					continue
				case kind == "files" && (ev.Mask&(unix.IN_MOVED_TO|unix.IN_DELETE) == 0 || strings.HasPrefix(name, ".dev-restore-") || ev.Mask&unix.IN_ISDIR != 0):
					continue
				}
				if count++; count == at.count {
					cmd.Process.Kill()
					return
				}
			}
		}
	}()
	code := exitCode(t, cmd)
	if ctx.Err() != nil {
		t.Fatalf("dev rewind did not end; stderr:\n%s", stderr)
	}
	if code != 0 && code != -1 {
		t.Fatalf("dev rewind exited %d; stderr:\n%s", code, stderr)
	}
	return code, stderr.String()
}
