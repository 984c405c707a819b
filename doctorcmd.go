package main

import (
	"context"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/app"
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
		Usage: "check the model server against what dev needs, and say what to change",
		Description: "Reads the configuration (without creating it), then probes apiUrl: reachable, server kind,\n" +
			"model, context window, streaming, reasoning, chat-template roles, the reply grammar, and one reply in dev's\n" +
			"template (constrained as a run would be).\n" +
			"Exits 0 when no check failed, 1 otherwise. Writes nothing.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "check `MODEL` instead of the configured one"},
			&cli.StringFlag{Name: "profile", Usage: "check the model profile `NAME`"},
			&cli.StringFlag{Name: "constrain", Usage: "check with constrain `MODE` (auto, on, off) instead of the configured one"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
		},
		Action: d.doctor,
	}
}

func (d *devCmd) doctor(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("dev doctor takes no arguments (got %q)", c.Args().First())
	}
	dir, err := config.Dir(config.Env(d.env))
	if err != nil {
		return fmt.Errorf("finding the config directory: %w", err)
	}
	cfg, found, warnings, err := config.Read(dir, config.Env(d.env), config.Flags{Profile: c.String("profile"), Model: c.String("model"),
		Constrain: c.String("constrain")})
	dc := doctor.Config{
		APIURL: cfg.APIURL, APIKey: cfg.APIKey, Model: cfg.Model,
		MaxContextTokens: cfg.MaxContextTokens, Temperature: cfg.Temperature, MaxTokens: cfg.MaxTokens,
		Thinking: app.Thinking(cfg.Thinking), Constrain: cfg.Constrain,
		File: config.Path(dir), FileFound: found, Warnings: warnings, Err: err,
		Safety: safetyFacts(cfg),
	}

	if err == nil {
		dc.Grammar = app.WorkerGrammar(cfg)
	}

	// Every probe ends with ctx, so one Ctrl+C is enough.
	ctx, done := d.intr.Work(context.Background())
	defer done()
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
		return &exitError{app.ExitInterrupted}
	case report.Failed():
		return &exitError{app.ExitFailure}
	}
	return nil
}

// safetyFacts is what dev doctor reports of the safety layers: the
// settings, and what the OS offers.
func safetyFacts(cfg config.Config) doctor.Safety {
	ok, why := sandbox.Available()
	s := doctor.Safety{Approval: cfg.Approval, Sandbox: cfg.Sandbox, SandboxAvailable: ok, SandboxWhy: why, Redact: cfg.RedactSecrets}
	if cfg.RedactSecrets {
		s.Secrets = redact.New(os.Environ(), cfg.APIKey).Names()
	}
	return s
}
