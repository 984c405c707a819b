package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Profiles: named sets of model settings (SPEC §14). The file's `profile`
// names the default one; DEV_PROFILE and then --profile select another.

// profileKeys are the keys a profile may set, as the file spells them.
var profileKeys = []string{"apiUrl", "apiKey", "model", "auditModel", "compressModel", "maxContextTokens",
	"temperature", "maxTokens", "thinking", "extraBody", "constrain"}

// parseProfiles decodes the `profiles` object, raw at offset off of data.
// Unknown keys inside a profile are warnings, as at the top level; a value
// of the wrong type is an *Error naming profiles.NAME.key.
func parseProfiles(path string, data []byte, off int, raw json.RawMessage) (map[string]Profile, []string, error) {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return map[string]Profile{}, nil, nil
	}
	var objects map[string]json.RawMessage
	if err := json.Unmarshal(raw, &objects); err != nil {
		line, col := position(data, off)
		return nil, nil, &Error{Path: path, Key: "profiles", Line: line, Column: col,
			Reason: "must be an object of profiles, e.g. {\"local\": {\"model\": \"qwen3-coder\"}}, got " + describeValue(raw)}
	}
	profiles := make(map[string]Profile, len(objects))
	var warnings []string
	for _, name := range slices.Sorted(maps.Keys(objects)) {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(objects[name], &fields); err != nil {
			return nil, nil, &Error{Path: path, Key: "profiles." + name, Reason: "must be an object of settings, got " + describeValue(objects[name])}
		}
		for _, key := range slices.Sorted(maps.Keys(fields)) {
			if !slices.Contains(profileKeys, key) {
				warnings = append(warnings, fmt.Sprintf("%s: profile %q: unknown key %q ignored (a profile may set %s)",
					path, name, key, strings.Join(profileKeys, ", ")))
				delete(fields, key)
			}
		}
		var p Profile
		for key, value := range fields {
			one, _ := json.Marshal(map[string]json.RawMessage{key: value})
			if err := json.Unmarshal(one, &p); err != nil {
				return nil, nil, &Error{Path: path, Key: "profiles." + name + "." + key, Reason: profileTypeReason(key, value)}
			}
		}
		profiles[name] = p
	}
	return profiles, warnings, nil
}

func profileTypeReason(key string, value json.RawMessage) string {
	want := "a string"
	switch key {
	case "maxContextTokens", "maxTokens":
		want = "an integer"
	case "temperature":
		want = "a number"
	case "extraBody":
		want = "an object"
	}
	return fmt.Sprintf("must be %s, got %s", want, describeValue(value))
}

// validateProfiles checks what can be checked of every profile, active or
// not, so that a mistake shows before the day it is switched to.
func validateProfiles(profiles map[string]Profile) (key, reason string) {
	for _, name := range slices.Sorted(maps.Keys(profiles)) {
		p := profiles[name]
		if p.Thinking != nil && !validThinking(*p.Thinking) {
			return "profiles." + name + ".thinking", thinkingReason(*p.Thinking)
		}
		if p.Constrain != nil && !validConstrain(*p.Constrain) {
			return "profiles." + name + ".constrain", constrainReason(*p.Constrain)
		}
		if k := ownedKey(p.ExtraBody); k != "" {
			return "profiles." + name + ".extraBody", ownedReason(k)
		}
	}
	return "", ""
}

// applyProfile lays the active profile over cfg: --profile, else
// DEV_PROFILE, else the file's `profile`. It returns the keys the profile
// set; an unknown profile is an *Error naming the known ones.
func applyProfile(cfg *Config, path string, env Env, flags Flags) (map[string]bool, error) {
	name, source := cfg.Profile, path
	if v := strings.TrimSpace(env("DEV_PROFILE")); v != "" {
		name, source = v, "DEV_PROFILE"
	}
	if flags.Profile != "" {
		name, source = flags.Profile, "--profile"
	}
	cfg.Profile = name
	if name == "" {
		return nil, nil
	}
	p, ok := cfg.Profiles[name]
	if !ok {
		known := "there are none in " + path
		if len(cfg.Profiles) > 0 {
			known = "the profiles are: " + strings.Join(slices.Sorted(maps.Keys(cfg.Profiles)), ", ")
		}
		e := &Error{Path: source, Reason: fmt.Sprintf("no profile %q; %s", name, known)}
		if source == path {
			e.Key = "profile"
		}
		return nil, e
	}
	set := map[string]bool{}
	setString := func(key string, dst *string, v *string) {
		if v != nil {
			*dst, set[key] = *v, true
		}
	}
	setString("apiUrl", &cfg.APIURL, p.APIURL)
	setString("apiKey", &cfg.APIKey, p.APIKey)
	setString("model", &cfg.Model, p.Model)
	setString("auditModel", &cfg.AuditModel, p.AuditModel)
	setString("compressModel", &cfg.CompressModel, p.CompressModel)
	setString("thinking", &cfg.Thinking, p.Thinking)
	setString("constrain", &cfg.Constrain, p.Constrain)
	if p.MaxContextTokens != nil {
		cfg.MaxContextTokens, set["maxContextTokens"] = *p.MaxContextTokens, true
	}
	if p.Temperature != nil {
		cfg.Temperature, set["temperature"] = p.Temperature, true
	}
	if p.MaxTokens != nil {
		cfg.MaxTokens, set["maxTokens"] = p.MaxTokens, true
	}
	if len(p.ExtraBody) > 0 {
		merged := maps.Clone(cfg.ExtraBody)
		if merged == nil {
			merged = map[string]any{}
		}
		maps.Copy(merged, p.ExtraBody) // the profile's value of a key wins
		cfg.ExtraBody, set["extraBody"] = merged, true
	}
	return set, nil
}

func validThinking(s string) bool {
	switch s {
	case ThinkingAuto, ThinkingOff, ThinkingLow, ThinkingMedium, ThinkingHigh:
		return true
	}
	return false
}

func validConstrain(s string) bool {
	switch s {
	case ConstrainAuto, ConstrainOn, ConstrainJSON, ConstrainOff:
		return true
	}
	return false
}

func constrainReason(s string) string {
	return fmt.Sprintf("must be one of auto, on, json, off, got %q", s)
}

func thinkingReason(s string) string {
	return fmt.Sprintf("must be one of auto, off, low, medium, high, got %q", s)
}

// ownedKey is the first key of body that dev writes itself, "" for none.
func ownedKey(body map[string]any) string {
	for _, k := range strings.Split(ownedBodyKeys, ", ") {
		if _, ok := body[k]; ok {
			return k
		}
	}
	return ""
}

func ownedReason(key string) string {
	return fmt.Sprintf("may not set %q: dev writes %s itself", key, ownedBodyKeys)
}
