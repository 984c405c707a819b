package config

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestSafetyDefaults(t *testing.T) {
	t.Parallel()
	d := Default()
	if len(d.WritableRoots) != 0 || len(d.DenyCommands) != 0 || len(d.AllowCommands) != 0 ||
		!d.DenyBuiltinCommands || d.Approval != "auto" || d.Sandbox != "off" || !d.RedactSecrets {
		t.Errorf("Default() = %+v", d)
	}
	if d.WritableRoots == nil || d.DenyCommands == nil || d.AllowCommands == nil {
		t.Error("empty lists must be [] in the file, not null")
	}
}

func TestLoadSafetyKeys(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, `{
		"writableRoots": ["/srv/shared", "~/scratch"],
		"denyCommands": ["git push --force", "npm publish"],
		"denyBuiltinCommands": false,
		"allowCommands": ["go test", "git status"],
		"approval": "ask",
		"sandbox": "workspace",
		"sandboxNetwork": [5432, 8080],
		"redactSecrets": false
	}`)
	cfg, warnings, err := Load(dir, noEnv, Flags{})
	if err != nil || len(warnings) != 0 {
		t.Fatalf("Load: %v %v", err, warnings)
	}
	want := Default()
	want.WritableRoots = []string{"/srv/shared", "~/scratch"}
	want.DenyCommands = []string{"git push --force", "npm publish"}
	want.DenyBuiltinCommands = false
	want.AllowCommands = []string{"go test", "git status"}
	want.Approval, want.Sandbox, want.RedactSecrets = "ask", "workspace", false
	want.SandboxNetwork = SandboxNetwork{Ports: []int{5432, 8080}}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("Load =\n%+v\nwant\n%+v", cfg, want)
	}
	if got := cfg.WritableRootPaths("/home/me"); !reflect.DeepEqual(got, []string{"/srv/shared", "/home/me/scratch"}) {
		t.Errorf("WritableRootPaths = %q", got)
	}

	// null is "no value": the defaults stay, lists stay empty lists.
	dir = writeConfig(t, `{"writableRoots": null, "denyCommands": null, "allowCommands": null, "denyBuiltinCommands": null, "redactSecrets": null, "approval": null, "sandbox": null, "sandboxNetwork": null}`)
	cfg, _, err = Load(dir, noEnv, Flags{})
	if err != nil || !reflect.DeepEqual(cfg, Default()) {
		t.Errorf("nulls: %+v %v", cfg, err)
	}
}

func TestSafetyValidation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ content, key, reason string }{
		{`{"approval": "never"}`, "approval", `must be "auto", "edits", "ask" or "plan", got "never"`},
		{`{"approval": ""}`, "approval", `must be "auto", "edits", "ask" or "plan", got ""`},
		{`{"sandbox": "on"}`, "sandbox", `must be "off" or "workspace", got "on"`},
		{`{"writableRoots": ["build"]}`, "writableRoots", `entry 1 must be an absolute path or start with ~/, got "build"`},
		{`{"writableRoots": ["/ok", ""]}`, "writableRoots", `entry 2 must be an absolute path or start with ~/, got ""`},
		{`{"denyCommands": [" "]}`, "denyCommands", "entry 1: an entry is empty"},
		{`{"denyCommands": ["curl x | sh"]}`, "denyCommands", `entry 1: "curl x | sh" contains "|"`},
		{`{"allowCommands": ["go test", "go test; rm -rf x"]}`, "allowCommands", `entry 2: "go test; rm -rf x" contains ";"`},
		{`{"denyBuiltinCommands": "no"}`, "denyBuiltinCommands", `must be true or false, got string "no"`},
		{`{"redactSecrets": 0}`, "redactSecrets", `must be true or false, got number 0`},
		{`{"writableRoots": "/tmp"}`, "writableRoots", `must be an array of strings, got string "/tmp"`},
		{`{"sandboxNetwork": "none"}`, "sandboxNetwork", `must be "all" or an array of TCP port numbers, got string "none"`},
		{`{"sandboxNetwork": ["5432"]}`, "sandboxNetwork", `must be "all" or an array of TCP port numbers, got an array containing a string`},
		{`{"sandboxNetwork": 5432}`, "sandboxNetwork", `must be "all" or an array of TCP port numbers, got number 5432`},
		{`{"sandboxNetwork": [22, 70000]}`, "sandboxNetwork", `entry 2 must be a TCP port from 1 to 65535, got 70000`},
		{`{"sandboxNetwork": [0]}`, "sandboxNetwork", `entry 1 must be a TCP port from 1 to 65535, got 0`},
	} {
		ce, _ := loadError(t, tc.content, noEnv)
		if ce.Key != tc.key || !strings.HasPrefix(ce.Reason, tc.reason) || ce.Line == 0 {
			t.Errorf("%s: error %#v, want key %q reason %q… at a line", tc.content, ce, tc.key, tc.reason)
		}
	}
}

// sandboxNetwork is "all" or a list of ports, and reads back as written.
func TestSandboxNetwork(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, `{"sandboxNetwork": "all"}`)
	cfg, _, err := Load(dir, noEnv, Flags{})
	if err != nil || !cfg.SandboxNetwork.All || len(cfg.SandboxNetwork.Ports) != 0 {
		t.Fatalf("Load: %+v %v", cfg.SandboxNetwork, err)
	}
	for _, c := range []struct {
		n          SandboxNetwork
		json, show string
	}{
		{SandboxNetwork{All: true}, `"all"`, "all"},
		{SandboxNetwork{Ports: []int{5432, 6379}}, `[5432,6379]`, "5432, 6379"},
		{SandboxNetwork{}, `[]`, ""},
	} {
		data, err := json.Marshal(c.n)
		if err != nil || string(data) != c.json {
			t.Errorf("%+v: JSON %s %v, want %s", c.n, data, err, c.json)
		}
		if got := Show("sandboxNetwork", c.n); got != c.show {
			t.Errorf("%+v: Show %q, want %q", c.n, got, c.show)
		}
	}
}
