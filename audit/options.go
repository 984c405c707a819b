package audit

import (
	"fmt"
	"slices"
	"strings"
)

// optionRules say which options of a command write files or run other
// programs. Words are checked after quote removal, wherever they stand
// (before or after operands, after `--`): refusing a harmless word costs
// the auditor a rephrasing, letting a harmful one through costs the
// workspace.
type optionRules struct {
	// names are refused option names without dashes, in every spelling:
	// -name, --name, -name=value, --name=value (and the value as the next
	// word). For GNU-style long options (--name) a longer spelling
	// (--output-dir) and an abbreviation (--outp, which getopt, argparse
	// and git accept) are refused too.
	names []string
	// short: single-letter options refused wherever they appear in a
	// cluster (-vo, -ofile), unless after a letter that takes the rest
	// of the cluster as its value (valued).
	short  string
	valued string
	// goFlags: the command parses options with Go's flag package (one or
	// two dashes, no clusters, no abbreviations; -test.x is -x for go
	// test).
	goFlags bool
	// safe are long option names (without dashes) allowed although they
	// abbreviate a refused one (pytest's --co is --collect-only, not
	// --cov; cargo's --target is not --target-dir).
	safe []string
	// allowed lists, per option name, the only values accepted (go
	// -mod=readonly, pytest -p no:plugin); other values are refused.
	allowed map[string][]string
	// check refuses what a word-by-word look cannot see; args are the
	// words after the allowed prefix.
	check func(args []string) string
}

// generic applies to every command, listed or not (SPEC §4).
var generic = optionRules{
	names: []string{"output", "o", "exec", "toolexec", "vettool", "ext-diff"},
	short: "o",
}

// goBuildNames are the go build flags (shared by go test and go vet) that
// write files or run programs. -ldflags and -gccgoflags can name an
// external linker or compiler (-extld=./evil.sh); -mod=mod lets go rewrite
// go.mod and go.sum (allowed: readonly, vendor).
var goBuildNames = []string{
	"o", "exec", "toolexec", "vettool", "modfile", "pkgdir", "ldflags", "gccgoflags", "overlay",
	"debug-trace", "debug-actiongraph", "debug-runtime-trace", "mod",
}

// goTestNames write profiles, traces, test binaries, fuzz corpora or
// golden files (the common -update flag of tests).
var goTestNames = []string{
	"c", "coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace",
	"outputdir", "testlogfile", "gocoverdir", "fuzz", "fuzzcachedir",
	"update", "golden", "rewrite", "record", "regen", "accept",
}

var pytestRules = optionRules{
	names: []string{
		"junitxml", "junit-xml", "basetemp", "resultlog", "result-log", "cov", "cov-report", "cov-append",
		"pastebin", "cache-clear", "debug", "log-file", "report-log", "html", "json-report", "json-report-file",
		"alluredir", "pdbcls", "override-ini", "snapshot-update", "force-regen", "regen-all", "inline-snapshot",
	},
	short:   "op",
	valued:  "kmcWrn",
	safe:    []string{"co"},
	allowed: map[string][]string{"p": {"no:"}},
}

