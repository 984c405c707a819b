package commands

import "fmt"

// The kinds of error the commands return. Package main maps them, with
// the errors of the packages below (config, sessions, app), to exit codes
// in its one switch; nothing here chooses a number.

// UsageError is a mistake on the command line (exit 2): a bad flag, a
// missing or extra argument, an unknown subcommand. Its message names what
// would have been valid.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) error {
	return &UsageError{fmt.Sprintf(format, args...)}
}

// ExitError is how a run ended when it did not end well: app decides the
// code from the run's outcome (the --json result carries the same code),
// and the run's events already said why.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit %d", e.Code) }

// ShownError is a failure the command already showed (a report that says
// what failed, an interrupted conversation): nothing more is printed, and
// the exit code follows the kind of Err.
type ShownError struct{ Err error }

func (e *ShownError) Error() string { return e.Err.Error() }
func (e *ShownError) Unwrap() error { return e.Err }
