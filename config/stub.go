package config

// Default returns the configuration of SPEC §7.
func Default() Config { panic("stub") }

// Env looks up an environment variable (os.Getenv in production).
type Env func(key string) string

// Dir returns the configuration directory: $DEV_AGENT_HOME, else the OS's
// (Linux ~/.dev-agent, macOS ~/Library/Application Support/dev-agent,
// Windows %APPDATA%\dev-agent).
func Dir(env Env) (string, error) { panic("stub") }

// Path returns the config file's path inside dir.
func Path(dir string) string { panic("stub") }

// Load reads dir/config.json, creating it with defaults (mode 0600, and the
// directory) when missing, applies the environment overrides (DEV_API_URL,
// DEV_API_KEY, DEV_MODEL) and validates. Warnings name unknown keys.
// An unusable file is an *Error.
func Load(dir string, env Env) (cfg Config, warnings []string, err error) { panic("stub") }

func (e *Error) Error() string { panic("stub") }
