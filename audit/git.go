package audit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/devagent/dev/shell"
)

// The audit's git runs no program that the repository's own configuration
// names (SPEC §4): a worker, or a cloned repository, can write .git/config
// and .gitattributes, and git status or git diff would run what they
// name. Settings given in GIT_CONFIG_COUNT/KEY/VALUE have the priority of
// `git -c` over every configuration file, and reach the git processes
// that git itself starts (in a submodule).

// gitOverrides replace the settings whose value git runs as a program, or
// that make it run one, whatever the repository says.
var gitOverrides = [][2]string{
	{"core.fsmonitor", "false"},       // a hook program (or the daemon) asked for changed files
	{"core.hooksPath", os.DevNull},    // hooks (post-index-change runs when git refreshes the index)
	{"core.pager", "cat"},             // a pager is used only on a terminal; the audit has none
	{"log.showSignature", "false"},    // verifying a signed commit runs gpg.program
	{"gpg.program", "gpg"},            // …and when asked for (%G?, --show-signature), the system's
	{"gpg.openpgp.program", "gpg"},    //
	{"gpg.x509.program", "gpgsm"},     //
	{"gpg.ssh.program", "ssh-keygen"}, //
	{"credential.helper", ""},         // an empty value empties the list of helpers
	{"protocol.allow", "never"},       // lazy fetches of a partial clone run transports (ext::program)
	// A submodule's configuration is read by the git run inside it;
	// "dirty" keeps git out of submodules' working trees (it still reports
	// a submodule at another commit).
	{"diff.ignoreSubmodules", "dirty"},
}

// gitEnv is the environment that goes with the overrides: no lazy fetch
// at all, and no transport even where the repository allows one by name
// (protocol.<name>.allow beats protocol.allow; GIT_ALLOW_PROTOCOL beats
// both).
var gitEnv = []string{"GIT_NO_LAZY_FETCH=1", "GIT_ALLOW_PROTOCOL=", "GIT_PAGER=cat"}

// repoFilter matches the settings of a filter driver: a repository that
// defines one (in its .git/config, or a file that includes) has it run on
// every file its .gitattributes names when git status or diff reads them.
var repoFilter = regexp.MustCompile(`^filter\..+\.(clean|smudge|process|required)$`)

// gitSafety returns the environment that keeps git from running the
// programs of the repository holding dir: the fixed overrides, and an
// empty command for each filter driver the repository's own (local or
// worktree) configuration defines. Filters of the user's global
// configuration (git-lfs) are the user's, and stay. Outside a repository
// the fixed overrides still apply.
//
// global are the options given to git before its subcommand (-C other,
// --git-dir …): the configuration read is that of the repository the
// command will work in.
func gitSafety(ctx context.Context, dir string, global []string) []string {
	settings := slices.Clone(gitOverrides)
	args := append(slices.Clone(global), "config", "-z", "--list", "--show-scope")
	git := exec.CommandContext(ctx, "git", args...)
	git.Dir = dir
	git.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	if out, err := git.Output(); err == nil {
		settings = append(settings, filterOverrides(string(out))...)
	}
	return configEnv(os.Getenv("GIT_CONFIG_COUNT"), settings)
}

// filterOverrides reads `git config -z --list --show-scope` (records of
// scope NUL key LF value NUL) and disables the filter drivers set in the
// repository's own scopes.
func filterOverrides(list string) [][2]string {
	var out [][2]string
	fields := strings.Split(list, "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		scope := fields[i]
		key, _, _ := strings.Cut(fields[i+1], "\n")
		if scope != "local" && scope != "worktree" {
			continue
		}
		m := repoFilter.FindStringSubmatch(key)
		if m == nil {
			continue
		}
		value := "" // an empty command is no filter
		if m[1] == "required" {
			value = "false" // a required filter that does not run would fail every command
		}
		out = append(out, [2]string{key, value})
	}
	return out
}

// configEnv writes settings as GIT_CONFIG_COUNT/KEY/VALUE, after the
// count already in the environment (the user's own, kept).
func configEnv(count string, settings [][2]string) []string {
	n, err := strconv.Atoi(count)
	if err != nil || n < 0 {
		n = 0
	}
	env := slices.Clone(gitEnv)
	for i, kv := range settings {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n+i, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n+i, kv[1]))
	}
	return append(env, fmt.Sprintf("GIT_CONFIG_COUNT=%d", n+len(settings)))
}

// gitNoDrivers are the options that keep git's diff machinery from
// running external diff programs and textconv filters, per subcommand
// that takes them; they go right after the subcommand, before the
// auditor's own arguments (which may not turn them back on: --ext-diff
// and --textconv are refused).
var gitNoDrivers = map[string][]string{
	"diff":        {"--no-ext-diff", "--no-textconv"},
	"log":         {"--no-ext-diff", "--no-textconv"},
	"show":        {"--no-ext-diff", "--no-textconv"},
	"whatchanged": {"--no-ext-diff", "--no-textconv"},
	"diff-tree":   {"--no-ext-diff", "--no-textconv"},
	"diff-index":  {"--no-ext-diff", "--no-textconv"},
	"diff-files":  {"--no-ext-diff", "--no-textconv"},
	"blame":       {"--no-textconv"},
	"annotate":    {"--no-textconv"},
	"grep":        {"--no-textconv"},
}

// gitSubcommand is the index of the subcommand in a git argument vector
// (len(argv) when there is none).
func gitSubcommand(argv []string) int {
	i := 1
	for i < len(argv) && strings.HasPrefix(argv[i], "-") {
		if valued, _ := shell.GlobalOption("git", argv[i]); valued {
			i++
		}
		i++
	}
	return min(i, len(argv))
}

// gitNoDriversArgs inserts gitNoDrivers after the subcommand of a git
// argument vector.
func gitNoDriversArgs(argv []string) []string {
	i := gitSubcommand(argv)
	if i >= len(argv) {
		return argv
	}
	extra, ok := gitNoDrivers[argv[i]]
	if !ok {
		return argv
	}
	out := slices.Clone(argv[:i+1])
	out = append(out, extra...)
	return append(out, argv[i+1:]...)
}
