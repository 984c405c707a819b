package config

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestDirFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, goos, home, appData string
		want                      string
		wantErr                   bool
	}{
		{name: "linux", goos: "linux", home: "/home/ann", want: filepath.Join("/home/ann", ".dev-agent")},
		{name: "other unix", goos: "freebsd", home: "/usr/home/ann", want: filepath.Join("/usr/home/ann", ".dev-agent")},
		{name: "linux ignores APPDATA", goos: "linux", home: "/home/ann", appData: "/x", want: filepath.Join("/home/ann", ".dev-agent")},
		{name: "macOS", goos: "darwin", home: "/Users/ann", want: filepath.Join("/Users/ann", "Library", "Application Support", "dev-agent")},
		{name: "windows", goos: "windows", home: `C:\Users\ann`, appData: `C:\Users\ann\AppData\Roaming`, want: filepath.Join(`C:\Users\ann\AppData\Roaming`, "dev-agent")},
		{name: "windows without APPDATA", goos: "windows", home: `C:\Users\ann`, wantErr: true},
		{name: "linux without home", goos: "linux", wantErr: true},
		{name: "macOS without home", goos: "darwin", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := dirFor(tt.goos, tt.home, tt.appData)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("dirFor = %q, want an error", got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("dirFor = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestDirFromEnvironment(t *testing.T) {
	t.Parallel()
	abs := filepath.Join(t.TempDir(), "dev home")
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{name: "absolute DEV_AGENT_HOME", env: map[string]string{"DEV_AGENT_HOME": abs}, want: abs},
		{name: "relative DEV_AGENT_HOME is made absolute", env: map[string]string{"DEV_AGENT_HOME": filepath.Join("rel", "..", "cfg")}, want: filepath.Join(cwd, "cfg")},
		{name: "DEV_AGENT_HOME wins over APPDATA", env: map[string]string{"DEV_AGENT_HOME": abs, "APPDATA": t.TempDir()}, want: abs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Dir(envMap(tt.env))
			if err != nil || got != tt.want {
				t.Fatalf("Dir = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestDirDefaultsToTheOSDirectory(t *testing.T) {
	t.Parallel()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal("no home directory, so Dir cannot work either:", err)
	}
	appData := `C:\AppData\Roaming`
	want, err := dirFor(runtime.GOOS, home, appData)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Dir(envMap(map[string]string{"APPDATA": appData}))
	if err != nil || got != want {
		t.Fatalf("Dir = %q, %v; want %q", got, err, want)
	}
}

func TestPath(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("some", "dir")
	if got, want := Path(dir), filepath.Join(dir, "config.json"); got != want {
		t.Fatalf("Path = %q, want %q", got, want)
	}
}

func envMap(m map[string]string) Env {
	return func(k string) string { return m[k] }
}
