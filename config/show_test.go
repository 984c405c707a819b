package config

import (
	"os"
	"strings"
	"testing"
)

func TestExplain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := func(k string) string {
		return map[string]string{"DEV_API_KEY": "sk-secret-key-1234", "DEV_MODEL": "from-env"}[k]
	}
	_, cfg, found, _, err := Explain(dir, env, Flags{})
	if err != nil || found || cfg.Model != "from-env" {
		t.Fatalf("without a file: found %v, model %q, %v", found, cfg.Model, err)
	}
	if _, err := os.Stat(Path(dir)); err == nil {
		t.Errorf("Explain created config.json")
	}
	if err := os.WriteFile(Path(dir), []byte(`{"maxLoops": 7, "audit": "off", "temperature": 0.2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	settings, _, found, _, err := Explain(dir, env, Flags{})
	if err != nil || !found {
		t.Fatal(err)
	}
	got := map[string]Setting{}
	for _, s := range settings {
		got[s.Key] = s
	}
	want := map[string]Setting{
		"apiUrl":      {"apiUrl", "http://localhost:8005/v1", SourceDefault},
		"apiKey":      {"apiKey", "****1234", "environment DEV_API_KEY"},
		"model":       {"model", "from-env", "environment DEV_MODEL"},
		"maxLoops":    {"maxLoops", "7", SourceFile},
		"audit":       {"audit", "off", SourceFile},
		"temperature": {"temperature", "0.2", SourceFile},
		"maxTokens":   {"maxTokens", "unset", SourceDefault},
		"auditModel":  {"auditModel", `""`, SourceDefault},
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %+v, want %+v", k, got[k], w)
		}
	}
	if len(settings) != len(keys()) || settings[0].Key != "apiUrl" {
		t.Errorf("%d settings, first %q: want every key in file order", len(settings), settings[0].Key)
	}
	for _, s := range settings {
		if strings.Contains(s.Value, "secret") {
			t.Errorf("the API key shows: %+v", s)
		}
	}
}

// constrain (SPEC §18): auto by default; a profile sets it; --constrain
// wins; dev config show says where it came from.
func TestConstrainSources(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(Path(dir), []byte(`{"profiles": {"tiny": {"constrain": "on"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		flags       Flags
		value, from string
	}{
		{Flags{}, "auto", SourceDefault},
		{Flags{Profile: "tiny"}, "on", "profile tiny"},
		{Flags{Profile: "tiny", Constrain: "off"}, "off", "flag --constrain"},
	} {
		settings, cfg, _, _, err := Explain(dir, noEnv, tt.flags)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range settings {
			if s.Key == "constrain" && (s.Value != tt.value || s.Source != tt.from || cfg.Constrain != tt.value) {
				t.Errorf("%+v: constrain %+v (config %q), want %q from %q", tt.flags, s, cfg.Constrain, tt.value, tt.from)
			}
		}
	}
	if _, _, _, _, err := Explain(dir, noEnv, Flags{Constrain: "sometimes"}); err == nil || !strings.Contains(err.Error(), "--constrain") {
		t.Errorf("--constrain sometimes: %v, want an error naming the flag", err)
	}
}

func TestShowMasksShortKeysWhole(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]string{"": `""`, "abc": "****", "sk-0123456789": "****6789"} {
		if got := Show("apiKey", key); got != want {
			t.Errorf("Show(apiKey, %q) = %q, want %q", key, got, want)
		}
	}
}
