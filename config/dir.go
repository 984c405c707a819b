package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Env looks up an environment variable (os.Getenv in production).
type Env func(key string) string

// FileName is the configuration file's name inside the config directory.
const FileName = "config.json"

// Dir returns the configuration directory: $DEV_AGENT_HOME (made absolute),
// else the OS's (Linux and other unix ~/.dev-agent, macOS
// ~/Library/Application Support/dev-agent, Windows %APPDATA%\dev-agent).
func Dir(env Env) (string, error) {
	if env == nil {
		env = os.Getenv
	}
	if home := env("DEV_AGENT_HOME"); home != "" {
		abs, err := filepath.Abs(home)
		if err != nil {
			return "", fmt.Errorf("DEV_AGENT_HOME %q: %w", home, err)
		}
		return abs, nil
	}
	appData := ""
	if runtime.GOOS == "windows" {
		appData = env("APPDATA")
		if appData == "" {
			// os.UserConfigDir knows where Windows keeps roaming data even
			// when the caller's environment lacks APPDATA.
			appData, _ = os.UserConfigDir()
		}
	}
	home, homeErr := os.UserHomeDir()
	dir, err := dirFor(runtime.GOOS, home, appData)
	if err != nil && homeErr != nil {
		return "", fmt.Errorf("%w (%w)", err, homeErr)
	}
	return dir, err
}

// dirFor is Dir without the process's environment, so every OS can be tested
// on any OS.
func dirFor(goos, home, appData string) (string, error) {
	switch goos {
	case "windows":
		if appData == "" {
			return "", errors.New("cannot find the configuration directory: APPDATA is not set (set DEV_AGENT_HOME)")
		}
		return filepath.Join(appData, "dev-agent"), nil
	case "darwin", "ios":
		if home == "" {
			return "", errors.New("cannot find the home directory (set DEV_AGENT_HOME)")
		}
		return filepath.Join(home, "Library", "Application Support", "dev-agent"), nil
	default:
		if home == "" {
			return "", errors.New("cannot find the home directory (set DEV_AGENT_HOME)")
		}
		return filepath.Join(home, ".dev-agent"), nil
	}
}

// Path returns the config file's path inside dir.
func Path(dir string) string { return filepath.Join(dir, FileName) }