// commandRules are the per-command rules, by commandKey.
var commandRules = map[string]optionRules{
	"go test":  {goFlags: true, names: append(append([]string{}, goBuildNames...), goTestNames...), allowed: map[string][]string{"mod": {"readonly", "vendor"}}},
	"go build": {goFlags: true, names: goBuildNames, allowed: map[string][]string{"mod": {"readonly", "vendor"}}},
	"go vet":   {goFlags: true, names: goBuildNames, allowed: map[string][]string{"mod": {"readonly", "vendor"}}},
	// git: -c sets configuration (an alias, a pager, a diff driver: any
	// program); --exec-path picks where subcommands come from; -O of git
	// grep opens a pager program.
	// --textconv and --ext-diff would run the drivers the repository's
	// configuration names (--text is another option).
	"git": {names: []string{"c", "config-env", "exec-path", "open-files-in-pager", "O", "textconv"}, short: "cO", valued: "UMCBlSGn", safe: []string{"text"}},
	// tree -R writes 00Tree.html files into every directory.
	"tree":   {short: "R"},
	"pytest": pytestRules,
	// npm passes arguments after the script name to the project's test
	// runner, whose options dev cannot know; its own configuration flags
	// can name the shell that runs scripts.
	"npm": {
		names: []string{"script-shell", "shell", "prefix", "userconfig", "globalconfig", "cache", "node-options",
			"init-module", "editor", "browser", "viewer", "git", "call", "C"},
		short: "Cc",
		check: func(args []string) string {
			for _, a := range args {
				if !strings.HasPrefix(a, "-") || a == "--" {
					return fmt.Sprintf("the argument %q would be passed on to the project's script, whose options dev cannot check; run the script as it is", a)
				}
			}
			return ""
		},
	},
	// cargo --config can set a runner or rustc wrapper (any program);
	// --logfile is libtest's.
	"cargo": {
		names: []string{"target-dir", "config", "artifact-dir", "out-dir", "logfile", "persist-doctests", "lockfile-path", "Z", "C"},
		short: "ZC",
		safe:  []string{"target"},
	},
	// make: another makefile, directory or --eval runs other recipes;
	// -t touches targets; NAME=value overrides can replace any command
	// (SHELL=…, CC=…).
	"make": {
		names:  []string{"file", "makefile", "directory", "eval", "touch", "what-if", "new-file", "assume-new", "old-file", "f", "C", "E", "t", "W"},
		short:  "fCEtW",
		valued: "jlIO",
		check: func(args []string) string {
			for _, a := range args {
				if !strings.HasPrefix(a, "-") && strings.Contains(a, "=") {
					return fmt.Sprintf("the variable assignment %q could replace the commands make runs", a)
				}
			}
			return ""
		},
	},
	// find and rg are not allowed by default; users who allow them get
	// their program-running and file-writing options refused.
	"find": {goFlags: true, names: []string{"exec", "execdir", "ok", "okdir", "delete", "fprint", "fprint0", "fprintf", "fls"}},
	"rg":   {names: []string{"pre"}},
}

// refusedOption says why an allowed command's arguments may not run, or
// "". prefixLen words (the allowed prefix) are not options.
func refusedOption(argv []string, prefixLen int) string {
	key, at := commandKey(argv)
	args := argv[max(at, min(prefixLen, len(argv))):]
	rules := commandRules[key]
	// The generic names are read the way the command reads its options.
	g := generic
	g.valued = rules.valued
	if rules.goFlags {
		g.goFlags, g.short = true, ""
	}
	for _, r := range []optionRules{rules, g} {
		if why := r.refusal(args); why != "" {
			return why
		}
	}
	if rules.check != nil {
		if why := rules.check(argv[min(prefixLen, len(argv)):]); why != "" {
			return why
		}
	}
	return ""
}

func (r optionRules) refusal(args []string) string {
	for i := 0; i < len(args); i++ {
		w := args[i]
		if len(w) < 2 || w[0] != '-' || w == "--" {
			continue
		}
		next := ""
		if i+1 < len(args) {
			next = args[i+1]
		}
		if name, ok := r.refused(w, next); ok {
			return fmt.Sprintf("the option %s could write files or run other programs, and the audit is read-only. Inspect the result another way (read the files, run the command without it).", name)
		}
	}
	return ""
}

// refused reports whether the option word w (followed by next) is refused,
// and names it.
func (r optionRules) refused(w, next string) (string, bool) {
	dashes := 1
	if strings.HasPrefix(w, "--") {
		dashes = 2
	}
	name, value, hasValue := strings.Cut(w[dashes:], "=")
	if dashes == 2 && slices.Contains(r.safe, name) {
		return "", false
	}
	if r.goFlags {
		name = strings.TrimPrefix(name, "test.")
	}
	if !hasValue {
		value = next
	}
	for _, n := range r.names {
		hit := name == n
		if !hit && dashes == 2 && !r.goFlags && len(n) > 1 {
			// A longer spelling, or an abbreviation getopt would accept.
			hit = strings.HasPrefix(name, n) || (name != "" && strings.HasPrefix(n, name))
		}
		if hit && !r.valueAllowed(n, value) {
			return "-" + strings.Repeat("-", dashes-1) + name, true
		}
	}
	if dashes == 1 && !r.goFlags {
		// A cluster of short options: -xvo, -ofile.
		for j := 1; j < len(w); j++ {
			c := w[j]
			if strings.IndexByte(r.short, c) >= 0 {
				rest := w[j+1:]
				if rest == "" {
					rest = next
				}
				if !r.valueAllowed(string(c), rest) {
					return "-" + string(c), true
				}
				return "", false
			}
			if strings.IndexByte(r.valued, c) >= 0 {
				break
			}
		}
	}
	return "", false
}

func (r optionRules) valueAllowed(name, value string) bool {
	allowed, ok := r.allowed[name]
	if !ok {
		return false
	}
	for _, a := range allowed {
		if strings.HasPrefix(value, a) {
			return true
		}
	}
	return false
}
