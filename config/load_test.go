package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var noEnv = envMap(nil)

func ptr[T any](v T) *T { return &v }

// writeConfig writes content as dir/config.json and returns dir.
func writeConfig(t *testing.T, content string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(Path(dir), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLoadCreatesDefaultFile(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "home", "dev-agent")
	cfg, warnings, err := Load(dir, noEnv, Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg, Default()) || len(warnings) != 0 {
		t.Fatalf("Load = %+v, %q; want the defaults and no warnings", cfg, warnings)
	}

	data, err := os.ReadFile(Path(dir))
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "default-config.json")
	if *update {
		if err := os.WriteFile(golden, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, want) {
		t.Errorf("created config.json differs from %s:\n%s", golden, data)
	}
	var back Config
	if err := json.Unmarshal(data, &back); err != nil || !reflect.DeepEqual(back, Default()) {
		t.Errorf("created file parses back to %+v, %v; want Default()", back, err)
	}

	if runtime.GOOS != "windows" {
		assertMode(t, Path(dir), 0o600)
		assertMode(t, dir, 0o700|os.ModeDir)
	}
	assertOnlyConfig(t, dir)
}

// The golden file is reviewed against SPEC §7 once; this pins the values
// that are easy to get subtly wrong.
func TestDefaultsFollowTheSpec(t *testing.T) {
	t.Parallel()
	d := Default()
	want := []string{"cat", "head", "tail", "ls", "dir", "tree", "wc", "grep", "git status", "git diff", "git log", "git show", "npm test", "npm run build", "go test", "go build", "go vet", "cargo test", "cargo build", "pytest", "python -m pytest", "make test"}
	if !reflect.DeepEqual(d.AuditCommands, want) {
		t.Errorf("auditCommands = %q, want %q", d.AuditCommands, want)
	}
	if d.Temperature != nil || d.MaxTokens != nil {
		t.Errorf("temperature, maxTokens = %v, %v; want unset", d.Temperature, d.MaxTokens)
	}
	if d.APIURL != "http://localhost:8005/v1" || d.Model != "devstral-small-2507" || d.CompressThreshold != 0.85 ||
		d.MaxContextTokens != 131072 || d.MaxRetries != 3 || d.MaxRetriesAutomated != 10 || d.SessionRetentionDays != 30 {
		t.Errorf("Default() = %+v", d)
	}
	d.AuditCommands[0] = "rm"
	if Default().AuditCommands[0] != "cat" {
		t.Error("Default() shares its slice between calls")
	}
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode(); got != want {
		t.Errorf("mode of %s = %v, want %v", path, got, want)
	}
}

// assertOnlyConfig checks that no temporary file was left behind.
func assertOnlyConfig(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !reflect.DeepEqual(names, []string{"config.json"}) {
		t.Errorf("files in %s = %q, want only config.json", dir, names)
	}
}

func TestLoadConcurrentCreationNeverFails(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "dev-agent")
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, _, errs[i] = Load(dir, noEnv, Flags{})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Load %d: %v", i, err)
		}
	}
	data, err := os.ReadFile(Path(dir))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := defaultFile()
	if !bytes.Equal(data, want) {
		t.Errorf("config.json after a race:\n%s", data)
	}
	assertOnlyConfig(t, dir)
}

