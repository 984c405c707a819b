package audit

import (
	"slices"
	"strings"
	"testing"
)

func TestFilterOverrides(t *testing.T) {
	t.Parallel()
	list := strings.Join([]string{
		"global", "filter.lfs.process\ngit-lfs filter-process",
		"global", "filter.lfs.required\ntrue",
		"local", "filter.evil.clean\n./evil.sh",
		"local", "filter.evil.required\ntrue",
		"worktree", "filter.wt.process\n./evil.sh",
		"local", "filter.a.b.smudge\n./evil.sh", // a driver name with a dot
		"local", "diff.x.textconv\n./evil.sh", // --no-textconv's
		"local", "core.editor\nvi",
		"command", "filter.cmd.clean\nx",
	}, "\x00") + "\x00"
	got := filterOverrides(list)
	want := [][2]string{
		{"filter.evil.clean", ""}, {"filter.evil.required", "false"}, {"filter.wt.process", ""}, {"filter.a.b.smudge", ""},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if filterOverrides("") != nil {
		t.Error("no configuration: no overrides")
	}
}

func TestConfigEnv(t *testing.T) {
	t.Parallel()
	settings := [][2]string{{"core.fsmonitor", "false"}, {"credential.helper", ""}}
	env := configEnv("2", settings)
	for _, want := range []string{"GIT_CONFIG_KEY_2=core.fsmonitor", "GIT_CONFIG_VALUE_2=false", "GIT_CONFIG_KEY_3=credential.helper", "GIT_CONFIG_VALUE_3=", "GIT_CONFIG_COUNT=4", "GIT_NO_LAZY_FETCH=1"} {
		if !slices.Contains(env, want) {
			t.Errorf("%q missing from %q", want, env)
		}
	}
	if env := configEnv("junk", settings); !slices.Contains(env, "GIT_CONFIG_KEY_0=core.fsmonitor") || !slices.Contains(env, "GIT_CONFIG_COUNT=2") {
		t.Errorf("an unreadable count starts at 0: %q", env)
	}
}

func TestGitNoDriversArgs(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"git diff":                    "git diff --no-ext-diff --no-textconv",
		"git diff --stat HEAD~1":      "git diff --no-ext-diff --no-textconv --stat HEAD~1",
		"git -C sub log -p":           "git -C sub log --no-ext-diff --no-textconv -p",
		"git --git-dir=x show HEAD":   "git --git-dir=x show --no-ext-diff --no-textconv HEAD",
		"git --no-pager blame a.go":   "git --no-pager blame --no-textconv a.go",
		"git status":                  "git status",
		"git -C x":                    "git -C x",
		"git":                         "git",
		"git --work-tree diff status": "git --work-tree diff status",
	} {
		if got := strings.Join(gitNoDriversArgs(strings.Fields(in)), " "); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}
