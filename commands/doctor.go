package commands

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/app"
	"github.com/devagent/dev/checkpoints"
	"github.com/devagent/dev/config"
	"github.com/devagent/dev/doctor"
	"github.com/devagent/dev/redact"
	"github.com/devagent/dev/sandbox"
	"github.com/devagent/dev/ui"
)

// doctorCommand is `dev doctor`: check the configured server and say what
// to change.
func (d *devCmd) doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check the model server and say what to change",
		Description: "Reads the configuration (without creating it), then probes apiUrl:\n" +
			"reachable, server kind, model, context window, streaming, reasoning,\n" +
			"chat-template roles, each form of shape (the reply grammar, the JSON\n" +
			"form: applied, ignored or rejected), and one reply in dev's template\n" +
			"(sent as a run sends it). Exits 0 when no check failed, 1\n" +
			"otherwise. Writes nothing.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "check `MODEL` instead of the configured one"},
			&cli.StringFlag{Name: "profile", Usage: "check the model profile `NAME`"},
			&cli.StringFlag{Name: "constrain", Usage: "check with constrain `MODE` (auto, on, json or off)"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
		},
		Action: d.doctor,
	}
}

func (d *devCmd) doctor(c *cli.Context) error {
	if err := noArgs(c, "dev doctor", ""); err != nil {
		return err
	}
	dir, err := config.Dir(config.Env(d.env))
	if err != nil {
		return fmt.Errorf("finding the config directory: %w", err)
	}
	cfg, found, warnings, err := config.Read(dir, config.Env(d.env), config.Flags{Profile: c.String("profile"), Model: c.String("model"),
		Constrain: c.String("constrain")})
	dc := doctor.Config{
		APIURL: cfg.APIURL, APIKey: cfg.APIKey,
		File: config.Path(dir), FileFound: found, Warnings: warnings, Err: err,
		Safety: safetyFacts(cfg),
	}
	if err == nil {
		// What a run sends comes from the code a run uses (shape.Plan).
		dc.Sends, dc.Tools = app.Sends(cfg)
	}

	// Every probe ends with ctx, so one Ctrl+C is enough.
	ctx, done := d.intr.Work(context.Background())
	defer done()
	if err == nil {
		dc.Checkpoints = d.checkpointFacts(ctx, cfg, dir)
	}
	report := doctor.Run(ctx, dc)

	if c.Bool("json") {
		err = ui.DoctorJSON(d.streams.Out, report)
	} else {
		err = ui.Doctor(d.streams, report)
	}
	switch {
	case err != nil:
		return fmt.Errorf("writing the report: %w", err)
	case ctx.Err() != nil:
		return &ShownError{ctx.Err()}
	case report.Failed():
		return &ShownError{errChecksFailed}
	}
	return nil
}

// errChecksFailed is dev doctor's failure: the report says which checks.
var errChecksFailed = errors.New("a check failed")

// safetyFacts is what dev doctor reports of the safety layers: the
// settings, and what the OS offers.
func safetyFacts(cfg config.Config) doctor.Safety {
	support := sandbox.Probe()
	s := doctor.Safety{Approval: cfg.Approval, Sandbox: cfg.Sandbox, SandboxNetwork: cfg.SandboxNetwork.String(),
		SandboxFiles: support.Files, SandboxWhy: support.String(), Redact: cfg.RedactSecrets}
	if cfg.Sandbox == config.SandboxWorkspace {
		s.SandboxMissing = support.Missing(sandbox.Network{All: cfg.SandboxNetwork.All})
	}
	if cfg.RedactSecrets {
		s.Secrets = redact.New(os.Environ(), cfg.APIKey).Names()
	}
	return s
}

// surveyTimeout bounds dev doctor's walk of the working directory: past
// it, the figures are a floor.
const surveyTimeout = 10 * time.Second

// checkpointFacts is what dev doctor reports of checkpoints: whether they
// are on, and what the current directory costs them, from a walk of it as
// the first checkpoint would make.
func (d *devCmd) checkpointFacts(ctx context.Context, cfg config.Config, configDir string) doctor.Checkpoints {
	f := doctor.Checkpoints{On: cfg.Checkpoints, MaxBytes: checkpoints.DefaultMaxTotalBytes}
	if !f.On {
		return f
	}
	dir, err := d.workingDir("")
	if err != nil {
		f.Err = err.Error()
		return f
	}
	f.Dir = dir
	ctx, cancel := context.WithTimeout(ctx, surveyTimeout)
	defer cancel()
	sv, err := checkpoints.SurveyDir(ctx, dir, checkpoints.Options{MaxFileBytes: cfg.CheckpointMaxFileBytes, Exclude: []string{configDir}})
	if err != nil {
		f.Err = err.Error()
		return f
	}
	f.Files, f.Dirs, f.Bytes, f.Oversize, f.Took, f.Partial = sv.Files, sv.Dirs, sv.Bytes, sv.Oversize, sv.Took, sv.Partial
	f.WatchLimit, f.WatchWhy = sv.WatchLimit, sv.WatchWhy
	return f
}