func TestLoadNeverRewritesAnExistingFile(t *testing.T) {
	t.Parallel()
	content := "{\"model\":\"qwen3\",   \"modle\": 1,\n\"maxLoops\": 7}"
	dir := writeConfig(t, content)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(Path(dir), old, old); err != nil {
		t.Fatal(err)
	}
	env := envMap(map[string]string{"DEV_MODEL": "other", "DEV_API_KEY": "sk-1"})
	for range 2 {
		if _, _, err := Load(dir, env, Flags{}); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(Path(dir))
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != content {
		t.Errorf("config.json was rewritten:\n%s", data)
	}
	fi, err := os.Stat(Path(dir))
	if err != nil {
		t.Fatal(err)
	}
	if !fi.ModTime().Equal(old) {
		t.Errorf("config.json modified at %v, want untouched since %v", fi.ModTime(), old)
	}
	assertOnlyConfig(t, dir)
}

func TestLoadMergesWithDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content string
		want          func(*Config)
	}{
		{"only model", `{"model": "qwen3-coder"}`, func(c *Config) { c.Model = "qwen3-coder" }},
		{"empty object", `{}`, func(*Config) {}},
		{"byte order mark", "\uFEFF{\"maxLoops\": 5}", func(c *Config) { c.MaxLoops = 5 }},
		{"optional values set", `{"temperature": 0.2, "maxTokens": 4096}`, func(c *Config) {
			c.Temperature, c.MaxTokens = ptr(0.2), ptr(4096)
		}},
		{"temperature 0 is set, not unset", `{"temperature": 0}`, func(c *Config) { c.Temperature = ptr(0.0) }},
		{"null keeps the default", `{"maxLoops": null, "model": null, "temperature": null, "auditCommands": null}`, func(*Config) {}},
		{"audit commands replaced, not appended", `{"auditCommands": ["go test", "ls"]}`, func(c *Config) {
			c.AuditCommands = []string{"go test", "ls"}
		}},
		{"empty allowlist", `{"auditCommands": []}`, func(c *Config) { c.AuditCommands = []string{} }},
		{"every key", string(mustDefaultFile(t)), func(*Config) {}},
		{"duplicate key: last wins", `{"maxLoops": 5, "maxLoops": 6}`, func(c *Config) { c.MaxLoops = 6 }},
		{"boundaries", `{"compressThreshold": 1, "maxRetries": 0, "maxRetriesAutomated": 0, "maxLoops": 1, "maxAuditFailures": 1, "sessionRetentionDays": 0, "temperature": 2, "maxTokens": 1}`, func(c *Config) {
			c.CompressThreshold, c.MaxRetries, c.MaxRetriesAutomated, c.MaxLoops, c.MaxAuditFailures, c.SessionRetentionDays = 1, 0, 0, 1, 1, 0
			c.Temperature, c.MaxTokens = ptr(2.0), ptr(1)
		}},
		{"https URL", `{"apiUrl": "https://openrouter.ai/api/v1"}`, func(c *Config) { c.APIURL = "https://openrouter.ai/api/v1" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, _, err := Load(writeConfig(t, tt.content), noEnv, Flags{})
			if err != nil {
				t.Fatal(err)
			}
			want := Default()
			tt.want(&want)
			if !reflect.DeepEqual(cfg, want) {
				t.Errorf("Load =\n%+v\nwant\n%+v", cfg, want)
			}
		})
	}
}

func mustDefaultFile(t *testing.T) []byte {
	t.Helper()
	data, err := defaultFile()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// loadError loads content and returns the *Error it must fail with.
func loadError(t *testing.T, content string, env Env) (*Error, string) {
	t.Helper()
	dir := writeConfig(t, content)
	_, _, err := Load(dir, env, Flags{})
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("Load error = %v (%T), want *Error", err, err)
	}
	return ce, Path(dir)
}

func TestLoadSyntaxErrorPosition(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content string
		line, col     int
		reason        string
	}{
		{"trailing comma", "{\n  \"model\": \"x\",\n}\n", 3, 1, "invalid JSON: invalid character '}' looking for beginning of object key string"},
		{"missing comma", `{"model": "x" "apiKey": ""}`, 1, 15, "invalid JSON: invalid character '\"' after object key:value pair"},
		{"columns count characters", "{\n  \"model\": \"é\" x}", 2, 16, "invalid JSON: invalid character 'x' after object key:value pair"},
		{"truncated", "{\n  \"model\": \"x\"", 2, 15, "invalid JSON: unexpected end of JSON input"},
		{"comment", "{\n  // my model\n  \"model\": \"x\"\n}", 2, 3, "invalid JSON: invalid character '/' looking for beginning of object key string"},
		{"not an object", "\n  [\"model\"]", 2, 3, "must hold a JSON object {...}, got array"},
		{"empty", " \n", 0, 0, "the file is empty (delete it and dev recreates it with the defaults)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ce, path := loadError(t, tt.content, noEnv)
			want := &Error{Path: path, Line: tt.line, Column: tt.col, Reason: tt.reason}
			if !reflect.DeepEqual(ce, want) {
				t.Errorf("error = %#v\nwant %#v", ce, want)
			}
		})
	}
}

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	ce, path := loadError(t, "{\n  \"apiUrl\": \"http://localhost:8005/v1\",\n  \"maxLoops\": \"10\"\n}\n", noEnv)
	want := path + `:3:15: "maxLoops" must be an integer, got string "10"`
	if got := ce.Error(); got != want {
		t.Errorf("Error() = %s\nwant      %s", got, want)
	}
	ce, path = loadError(t, "{\n\"model\": \"x\",,\n}", noEnv)
	want = path + ":2:14: invalid JSON: invalid character ',' looking for beginning of object key string"
	if got := ce.Error(); got != want {
		t.Errorf("Error() = %s\nwant      %s", got, want)
	}
}

func TestLoadTypeErrorNamesTheKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		content   string
		key       string
		line, col int
		reason    string
	}{
		{`{"maxLoops": "10"}`, "maxLoops", 1, 14, `must be an integer, got string "10"`},
		{`{"maxLoops": 2.5}`, "maxLoops", 1, 14, `must be an integer, got number 2.5`},
		{"{\n\t\"model\": 5\n}", "model", 2, 11, `must be a string, got number 5`},
		{`{"compressThreshold": true}`, "compressThreshold", 1, 23, `must be a number, got boolean true`},
		{`{"temperature": "hot"}`, "temperature", 1, 17, `must be a number, got string "hot"`},
		{`{"maxTokens": {}}`, "maxTokens", 1, 15, `must be an integer, got an object`},
		{`{"auditCommands": "go test"}`, "auditCommands", 1, 19, `must be an array of strings, got string "go test"`},
		{`{"auditCommands": ["ls", 3]}`, "auditCommands", 1, 19, `must be an array of strings, got an array containing a number`},
		{`{"apiKey": ["a"]}`, "apiKey", 1, 12, `must be a string, got an array`},
		{`{"maxContextTokens": 1e30}`, "maxContextTokens", 1, 22, `must be an integer, got number 1e30`},
	}
	for _, tt := range tests {
		t.Run(tt.content, func(t *testing.T) {
			t.Parallel()
			ce, path := loadError(t, tt.content, noEnv)
			want := &Error{Path: path, Key: tt.key, Line: tt.line, Column: tt.col, Reason: tt.reason}
			if !reflect.DeepEqual(ce, want) {
				t.Errorf("error = %#v\nwant %#v", ce, want)
			}
		})
	}
}

func TestLoadValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		content, key, reason string
	}{
		{`{"apiUrl": "localhost:8005/v1"}`, "apiUrl", `must be an http(s) URL such as "http://localhost:8005/v1", got "localhost:8005/v1"`},
		{`{"apiUrl": "ftp://host/v1"}`, "apiUrl", `must be an http(s) URL such as "http://localhost:8005/v1", got "ftp://host/v1"`},
		{`{"apiUrl": ""}`, "apiUrl", `must be an http(s) URL such as "http://localhost:8005/v1", got ""`},
		{`{"model": " "}`, "model", "must not be empty"},
		{`{"maxContextTokens": 0}`, "maxContextTokens", "must be greater than 0, got 0"},
		{`{"compressThreshold": 0}`, "compressThreshold", "must be greater than 0 and at most 1 (a fraction of maxContextTokens), got 0"},
		{`{"compressThreshold": 1.5}`, "compressThreshold", "must be greater than 0 and at most 1 (a fraction of maxContextTokens), got 1.5"},
		{`{"commandTimeout": 0}`, "commandTimeout", "must be greater than 0 (seconds), got 0"},
		{`{"requestTimeout": -5}`, "requestTimeout", "must be greater than 0 (seconds), got -5"},
		{`{"maxRetries": -1}`, "maxRetries", "must be 0 or more, got -1"},
		{`{"maxRetriesAutomated": -1}`, "maxRetriesAutomated", "must be 0 or more, got -1"},
		{`{"maxLoops": 0}`, "maxLoops", "must be at least 1, got 0"},
		{`{"maxAuditFailures": 0}`, "maxAuditFailures", "must be at least 1, got 0"},
		{`{"sessionRetentionDays": -1}`, "sessionRetentionDays", "must be 0 (keep forever) or more, got -1"},
		{`{"temperature": 2.1}`, "temperature", "must be between 0 and 2, got 2.1"},
		{`{"temperature": -0.1}`, "temperature", "must be between 0 and 2, got -0.1"},
		{`{"maxTokens": 0}`, "maxTokens", "must be greater than 0, got 0"},
		{`{"auditCommands": ["ls", " "]}`, "auditCommands", "entry 2 is empty (it would allow every command)"},
		{`{"audit": "sometimes"}`, "audit", `must be "changes", "always", "off", got "sometimes"`},
	}
	for _, tt := range tests {
		t.Run(tt.content, func(t *testing.T) {
			t.Parallel()
			// The value sits on line 2, after the key and two spaces.
			content := strings.Replace(tt.content, "{", "{\n  ", 1)
			ce, path := loadError(t, content, noEnv)
			col := strings.Index(content, ": ") + 2 - strings.Index(content, "\n")
			want := &Error{Path: path, Key: tt.key, Line: 2, Column: col, Reason: tt.reason}
			if !reflect.DeepEqual(ce, want) {
				t.Errorf("error = %#v\nwant %#v", ce, want)
			}
		})
	}
}

