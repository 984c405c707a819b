package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/config"
	"github.com/devagent/dev/sessions"
)

// sessionStore opens the sessions without loading config.json: listing and
// reading sessions must work even while the config file is broken.
func (d *devCmd) sessionStore() (*sessions.Store, error) {
	dir, err := config.Dir(config.Env(d.env))
	if err != nil {
		return nil, err
	}
	return sessions.NewStore(filepath.Join(dir, "sessions"), time.Now), nil
}

// sessionsList prints the sessions, newest first, those whose file cannot
// be read as "unreadable" with why.
func (d *devCmd) sessionsList(c *cli.Context) error {
	store, err := d.sessionStore()
	if err != nil {
		return err
	}
	entries, err := store.Entries()
	if err != nil {
		return err
	}
	if c.Bool("json") {
		type row struct {
			ID               string    `json:"id"`
			UpdatedAt        time.Time `json:"updatedAt"`
			Status           string    `json:"status"`
			WorkingDirectory string    `json:"workingDirectory"`
			OriginalPrompt   string    `json:"originalPrompt"`
			Error            string    `json:"error,omitempty"` // why an unreadable session cannot be read
		}
		rows := make([]row, 0, len(entries))
		for _, e := range entries {
			if x := e.Session; x != nil {
				rows = append(rows, row{x.ID, x.UpdatedAt, string(x.Status), x.WorkingDirectory, x.OriginalPrompt, ""})
			} else {
				rows = append(rows, row{ID: e.ID, UpdatedAt: e.ModTime.UTC(), Status: "unreadable", Error: e.Err.Error()})
			}
		}
		enc := json.NewEncoder(d.streams.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	if len(entries) == 0 {
		fmt.Fprintln(d.streams.Err, "no sessions yet")
		return nil
	}
	var list []*sessions.Session
	for _, e := range entries {
		if e.Session != nil {
			list = append(list, e.Session)
		} else {
			// The why goes in the prompt column; dev sessions show <id>
			// prints it whole.
			why := strings.TrimPrefix(e.Err.Error(), "session file "+e.Path+" is ")
			list = append(list, &sessions.Session{ID: e.ID, UpdatedAt: e.ModTime, Status: "unreadable", OriginalPrompt: why})
		}
	}
	return writeSessionTable(d.streams.Out, list, "")
}

// writeSessionTable writes sessions as an aligned table; current, when set,
// is marked.
func writeSessionTable(out io.Writer, list []*sessions.Session, current string) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tUPDATED\tSTATUS\tDIRECTORY\tPROMPT")
	for _, x := range list {
		id := x.ID
		if id == current {
			id += " *"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", id, x.UpdatedAt.Local().Format("2006-01-02 15:04"),
			x.Status, x.WorkingDirectory, excerpt(x.OriginalPrompt, 50))
	}
	return w.Flush()
}

// sessionsShow prints a readable transcript of one session.
func (d *devCmd) sessionsShow(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("usage: dev sessions show <uuid>")
	}
	store, err := d.sessionStore()
	if err != nil {
		return err
	}
	sess, err := store.Load(c.Args().First())
	if err != nil {
		return err
	}
	out := d.streams.Out
	if c.Bool("json") {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(sess)
	}
	fmt.Fprintf(out, "# Session %s\n\n", sess.ID)
	fmt.Fprintf(out, "- Directory: %s\n- Model: %s\n- Status: %s\n- Created: %s\n- Updated: %s\n- Tokens: %d\n\n",
		sess.WorkingDirectory, sess.Model, sess.Status,
		sess.CreatedAt.Format(time.RFC3339), sess.UpdatedAt.Format(time.RFC3339), sess.TotalTokens)
	if len(sess.TaskList) > 0 {
		fmt.Fprintln(out, "## Task list")
		marks := map[string]string{"complete": "[x]", "in-progress": "[~]", "pending": "[ ]"}
		for _, t := range sess.TaskList {
			fmt.Fprintf(out, "%s %s\n", marks[t.Status], t.Text)
		}
		fmt.Fprintln(out)
	}
	for i, m := range sess.History {
		fmt.Fprintf(out, "## %d. %s\n\n%s\n\n", i+1, m.Role, strings.TrimSpace(m.Content))
	}
	return nil
}

func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// configPath prints the config file's path.
func (d *devCmd) configPath(*cli.Context) error {
	dir, err := config.Dir(config.Env(d.env))
	if err != nil {
		return err
	}
	fmt.Fprintln(d.streams.Out, config.Path(dir))
	return nil
}

// configEdit opens config.json in the user's editor, creating it first.
func (d *devCmd) configEdit(*cli.Context) error {
	dir, err := config.Dir(config.Env(d.env))
	if err != nil {
		return err
	}
	// Load creates the file with defaults; a broken file is still opened so
	// the user can fix it.
	if _, _, err := config.Load(dir, config.Env(d.env)); err != nil {
		fmt.Fprintln(d.streams.Err, "dev: "+err.Error())
	}
	path := config.Path(dir)
	editor := d.env("VISUAL")
	if editor == "" {
		editor = d.env("EDITOR")
	}
	var cmd *exec.Cmd
	switch {
	case editor != "":
		cmd = exec.Command("sh", "-c", editor+` "$1"`, "editor", path)
		if runtime.GOOS == "windows" {
			cmd = exec.Command("cmd", "/C", editor, path)
		}
	case runtime.GOOS == "windows":
		cmd = exec.Command("notepad", path)
	case runtime.GOOS == "darwin":
		cmd = exec.Command("open", "-W", "-t", path)
	default:
		name := "vi"
		for _, candidate := range []string{"sensible-editor", "nano", "vi"} {
			if _, err := exec.LookPath(candidate); err == nil {
				name = candidate
				break
			}
		}
		cmd = exec.Command(name, path)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("running the editor (%s): %w; the file is %s", strings.Join(cmd.Args, " "), err, path)
	}
	return nil
}
