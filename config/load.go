package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/devagent/dev/guard"
)

// Load reads dir/config.json, creating it with defaults (mode 0600, and the
// directory) when missing, lays the active profile over it, applies the
// environment overrides (DEV_API_URL, DEV_API_KEY, DEV_MODEL, DEV_PROFILE)
// and the command line's flags, and validates. Warnings name unknown keys.
// An unusable file is an *Error.
//
// An existing file is never written: dev only reads what the user owns.
func Load(dir string, env Env, flags Flags) (cfg Config, warnings []string, err error) {
	if env == nil {
		env = os.Getenv
	}
	path := Path(dir)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := createDefault(dir, path); err != nil {
			return Config{}, nil, err
		}
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return Config{}, nil, ioError(path, "cannot read the configuration", err)
	}
	return finish(path, data, env, flags)
}

// Read is Load for commands that must not write anything: a missing file
// gives the defaults, with the environment overrides applied and validated,
// and found false. Nothing is created.
func Read(dir string, env Env, flags Flags) (cfg Config, found bool, warnings []string, err error) {
	if env == nil {
		env = os.Getenv
	}
	path := Path(dir)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		data, err = defaultFile()
		if err != nil {
			return Config{}, false, nil, err
		}
		cfg, warnings, err = finish(path, data, env, flags)
		return cfg, false, warnings, err
	}
	if err != nil {
		return Config{}, false, nil, ioError(path, "cannot read the configuration", err)
	}
	cfg, warnings, err = finish(path, data, env, flags)
	return cfg, true, warnings, err
}

// finish parses the file's data, lays the active profile over it, applies
// the environment and the flags, and validates.
func finish(path string, data []byte, env Env, flags Flags) (Config, []string, error) {
	cfg, warnings, _, err := resolve(path, data, env, flags)
	return cfg, warnings, err
}

// resolve is finish, saying also where each key's value comes from:
// SourceDefault, SourceFile, "profile NAME", "environment VAR" or "flag
// --name".
func resolve(path string, data []byte, env Env, flags Flags) (Config, []string, map[string]string, error) {
	f, err := parse(path, data)
	if err != nil {
		return Config{}, nil, nil, err
	}
	if key, reason := validateProfiles(f.cfg.Profiles); key != "" {
		return Config{}, nil, nil, &Error{Path: path, Key: key, Reason: reason}
	}
	fromProfile, err := applyProfile(&f.cfg, path, env, flags)
	if err != nil {
		return Config{}, nil, nil, err
	}
	sources := applyEnv(&f.cfg, env)
	for _, flag := range []struct {
		key, name, value string
		dst              *string
	}{
		{"model", "--model", flags.Model, &f.cfg.Model},
		{"approval", "--approval", flags.Approval, &f.cfg.Approval},
		{"sandbox", "--sandbox", flags.Sandbox, &f.cfg.Sandbox},
		{"constrain", "--constrain", flags.Constrain, &f.cfg.Constrain},
	} {
		if flag.value != "" {
			*flag.dst, sources[flag.key] = flag.value, flag.name
		}
	}
	if key, reason := validate(&f.cfg); key != "" {
		if name, ok := sources[key]; ok {
			return Config{}, nil, nil, &Error{Path: name, Reason: reason}
		}
		if _, ok := fromProfile[key]; ok {
			return Config{}, nil, nil, &Error{Path: path, Key: "profiles." + f.cfg.Profile + "." + key, Reason: reason}
		}
		e := &Error{Path: path, Key: key, Reason: reason}
		if off, ok := f.offsets[key]; ok {
			e.Line, e.Column = position(f.data, off)
		}
		return Config{}, nil, nil, e
	}
	origin := map[string]string{}
	for _, key := range keys() {
		switch {
		case sources[key] != "" && strings.HasPrefix(sources[key], "--"):
			origin[key] = "flag " + sources[key]
		case sources[key] != "":
			origin[key] = "environment " + sources[key]
		case fromProfile[key]:
			origin[key] = "profile " + f.cfg.Profile
		default:
			if _, inFile := f.offsets[key]; inFile {
				origin[key] = SourceFile
			} else {
				origin[key] = SourceDefault
			}
		}
	}
	if flags.Profile != "" {
		origin["profile"] = "flag --profile"
	} else if strings.TrimSpace(env("DEV_PROFILE")) != "" {
		origin["profile"] = "environment DEV_PROFILE"
	}
	return f.cfg, f.warnings, origin, nil
}

// defaultFile is the content of a newly created config.json: every key with
// its default, indented, so users see what they can change.
func defaultFile() ([]byte, error) {
	data, err := json.MarshalIndent(Default(), "", "  ")
	return append(data, '\n'), err
}

