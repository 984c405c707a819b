package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"strings"
)

// Where a setting's value comes from (Setting.Source). A flag or a profile
// is named by its caller: "flag --model", "profile fast".
const (
	SourceDefault = "default"
	SourceFile    = "file"
)

// Setting is one effective setting, as `dev config show` prints it.
type Setting struct {
	Key    string
	Value  string // for people: strings bare, lists comma-separated, "unset"; apiKey masked
	Source string // SourceDefault, SourceFile, "environment DEV_MODEL", or the caller's
}

// Explain reads the configuration as Read does (creating nothing) and says,
// for each key in file order, where its value comes from. found is false
// when there is no config.json (every value is then a default or from the
// environment).
func Explain(dir string, env Env, flags Flags) (settings []Setting, cfg Config, found bool, warnings []string, err error) {
	if env == nil {
		env = os.Getenv
	}
	path := Path(dir)
	data, err := os.ReadFile(path)
	found = err == nil
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data, err = json.Marshal(struct{}{})
	case err != nil:
		return nil, Config{}, false, nil, ioError(path, "cannot read the configuration", err)
	}
	if err != nil {
		return nil, Config{}, false, nil, err
	}
	cfg, warnings, origin, err := resolve(path, data, env, flags)
	if err != nil {
		return nil, Config{}, found, nil, err
	}
	v := reflect.ValueOf(cfg)
	for i, key := range keys() {
		settings = append(settings, Setting{Key: key, Value: Show(key, v.Field(i).Interface()), Source: origin[key]})
	}
	return settings, cfg, found, warnings, nil
}

// Show writes a setting's value for people; apiKey is masked, keeping its
// last four characters when it is long enough to stay secret.
func Show(key string, value any) string {
	if key == "apiKey" {
		k, _ := value.(string)
		switch {
		case k == "":
			return `""`
		case len(k) >= 12:
			return "****" + k[len(k)-4:]
		default:
			return "****"
		}
	}
	switch v := value.(type) {
	case string:
		if v == "" {
			return `""`
		}
		return v
	case []string:
		return strings.Join(v, ", ")
	case SandboxNetwork:
		return v.String()
	case *float64:
		if v == nil {
			return "unset"
		}
		return fmt.Sprint(*v)
	case *int:
		if v == nil {
			return "unset"
		}
		return fmt.Sprint(*v)
	case bool, int, int64, float64:
		return fmt.Sprint(v)
	}
	// Objects and lists of objects (profiles, prices, tools, mcpServers):
	// as JSON, with the API keys of profiles masked.
	if key == "profiles" {
		masked := map[string]Profile{}
		for name, p := range value.(map[string]Profile) {
			if p.APIKey != nil {
				k := Show("apiKey", *p.APIKey)
				p.APIKey = &k
			}
			masked[name] = p
		}
		value = masked
	}
	data, err := json.Marshal(value)
	if err != nil {
		return fmt.Sprint(value)
	}
	return string(data)
}
