package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

const profilesFile = `{
  "apiUrl": "http://file:1/v1",
  "model": "file-model",
  "temperature": 0.7,
  "extraBody": {"top_k": 40, "min_p": 0.05},
  "profile": "local",
  "profiles": {
    "local": {"model": "qwen3-coder", "maxContextTokens": 32768, "thinking": "off", "extraBody": {"top_k": 20}},
    "cloud": {"apiUrl": "https://openrouter.ai/api/v1", "apiKey": "sk-or", "model": "anthropic/claude", "temperature": 0.2}
  }
}`

func TestProfileSelectionAndPrecedence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		env         map[string]string
		flags       Flags
		profile     string
		url, model  string
		temperature float64
		window      int
		thinking    string
		extra       map[string]any
	}{
		{name: "the file's default profile", profile: "local", url: "http://file:1/v1", model: "qwen3-coder", temperature: 0.7, window: 32768, thinking: "off",
			extra: map[string]any{"top_k": 20.0, "min_p": 0.05}},
		{name: "DEV_PROFILE wins over the file", env: map[string]string{"DEV_PROFILE": "cloud"}, profile: "cloud",
			url: "https://openrouter.ai/api/v1", model: "anthropic/claude", temperature: 0.2, window: 131072, thinking: "auto",
			extra: map[string]any{"top_k": 40.0, "min_p": 0.05}},
		{name: "--profile wins over DEV_PROFILE", env: map[string]string{"DEV_PROFILE": "cloud"}, flags: Flags{Profile: "local"}, profile: "local",
			url: "http://file:1/v1", model: "qwen3-coder", temperature: 0.7, window: 32768, thinking: "off", extra: map[string]any{"top_k": 20.0, "min_p": 0.05}},
		{name: "DEV_MODEL wins over the profile", env: map[string]string{"DEV_MODEL": "env-model"}, profile: "local",
			url: "http://file:1/v1", model: "env-model", temperature: 0.7, window: 32768, thinking: "off", extra: map[string]any{"top_k": 20.0, "min_p": 0.05}},
		{name: "--model wins over DEV_MODEL", env: map[string]string{"DEV_MODEL": "env-model"}, flags: Flags{Model: "flag-model"}, profile: "local",
			url: "http://file:1/v1", model: "flag-model", temperature: 0.7, window: 32768, thinking: "off", extra: map[string]any{"top_k": 20.0, "min_p": 0.05}},
		{name: "DEV_API_URL wins over the profile", env: map[string]string{"DEV_PROFILE": "cloud", "DEV_API_URL": "http://env:2/v1"}, profile: "cloud",
			url: "http://env:2/v1", model: "anthropic/claude", temperature: 0.2, window: 131072, thinking: "auto", extra: map[string]any{"top_k": 40.0, "min_p": 0.05}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, warnings, err := Load(writeConfig(t, profilesFile), envMap(tt.env), tt.flags)
			if err != nil || len(warnings) != 0 {
				t.Fatalf("err %v, warnings %q", err, warnings)
			}
			if cfg.Profile != tt.profile || cfg.APIURL != tt.url || cfg.Model != tt.model || *cfg.Temperature != tt.temperature ||
				cfg.MaxContextTokens != tt.window || cfg.Thinking != tt.thinking || !reflect.DeepEqual(cfg.ExtraBody, tt.extra) {
				t.Errorf("got profile %q url %q model %q temperature %v window %d thinking %q extra %v",
					cfg.Profile, cfg.APIURL, cfg.Model, *cfg.Temperature, cfg.MaxContextTokens, cfg.Thinking, cfg.ExtraBody)
			}
		})
	}
}

func TestNoProfileLeavesTheTopLevel(t *testing.T) {
	t.Parallel()
	cfg, _, err := Load(writeConfig(t, `{"model": "m", "profiles": {"x": {"model": "other"}}}`), noEnv, Flags{})
	if err != nil || cfg.Model != "m" || cfg.Profile != "" {
		t.Errorf("model %q profile %q err %v", cfg.Model, cfg.Profile, err)
	}
}