// createDefault writes the defaults file so that no reader ever sees a
// partial file and a concurrent creator's file is never replaced: the full
// content is written to a temporary file, then hard-linked into place, which
// fails instead of overwriting.
func createDefault(dir, path string) (err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ioError(dir, "cannot create the configuration directory", err)
	}
	tmp, err := os.CreateTemp(dir, ".config.json.tmp-*")
	if err != nil {
		return ioError(path, "cannot create the configuration file", err)
	}
	tmpName := tmp.Name()
	defer func() {
		// After a link the temporary name is a second name of the file;
		// after a rename it no longer exists. Either way it must go.
		_ = os.Remove(tmpName)
	}()
	data, err := defaultFile()
	if err == nil {
		err = writeSynced(tmp, data)
	} else {
		_ = tmp.Close()
	}
	if err != nil {
		return ioError(path, "cannot write the configuration file", err)
	}
	linkErr := os.Link(tmpName, path)
	if linkErr == nil || errors.Is(linkErr, fs.ErrExist) {
		return nil
	}
	// Some filesystems have no hard links. Renaming can only replace a file
	// created in the last instant by another dev, holding the same defaults.
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	if err := os.Rename(tmpName, path); err != nil {
		return ioError(path, "cannot create the configuration file", err)
	}
	return nil
}

func writeSynced(f *os.File, data []byte) error {
	// CreateTemp already uses 0600; say so explicitly since the file may
	// hold an API key.
	err := f.Chmod(0o600)
	if _, werr := f.Write(data); err == nil {
		err = werr
	}
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// file is a parsed config.json.
type file struct {
	data     []byte
	cfg      Config
	warnings []string
	offsets  map[string]int // key -> byte offset of its value
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// keys lists the JSON keys of Config in field order.
func keys() []string { return jsonKeys(reflect.TypeFor[Config]()) }

// jsonKeys lists the JSON keys of a struct type in field order.
func jsonKeys(t reflect.Type) []string {
	k := make([]string, t.NumField())
	for i := range t.NumField() {
		k[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
	}
	return k
}

// parse decodes config.json key by key on top of the defaults. Keys match
// exactly: encoding/json would also accept "MODEL" for "model", which would
// make the unknown-key warnings lie.
func parse(path string, data []byte) (*file, error) {
	// Windows editors like to start files with a byte order mark.
	data = bytes.TrimPrefix(data, utf8BOM)
	f := &file{data: data, cfg: Default(), offsets: map[string]int{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &Error{Path: path, Reason: "the file is empty (delete it and dev recreates it with the defaults)"}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, syntaxError(path, data, err)
	}

	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // the '{' that Unmarshal already checked
		return nil, syntaxError(path, data, err)
	}
	cfgValue := reflect.ValueOf(&f.cfg).Elem()
	fields := map[string]int{}
	for i, k := range keys() {
		fields[k] = i
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntaxError(path, data, err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, syntaxError(path, data, err)
		}
		off := int(dec.InputOffset()) - len(raw)
		if key == "profiles" {
			profiles, warnings, err := parseProfiles(path, data, off, raw)
			if err != nil {
				return nil, err
			}
			f.cfg.Profiles = profiles
			f.warnings = append(f.warnings, warnings...)
			f.offsets[key] = off
			continue
		}
		i, known := fields[key]
		if !known {
			f.warnings = append(f.warnings, unknownKey(path, key))
			continue
		}
		if seen[key] {
			f.warnings = append(f.warnings, fmt.Sprintf("%s: key %q appears more than once; the last one is used", path, key))
		}
		seen[key] = true
		f.offsets[key] = off
		if decoded, ok, err := f.decodeExtension(path, key, raw, off); ok {
			if err != nil {
				return nil, err
			}
			cfgValue.Field(i).Set(reflect.ValueOf(decoded))
			continue
		}
		field := cfgValue.Field(i)
		if err := json.Unmarshal(raw, field.Addr().Interface()); err != nil {
			line, col := position(data, off)
			return nil, &Error{Path: path, Key: key, Line: line, Column: col, Reason: typeReason(field.Type(), raw, err)}
		}
	}
	// null means "no value": for the allowlist that is the default list,
	// not an empty one that would refuse every command.
	if f.cfg.AuditCommands == nil {
		f.cfg.AuditCommands = DefaultAuditCommands()
	}
	for _, list := range []*[]string{&f.cfg.WritableRoots, &f.cfg.DenyCommands, &f.cfg.AllowCommands} {
		if *list == nil {
			*list = []string{}
		}
	}
	return f, nil
}

// decodeExtension reads the keys of SPEC §15, whose entries are objects:
// they are decoded field by field so that errors name the entry and the
// field, and unknown fields are warnings. ok is false for other keys.
func (f *file) decodeExtension(path, key string, raw json.RawMessage, off int) (v any, ok bool, err error) {
	var warnings []string
	var reason string
	switch key {
	case "tools":
		v, warnings, reason = decodeTools(path, raw)
	case "mcpServers":
		v, warnings, reason = decodeMCPServers(path, raw)
	default:
		return nil, false, nil
	}
	if reason != "" {
		line, col := position(f.data, off)
		return nil, true, &Error{Path: path, Key: key, Line: line, Column: col, Reason: reason}
	}
	f.warnings = append(f.warnings, warnings...)
	return v, true, nil
}

func syntaxError(path string, data []byte, err error) *Error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Offset counts the bytes read, the offending one included; at
		// the end of input there is no offending byte.
		off := int(se.Offset) - 1
		if strings.HasPrefix(se.Error(), "unexpected end") {
			off = int(se.Offset)
		}
		line, col := position(data, off)
		return &Error{Path: path, Line: line, Column: col, Reason: "invalid JSON: " + se.Error()}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		off := len(data) - len(bytes.TrimLeft(data, " \t\r\n"))
		line, col := position(data, off)
		return &Error{Path: path, Line: line, Column: col, Reason: "must hold a JSON object {...}, got " + te.Value}
	}
	return &Error{Path: path, Reason: "invalid JSON: " + err.Error()}
}

// typeReason explains a value of the wrong type in terms of the file.
func typeReason(t reflect.Type, raw json.RawMessage, err error) string {
	want := describeType(t)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Type != t && te.Type != derefType(t) {
		// The element of an array, not the value itself.
		return fmt.Sprintf("must be %s, got an array containing a %s", want, strings.Fields(te.Value + " value")[0])
	}
	return fmt.Sprintf("must be %s, got %s", want, describeValue(raw))
}

func derefType(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	return t
}

func describeType(t reflect.Type) string {
	if t == reflect.TypeFor[SandboxNetwork]() {
		return `"all" or an array of TCP port numbers`
	}
	switch derefType(t).Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Float64:
		return "a number"
	case reflect.Slice:
		return "an array of strings"
	case reflect.Map:
		return "an object"
	case reflect.Bool:
		return "true or false"
	}
	return t.String()
}

