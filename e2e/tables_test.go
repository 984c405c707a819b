package e2e

import (
	"strconv"
	"strings"
	"testing"

	"github.com/rivo/uniseg"
)

// tablesWorld has a session whose cells are too long for a narrow
// terminal: a prompt in CJK with an emoji, a long file name in its
// checkpoint, and the long default list of auditCommands.
func tablesWorld(t *testing.T) (*world, string) {
	w := newWorld(t, map[string]any{"denyCommands": []string{"git push --force", "docker system prune", "kubectl delete namespace"}})
	w.srv.Script(
		withUsage(reply("Write.", "WRITE_FILE", "a-file-with-a-rather-long-name-for-a-table-cell.txt\n```\nA\n```"), 1000, 50),
		withUsage(done("Wrote it."), 1200, 20),
	)
	w.run("--no-audit", "-p", "リファクタリングしてください 🙂 then make every test pass and write the changelog entry").expect(t, 0)
	return w, w.onlySession().ID
}

// fits fails the test when a line of out is wider than width display
// columns (a CJK rune or an emoji takes two).
func fits(t *testing.T, what string, out string, width int) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if w := uniseg.StringWidth(line); w > width {
			t.Errorf("%s: a line of %d columns at %d:\n%q\n%s", what, w, width, line, out)
		}
	}
}

// dev stats, dev config show, dev sessions list and dev checkpoints fit
// $COLUMNS: long cells are cut with "…", never wrapped into the next row.
// Into a pipe without COLUMNS, cells stay whole.
func TestTablesFitColumns(t *testing.T) {
	w, id := tablesWorld(t)
	base := w.extra
	for _, width := range []int{80, 60} {
		w.extra = append(base, "COLUMNS="+strconv.Itoa(width))
		out := map[string]string{}
		for _, args := range [][]string{{"stats"}, {"config", "show"}, {"sessions", "list"}, {"checkpoints"}} {
			r := w.run(args...)
			r.expect(t, 0)
			what := strings.Join(args, " ")
			fits(t, what, r.stdout, width)
			out[what] = r.stdout
		}
		rows := strings.Split(out["sessions list"], "\n")
		if len(rows) < 2 || !strings.HasPrefix(rows[1], id[:7]+"…") || !strings.Contains(rows[1], "…") || !strings.Contains(rows[1], "リファク") {
			t.Errorf("%d columns: the session's row does not keep the id's prefix, cut with …:\n%s", width, out["sessions list"])
		}
		// At 60 columns the status gives way to the requests (after the
		// tokens); at 80 it is there.
		if width == 80 && !strings.Contains(rows[1], "complete") {
			t.Errorf("%d columns: the session's row has no status:\n%s", width, out["sessions list"])
		}
		if !strings.Contains(out["config show"], "auditCommands") || !strings.Contains(out["config show"], "…  default") {
			t.Errorf("%d columns: auditCommands is not cut with …:\n%s", width, out["config show"])
		}
		if !strings.Contains(out["checkpoints"], "step 1 WRITE_F") || !strings.Contains(out["checkpoints"], "…") {
			t.Errorf("%d columns: the checkpoint's input is not cut with …:\n%s", width, out["checkpoints"])
		}
		if !strings.Contains(out["stats"], "mock-model") || !strings.Contains(out["stats"], "FORMAT ERRORS") {
			t.Errorf("%d columns: stats:\n%s", width, out["stats"])
		}
	}

	w.extra = base
	list := w.run("sessions", "list")
	show := w.run("config", "show")
	if !strings.Contains(list.stdout, id+"  ") || !strings.Contains(show.stdout, "make test  ") {
		t.Errorf("into a pipe, cells are cut:\n%s\n%s", list.stdout, show.stdout)
	}
}
