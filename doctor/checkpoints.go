package doctor

import (
	"fmt"
	"time"

	"github.com/devagent/dev/textfmt"
)

// Checkpoints is what the checkpoints check reports (SPEC §12): whether
// they are on, and what the working directory costs them, from a walk of
// it as the first checkpoint would make (checkpoints.SurveyDir).
type Checkpoints struct {
	On       bool
	Dir      string
	Files    int
	Dirs     int
	Bytes    int64
	Oversize int           // files over checkpointMaxFileBytes, left out
	Took     time.Duration // the walk
	Partial  bool          // the walk was cut short: the figures are a floor
	// MaxBytes is what a snapshot may hold in all; past it checkpoints
	// are off for the run.
	MaxBytes int64
	// WatchLimit is how many directories the system lets dev watch, 0
	// where it cannot (WatchWhy says why).
	WatchLimit int
	WatchWhy   string
	Err        string // the walk failed
}

// firstCheckpointBudget is SPEC §12's bound on the first checkpoint of a
// large tree: past it, dev doctor warns.
const firstCheckpointBudget = 2 * time.Second

// checkpoints reports what checkpoints cost in the working directory. It
// needs no server.
func (d *doctor) checkpoints() {
	cp := d.cfg.Checkpoints
	c := Check{Name: CheckCheckpoints, Status: OK}
	switch {
	case !cp.On:
		c.Detail = "off (checkpoints: false): dev diff and dev rewind cover nothing"
	case cp.Err != "":
		c.Status, c.Detail = Warn, fmt.Sprintf("%s cannot be walked (%s): checkpoints will be off", cp.Dir, cp.Err)
	default:
		more := ""
		if cp.Partial {
			more = "more than "
		}
		size := fmt.Sprintf("%s%s files (%s) in %s directories", more, textfmt.Thousands(int64(cp.Files)), megabytes(cp.Bytes), textfmt.Thousands(int64(cp.Dirs)))
		if cp.Oversize > 0 {
			size += fmt.Sprintf(", %s over checkpointMaxFileBytes left out", textfmt.Thousands(int64(cp.Oversize)))
		}
		command := fmt.Sprintf("a command's checkpoint reads every directory again (%s): %s", cp.WatchWhy, duration(cp.Took))
		if cp.WatchLimit >= cp.Dirs && cp.WatchLimit > 0 {
			command = fmt.Sprintf("a command's checkpoint reads only the directories that changed (%s of %s inotify watches)", textfmt.Thousands(int64(cp.Dirs)), textfmt.Thousands(int64(cp.WatchLimit)))
		} else if cp.WatchLimit > 0 {
			command = fmt.Sprintf("a command's checkpoint reads every directory again (%s directories, more than the %s inotify watches allowed): %s", textfmt.Thousands(int64(cp.Dirs)), textfmt.Thousands(int64(cp.WatchLimit)), duration(cp.Took))
		}
		c.Detail = fmt.Sprintf("%s holds %s: the first checkpoint of a session takes about %s (the files' content is read in the background after), %s",
			cp.Dir, size, duration(cp.Took), command)
		switch {
		case cp.MaxBytes > 0 && cp.Bytes > cp.MaxBytes:
			c.Status = Warn
			c.Detail = fmt.Sprintf("%s holds %s, more than the %s a checkpoint copies: checkpoints will be off there", cp.Dir, size, megabytes(cp.MaxBytes))
			c.Fix = "run dev in the project's directory, or set checkpoints to false in " + d.cfg.File
		case cp.Partial || cp.Took > firstCheckpointBudget:
			c.Status = Warn
			c.Fix = "run dev in the project's directory rather than above it, or set checkpoints to false in " + d.cfg.File
		}
	}
	d.set(c)
}

func megabytes(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KB", (n+1023)>>10)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}