func TestLoadWarnsAboutUnknownKeys(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, `{"modle": "x", "maxLoop": 3, "APIURL": "http://h/v1", "colour": true, "maxTokens": 9, "maxTokens": 8}`)
	cfg, warnings, err := Load(dir, noEnv, Flags{})
	if err != nil {
		t.Fatal(err)
	}
	p := Path(dir)
	want := []string{
		p + `: unknown key "modle" (did you mean "model"?)`,
		p + `: unknown key "maxLoop" (did you mean "maxLoops"?)`,
		p + `: unknown key "APIURL" (did you mean "apiUrl"?)`,
		p + `: unknown key "colour" (ignored)`,
		p + `: key "maxTokens" appears more than once; the last one is used`,
	}
	if !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings =\n%s\nwant\n%s", strings.Join(warnings, "\n"), strings.Join(want, "\n"))
	}
	// Unknown keys are ignored, even when encoding/json would match them
	// case-insensitively.
	wantCfg := Default()
	wantCfg.MaxTokens = ptr(8)
	if !reflect.DeepEqual(cfg, wantCfg) {
		t.Errorf("cfg = %+v, want defaults with maxTokens 8", cfg)
	}
}

func TestClosestKey(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"modle":              "model",
		"Model":              "model",
		"api_url":            "apiUrl",
		"apiurl":             "apiUrl",
		"tempreature":        "temperature",
		"maxToken":           "maxTokens",
		"maxRetry":           "maxRetries",
		"sessionRetention":   "",
		"commandTimeoutSecs": "",
		"x":                  "",
		"theme":              "",
	}
	for in, want := range tests {
		if got := closestKey(in, keys()); got != want {
			t.Errorf("closestKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLoadEnvironmentOverrides(t *testing.T) {
	t.Parallel()
	file := `{"apiUrl": "http://file:1/v1", "apiKey": "file-key", "model": "file-model"}`
	tests := []struct {
		name                string
		env                 map[string]string
		url, key, wantModel string
	}{
		{"file only", nil, "http://file:1/v1", "file-key", "file-model"},
		{"env wins", map[string]string{"DEV_API_URL": "https://env/v1", "DEV_API_KEY": "env-key", "DEV_MODEL": "env-model"}, "https://env/v1", "env-key", "env-model"},
		{"empty values are ignored", map[string]string{"DEV_API_URL": "", "DEV_API_KEY": " ", "DEV_MODEL": "\n"}, "http://file:1/v1", "file-key", "file-model"},
		{"trailing newline trimmed", map[string]string{"DEV_API_KEY": "sk-123\n"}, "http://file:1/v1", "sk-123", "file-model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, _, err := Load(writeConfig(t, file), envMap(tt.env), Flags{})
			if err != nil {
				t.Fatal(err)
			}
			if cfg.APIURL != tt.url || cfg.APIKey != tt.key || cfg.Model != tt.wantModel {
				t.Errorf("apiUrl, apiKey, model = %q, %q, %q; want %q, %q, %q", cfg.APIURL, cfg.APIKey, cfg.Model, tt.url, tt.key, tt.wantModel)
			}
		})
	}
}

func TestLoadEnvironmentErrors(t *testing.T) {
	t.Parallel()
	ce, _ := loadError(t, `{}`, envMap(map[string]string{"DEV_API_URL": "localhost:8005"}))
	want := &Error{Path: "DEV_API_URL", Reason: `must be an http(s) URL such as "http://localhost:8005/v1", got "localhost:8005"`}
	if !reflect.DeepEqual(ce, want) {
		t.Errorf("error = %#v, want %#v", ce, want)
	}
	if got := ce.Error(); got != `DEV_API_URL: must be an http(s) URL such as "http://localhost:8005/v1", got "localhost:8005"` {
		t.Errorf("Error() = %s", got)
	}

	// The environment repairs what it overrides: a bad file value that the
	// environment replaces is not an error.
	cfg, _, err := Load(writeConfig(t, `{"apiUrl": "nonsense", "model": ""}`),
		envMap(map[string]string{"DEV_API_URL": "http://h:1/v1", "DEV_MODEL": "m"}), Flags{})
	if err != nil || cfg.APIURL != "http://h:1/v1" || cfg.Model != "m" {
		t.Errorf("Load = %q, %q, %v", cfg.APIURL, cfg.Model, err)
	}
}

func TestLoadUnreadableFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A directory in the file's place cannot be read by anyone, root included.
	if err := os.Mkdir(Path(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	_, _, err := Load(dir, noEnv, Flags{})
	var ce *Error
	if !errors.As(err, &ce) || ce.Path != Path(dir) || ce.Err == nil || !strings.HasPrefix(ce.Reason, "cannot read the configuration: ") {
		t.Fatalf("Load error = %#v", err)
	}
	if strings.Count(ce.Error(), Path(dir)) != 1 {
		t.Errorf("Error() repeats the path: %s", ce.Error())
	}
}

func TestLoadCannotCreateDirectory(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	blocker := filepath.Join(parent, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := Load(filepath.Join(blocker, "dev-agent"), noEnv, Flags{})
	var ce *Error
	if !errors.As(err, &ce) || ce.Err == nil {
		t.Fatalf("Load error = %#v, want *Error with the cause", err)
	}
}

func TestReadCreatesNothing(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	dir := filepath.Join(parent, "dev-agent")
	cfg, found, warnings, err := Read(dir, envMap(map[string]string{"DEV_MODEL": "qwen3"}), Flags{})
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Model = "qwen3"
	if found || !reflect.DeepEqual(cfg, want) || len(warnings) != 0 {
		t.Fatalf("Read = %+v, found %v, %q; want the defaults with DEV_MODEL, not found, no warnings", cfg, found, warnings)
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("Read created %s", entries[0].Name())
	}
}

func TestReadExistingFile(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, `{"model": "m", "maxContextTokens": 8192, "modle": "x"}`)
	before, _ := os.ReadFile(Path(dir))
	cfg, found, warnings, err := Read(dir, noEnv, Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if !found || cfg.Model != "m" || cfg.MaxContextTokens != 8192 || len(warnings) != 1 {
		t.Fatalf("Read = %+v, found %v, %q", cfg, found, warnings)
	}
	after, _ := os.ReadFile(Path(dir))
	if !bytes.Equal(before, after) {
		t.Error("Read changed the file")
	}

	bad := writeConfig(t, `{"maxLoops": "many"}`)
	var e *Error
	if _, found, _, err := Read(bad, noEnv, Flags{}); !errors.As(err, &e) || e.Key != "maxLoops" || !found {
		t.Errorf("Read of an invalid file = found %v, %v; want found and an *Error naming maxLoops", found, err)
	}
}