func describeValue(raw json.RawMessage) string {
	kind := "number"
	switch raw[0] {
	case '"':
		kind = "string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 'n':
		return "null"
	case 't', 'f':
		kind = "boolean"
	}
	if len(raw) > 40 {
		return kind
	}
	return kind + " " + string(raw)
}

// position converts a byte offset into a 1-based line and a 1-based column
// counted in characters, as editors show them.
func position(data []byte, off int) (line, col int) {
	off = max(0, min(off, len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCount(before[lineStart:]) + 1
}

// applyEnv applies the environment overrides and returns which keys came
// from which variable. Empty values are ignored, so `DEV_MODEL= dev` keeps
// the file's model.
func applyEnv(cfg *Config, env Env) map[string]string {
	sources := map[string]string{}
	for _, o := range []struct {
		name, key string
		dst       *string
	}{
		{"DEV_API_URL", "apiUrl", &cfg.APIURL},
		{"DEV_API_KEY", "apiKey", &cfg.APIKey},
		{"DEV_MODEL", "model", &cfg.Model},
	} {
		// Values pasted from files often end in a newline.
		if v := strings.TrimSpace(env(o.name)); v != "" {
			*o.dst = v
			sources[o.key] = o.name
		}
	}
	return sources
}

// validate returns the first key whose value dev cannot work with, and why.
func validate(c *Config) (key, reason string) {
	switch {
	case !isHTTPURL(c.APIURL):
		return "apiUrl", fmt.Sprintf("must be an http(s) URL such as %q, got %q", Default().APIURL, c.APIURL)
	case strings.TrimSpace(c.Model) == "":
		return "model", "must not be empty"
	case c.MaxContextTokens <= 0:
		return "maxContextTokens", fmt.Sprintf("must be greater than 0, got %d", c.MaxContextTokens)
	case !(c.CompressThreshold > 0 && c.CompressThreshold <= 1):
		return "compressThreshold", fmt.Sprintf("must be greater than 0 and at most 1 (a fraction of maxContextTokens), got %v", c.CompressThreshold)
	case c.CommandTimeout <= 0:
		return "commandTimeout", fmt.Sprintf("must be greater than 0 (seconds), got %d", c.CommandTimeout)
	case c.RequestTimeout <= 0:
		return "requestTimeout", fmt.Sprintf("must be greater than 0 (seconds), got %d", c.RequestTimeout)
	case c.MaxRetries < 0:
		return "maxRetries", fmt.Sprintf("must be 0 or more, got %d", c.MaxRetries)
	case c.MaxRetriesAutomated < 0:
		return "maxRetriesAutomated", fmt.Sprintf("must be 0 or more, got %d", c.MaxRetriesAutomated)
	case c.MaxLoops < 1:
		return "maxLoops", fmt.Sprintf("must be at least 1, got %d", c.MaxLoops)
	case c.MaxAuditFailures < 1:
		return "maxAuditFailures", fmt.Sprintf("must be at least 1, got %d", c.MaxAuditFailures)
	case c.SessionRetentionDays < 0:
		return "sessionRetentionDays", fmt.Sprintf("must be 0 (keep forever) or more, got %d", c.SessionRetentionDays)
	case c.Temperature != nil && !(*c.Temperature >= 0 && *c.Temperature <= 2):
		return "temperature", fmt.Sprintf("must be between 0 and 2, got %v", *c.Temperature)
	case !slices.Contains(AuditPolicies, c.Audit):
		return "audit", fmt.Sprintf("must be %s, got %q", strings.Join(quoted(AuditPolicies), ", "), c.Audit)
	case c.MaxTokens != nil && *c.MaxTokens <= 0:
		return "maxTokens", fmt.Sprintf("must be greater than 0, got %d", *c.MaxTokens)
	}
	for model, p := range c.Prices {
		if p.Input < 0 || p.Output < 0 || p.CachedInput < 0 {
			return "prices", fmt.Sprintf("%q: prices must not be negative (USD per million tokens)", model)
		}
	}
	if c.CheckpointMaxFileBytes <= 0 {
		return "checkpointMaxFileBytes", fmt.Sprintf("must be greater than 0 (bytes), got %d", c.CheckpointMaxFileBytes)
	}
	if !validThinking(c.Thinking) {
		return "thinking", thinkingReason(c.Thinking)
	}
	if !validConstrain(c.Constrain) {
		return "constrain", constrainReason(c.Constrain)
	}
	if key := ownedKey(c.ExtraBody); key != "" {
		return "extraBody", ownedReason(key)

	}
	if reason := validateTools(c.Tools); reason != "" {
		return "tools", reason
	}
	if reason := validateMCPServers(c.MCPServers); reason != "" {
		return "mcpServers", reason
	}
	for i, cmd := range c.AuditCommands {
		// An empty prefix would allow every command in the audit.
		if strings.TrimSpace(cmd) == "" {
			return "auditCommands", fmt.Sprintf("entry %d is empty (it would allow every command)", i+1)
		}
	}
	return validateSafety(c)
}

// validateSafety checks the keys of SPEC §13.
func validateSafety(c *Config) (key, reason string) {
	if !slices.Contains(ApprovalModes, c.Approval) {
		return "approval", fmt.Sprintf("must be %q, %q, %q or %q, got %q", ApprovalAuto, ApprovalEdits, ApprovalAsk, ApprovalPlan, c.Approval)
	}
	switch c.Sandbox {
	case SandboxOff, SandboxWorkspace:
	default:
		return "sandbox", fmt.Sprintf("must be %q or %q, got %q", SandboxOff, SandboxWorkspace, c.Sandbox)
	}
	for i, port := range c.SandboxNetwork.Ports {
		if port < 1 || port > 65535 {
			return "sandboxNetwork", fmt.Sprintf("entry %d must be a TCP port from 1 to 65535, got %d", i+1, port)
		}
	}
	for i, root := range c.WritableRoots {
		if !filepath.IsAbs(root) && root != "~" && !strings.HasPrefix(root, "~/") && !strings.HasPrefix(root, `~\`) {
			return "writableRoots", fmt.Sprintf("entry %d must be an absolute path or start with ~/, got %q", i+1, root)
		}
	}
	for _, l := range []struct {
		key  string
		list []string
	}{{"denyCommands", c.DenyCommands}, {"allowCommands", c.AllowCommands}} {
		for i, p := range l.list {
			if _, err := guard.PrefixWords(p); err != nil {
				return l.key, fmt.Sprintf("entry %d: %v", i+1, err)
			}
		}
	}
	return "", ""
}

// WritableRootPaths are the writableRoots as absolute, clean paths, with
// a leading ~ replaced by home.
func (c Config) WritableRootPaths(home string) []string {
	out := make([]string, 0, len(c.WritableRoots))
	for _, r := range c.WritableRoots {
		if r == "~" || strings.HasPrefix(r, "~/") || strings.HasPrefix(r, `~\`) {
			r = filepath.Join(home, r[1:])
		}
		out = append(out, filepath.Clean(r))
	}
	return out
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	return scheme == "http" || scheme == "https"
}

func quoted(words []string) []string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = fmt.Sprintf("%q", w)
	}
	return q
}