func TestUnknownProfile(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, file string
		env        map[string]string
		flags      Flags
		path, want string
	}{
		{"flag", profilesFile, nil, Flags{Profile: "gpu"}, "--profile", `no profile "gpu"; the profiles are: cloud, local`},
		{"environment", profilesFile, map[string]string{"DEV_PROFILE": "gpu"}, Flags{}, "DEV_PROFILE", `no profile "gpu"; the profiles are: cloud, local`},
		{"file", `{"profile": "gpu"}`, nil, Flags{}, "", `no profile "gpu"; there are none in `},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeConfig(t, tt.file)
			_, _, err := Load(dir, envMap(tt.env), tt.flags)
			var ce *Error
			if !errors.As(err, &ce) || !strings.Contains(ce.Reason, tt.want) {
				t.Fatalf("err %v, want one saying %q", err, tt.want)
			}
			path := tt.path
			if path == "" {
				path = Path(dir)
			}
			if ce.Path != path {
				t.Errorf("error names %q, want %q", ce.Path, path)
			}
		})
	}
}

func TestProfileAndBodyValidation(t *testing.T) {
	t.Parallel()
	tests := []struct{ file, key, reason string }{
		{`{"thinking": "maximum"}`, "thinking", `must be one of auto, off, low, medium, high, got "maximum"`},
		{`{"extraBody": {"top_k": 20, "stream": false}}`, "extraBody", `may not set "stream": dev writes model, messages, stream, stream_options itself`},
		{`{"extraBody": [1]}`, "extraBody", "must be an object, got an array"},
		{`{"profiles": {"a": {"thinking": "lots"}}}`, "profiles.a.thinking", `got "lots"`},
		{`{"constrain": "yes"}`, "constrain", `must be one of auto, on, json, off, got "yes"`},
		{`{"profiles": {"a": {"constrain": "always"}}}`, "profiles.a.constrain", `must be one of auto, on, json, off, got "always"`},
		{`{"profiles": {"a": {"extraBody": {"messages": []}}}}`, "profiles.a.extraBody", `may not set "messages"`},
		{`{"profiles": {"a": {"maxContextTokens": "big"}}}`, "profiles.a.maxContextTokens", `must be an integer, got string "big"`},
		{`{"profiles": {"a": {"model": ""}}, "profile": "a"}`, "profiles.a.model", "must not be empty"},
		{`{"profiles": ["a"]}`, "profiles", "must be an object of profiles"},
	}
	for _, tt := range tests {
		ce, _ := loadError(t, tt.file, noEnv)
		if ce.Key != tt.key || !strings.Contains(ce.Reason, tt.reason) {
			t.Errorf("%s: key %q reason %q; want %q containing %q", tt.file, ce.Key, ce.Reason, tt.key, tt.reason)
		}
	}
}

func TestUnknownKeyInAProfileWarns(t *testing.T) {
	t.Parallel()
	cfg, warnings, err := Load(writeConfig(t, `{"profile": "a", "profiles": {"a": {"model": "m", "modle": "x"}}}`), noEnv, Flags{})
	if err != nil || cfg.Model != "m" {
		t.Fatalf("model %q err %v", cfg.Model, err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], `profile "a": unknown key "modle"`) {
		t.Errorf("warnings %q", warnings)
	}
}

// constrain takes json (SPEC §18) in the file, in a profile and on the
// command line, which wins.
func TestConstrainJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file  string
		flags Flags
	}{
		{`{"constrain": "json"}`, Flags{}},
		{`{"profile": "a", "profiles": {"a": {"model": "m", "constrain": "json"}}}`, Flags{}},
		{`{"constrain": "off"}`, Flags{Constrain: "json"}},
	} {
		cfg, _, err := Load(writeConfig(t, tc.file), noEnv, tc.flags)
		if err != nil || cfg.Constrain != ConstrainJSON {
			t.Errorf("%s %+v: constrain %q, %v", tc.file, tc.flags, cfg.Constrain, err)
		}
	}
}
