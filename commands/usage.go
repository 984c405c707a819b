package commands

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/textdist"
)

// UsageError is a mistake on the command line (exit 2).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) error {
	return &UsageError{fmt.Sprintf(format, args...)}
}

// ExitError carries an exit code decided where the failure was understood,
// after the message was already shown.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit %d", e.Code) }

// unknownSubcommand is the action of a command that only has subcommands:
// anything else is a usage error naming the valid choices.
func unknownSubcommand(parent string, choices ...string) cli.ActionFunc {
	return func(c *cli.Context) error {
		valid := strings.Join(choices, ", ")
		if c.NArg() == 0 {
			return usagef("dev %s needs a command: %s", parent, valid)
		}
		typed := c.Args().First()
		msg := fmt.Sprintf("dev %s: unknown command %q", parent, typed)
		if close := textdist.Closest(choices, typed, 2); len(close) > 0 {
			msg += "; did you mean " + strings.Join(close, " or ") + "?"
		}
		return usagef("%s (valid: %s)", msg, valid)
	}
}
