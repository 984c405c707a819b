package commands

import (
	"errors"
	"strings"
	"testing"

	"github.com/devagent/dev/config"
)

func TestProfiles(t *testing.T) {
	h := newHome(t)
	r := h.run("profiles").ok(t)
	if r.stdout != "" || !strings.Contains(r.stderr, `no profiles in `+h.dir) {
		t.Errorf("no profiles: stdout %q, stderr %q", r.stdout, r.stderr)
	}

	h.config(map[string]any{"profile": "local", "profiles": map[string]any{
		"local": map[string]any{"model": "qwen", "apiUrl": "http://127.0.0.1:8080/v1"},
		"cloud": map[string]any{"model": "big", "apiKey": "sk-cloud-secret-123"},
	}})
	r = h.run("profiles").ok(t)
	want := "  cloud  model big, with an API key\n* local  model qwen, at http://127.0.0.1:8080/v1\n"
	if r.stdout != want {
		t.Errorf("dev profiles:\n%s\nwant:\n%s", r.stdout, want)
	}
	// --profile and DEV_PROFILE choose the active one, as for a run.
	if r = h.run("profiles", "--profile", "cloud").ok(t); !strings.HasPrefix(r.stdout, "* cloud") {
		t.Errorf("--profile cloud:\n%s", r.stdout)
	}
	h.env["DEV_PROFILE"] = "cloud"
	if r = h.run("profiles").ok(t); !strings.HasPrefix(r.stdout, "* cloud") {
		t.Errorf("DEV_PROFILE=cloud:\n%s", r.stdout)
	}
	var cfgErr *config.Error
	if err := h.run("profiles", "--profile", "gpu").err; !errors.As(err, &cfgErr) || !strings.Contains(err.Error(), "the profiles are: cloud, local") {
		t.Errorf("an unknown profile: %v", err)
	}
}
