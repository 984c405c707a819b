package commands

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/textdist"
)

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

// noArgs is the usage error of a command that takes no arguments, nil
// when it got none. hint says what to write instead ("" for nothing).
func noArgs(c *cli.Context, command, hint string) error {
	if c.NArg() == 0 {
		return nil
	}
	msg := fmt.Sprintf("%s takes no arguments (got %q)", command, c.Args().First())
	if hint != "" {
		msg += "; " + hint
	}
	return &UsageError{msg}
}

// flagErrors makes a mistake in the flags of cmd or of any command below
// it a usage error (exit 2) in one line that names the command's valid
// flags. Without it urfave/cli prints "Incorrect Usage" and the whole
// help, and the error is not a usage error.
func flagErrors(path string, cmd *cli.Command) {
	cmd.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
		return &UsageError{flagMistake(path, cmd, err)}
	}
	hideSwitchDefaults(cmd.Flags)
	for _, sub := range cmd.Subcommands {
		flagErrors(path+" "+sub.Name, sub)
	}
}

// hideSwitchDefaults keeps "(default: false)" out of the help: a switch
// is off unless given, and the note would only push lines past 80 columns.
func hideSwitchDefaults(flags []cli.Flag) {
	for _, f := range flags {
		if b, ok := f.(*cli.BoolFlag); ok {
			b.DisableDefaultText = true
		}
	}
}

// The flag package's wording of the mistakes flagMistake rephrases.
var (
	undefinedFlag = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	flagNoValue   = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
	flagBadValue  = regexp.MustCompile(`^invalid (?:boolean )?value ("[^"]*") for (?:flag )?-+([^:]*): (.*)$`)
)

// flagMistake says what is wrong with the flags of the command at path
// ("dev", "dev sessions list"), and what is valid.
func flagMistake(path string, cmd *cli.Command, err error) string {
	prefix := ""
	if path != "dev" {
		prefix = path + ": "
	}
	msg := err.Error()
	if m := undefinedFlag.FindStringSubmatch(msg); m != nil {
		out := prefix + "unknown flag " + dashed(m[1])
		// Long names only: one letter is too little to guess from, and
		// "-h" would stand beside "--help" for "--hepl".
		var names []string
		for _, f := range cmd.Flags {
			for _, name := range f.Names() {
				if len(name) > 1 {
					names = append(names, name)
				}
			}
		}
		if close := textdist.Closest(names, m[1], 2); len(m[1]) > 1 && len(close) > 0 {
			for i, name := range close {
				close[i] = dashed(name)
			}
			out += "; did you mean " + strings.Join(close, " or ") + "?"
		}
		return out + " (" + validFlags(path, cmd) + ")"
	}
	if m := flagNoValue.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s%s needs a value (%[2]s%s)", prefix, dashed(m[1]), placeholder(findFlag(cmd, m[1])))
	}
	if m := flagBadValue.FindStringSubmatch(msg); m != nil {
		out := fmt.Sprintf("%sinvalid value %s for %s", prefix, m[1], dashed(m[2]))
		switch findFlag(cmd, m[2]).(type) {
		case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag:
			return out + ": a whole number is needed"
		case *cli.BoolFlag:
			return out + ": it takes no value"
		}
		if reason := m[3]; reason != "" {
			out += ": " + reason
		}
		return out
	}
	var usage *UsageError
	if errors.As(err, &usage) {
		return usage.Msg
	}
	return prefix + msg
}

// validFlags names the flags of cmd, with the placeholder of each value,
// and its subcommands. -h/--help goes without saying.
func validFlags(path string, cmd *cli.Command) string {
	var flags []string
	for _, f := range cmd.Flags {
		if f == cli.HelpFlag {
			continue
		}
		names := f.Names()
		for i, name := range names {
			names[i] = dashed(name)
		}
		// urfave/cli lists the name first and the aliases after; people
		// know -p/--prompt short first.
		if len(names) > 1 && len(names[1]) == 2 {
			names[0], names[1] = names[1], names[0]
		}
		flags = append(flags, strings.Join(names, "/")+placeholder(f))
	}
	var subs []string
	for _, sub := range cmd.Subcommands {
		if sub.Name != "help" { // urfave/cli adds it to every command
			subs = append(subs, sub.Name)
		}
	}
	out := path + " takes no flags"
	if len(flags) > 0 {
		out = "valid: " + strings.Join(flags, ", ")
	}
	if len(subs) > 0 {
		out += "; its commands: " + strings.Join(subs, ", ")
	}
	return out
}

// findFlag is the flag of cmd with that name, nil when none has it.
func findFlag(cmd *cli.Command, name string) cli.Flag {
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

// placeholder is " N" for a flag whose usage says `N` (as the help shows
// it), " value" for another flag that takes one, "" for a boolean.
func placeholder(f cli.Flag) string {
	doc, ok := f.(cli.DocGenerationFlag)
	if !ok || !doc.TakesValue() {
		return ""
	}
	if _, rest, ok := strings.Cut(doc.GetUsage(), "`"); ok {
		if name, _, ok := strings.Cut(rest, "`"); ok && name != "" {
			return " " + name
		}
	}
	return " value"
}

// dashed is a flag's name as typed: -p, --prompt.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
