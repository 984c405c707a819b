package commands

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/devagent/dev/config"
)

func TestConfigPath(t *testing.T) {
	h := newHome(t)
	r := h.run("config", "path").ok(t)
	if r.stdout != filepath.Join(h.dir, "config.json")+"\n" {
		t.Errorf("config path: %q", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "config.json")); !os.IsNotExist(err) {
		t.Errorf("config path created the file: %v", err)
	}
}

// dev config show prints each setting, its value and where it comes from;
// the flags given before the command win, as for a run; it creates nothing.
func TestConfigShow(t *testing.T) {
	h := newHome(t)
	r := h.run("config", "show").ok(t)
	if !strings.HasPrefix(r.stdout, "config file: "+filepath.Join(h.dir, "config.json")+" (not created yet: defaults)\n") {
		t.Errorf("without a file:\n%s", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "config.json")); !os.IsNotExist(err) {
		t.Errorf("config show created the file: %v", err)
	}

	h.config(map[string]any{"model": "file-model", "apiKey": "sk-file-secret-1234", "maxLoops": 7,
		"profiles": map[string]any{"fast": map[string]any{"model": "fast-model"}}})
	h.env["DEV_API_URL"] = "http://env.example/v1"
	r = h.run("config", "show").ok(t)
	settings := map[string][]string{}
	for _, line := range strings.Split(r.stdout, "\n")[1:] {
		if f := strings.Fields(line); len(f) > 1 {
			settings[f[0]] = f[1:]
		}
	}
	for key, want := range map[string]string{"model": "file-model file", "maxLoops": "7 file", "apiUrl": "http://env.example/v1 environment DEV_API_URL", "commandTimeout": "30 default"} {
		if got := strings.Join(settings[key], " "); got != want {
			t.Errorf("%s: %q, want %q", key, got, want)
		}
	}
	if strings.Contains(r.stdout, "secret") {
		t.Errorf("the apiKey shows:\n%s", r.stdout)
	}

	r = h.run("--model", "flag-model", "--no-audit", "config", "show", "--profile", "fast").ok(t)
	for _, want := range []string{"flag --model", "flag --no-audit", "fast"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("config show with flags lacks %q:\n%s", want, r.stdout)
		}
	}

	// --profile before the command counts as it does for a run.
	r = h.run("--profile", "fast", "config", "show").ok(t)
	for _, line := range strings.Split(r.stdout, "\n")[1:] {
		if f := strings.Fields(line); len(f) > 1 {
			settings[f[0]] = f[1:]
		}
	}
	for key, want := range map[string]string{"model": "fast-model profile fast", "profile": "fast flag --profile"} {
		if got := strings.Join(settings[key], " "); got != want {
			t.Errorf("dev --profile fast config show: %s: %q, want %q", key, got, want)
		}
	}

	h.config(map[string]any{"maxLoops": "many"})
	var cfgErr *config.Error
	if err := h.run("config", "show").err; !errors.As(err, &cfgErr) {
		t.Errorf("an invalid file: %v, want a config error (exit 2)", err)
	}
}

// dev config creates config.json with the defaults and opens it in
// $VISUAL; a broken file is still opened, so it can be fixed.
func TestConfigEdit(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the editor runs through sh")
	}
	h := newHome(t)
	opened := filepath.Join(t.TempDir(), "opened")
	h.env["VISUAL"] = "printf '%s' >" + opened // the editor gets the path as "$1"
	h.run("config").ok(t)
	path := filepath.Join(h.dir, "config.json")
	if got, _ := os.ReadFile(opened); string(got) != path {
		t.Errorf("the editor opened %q, want %q", got, path)
	}
	if data, err := os.ReadFile(path); err != nil || !strings.Contains(string(data), `"apiUrl"`) {
		t.Errorf("config.json with defaults: %v\n%s", err, data)
	}

	h.config(map[string]any{"maxLoops": "many"})
	r := h.run("config").ok(t)
	if !strings.Contains(r.stderr, "maxLoops") {
		t.Errorf("the broken file's error:\n%s", r.stderr)
	}

	h.env["VISUAL"] = "false"
	if err := h.run("config").err; err == nil || !strings.Contains(err.Error(), "running the editor") || !strings.Contains(err.Error(), path) {
		t.Errorf("a failing editor: %v", err)
	}
}
