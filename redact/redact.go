// Package redact masks secrets in text before it reaches the model, a
// session file or --json (SPEC §13): the values of environment variables
// whose names say they are secret, the configured API key, and well-known
// token shapes. Each is replaced by [REDACTED:<kind>]. The caller applies
// it once, where tool output enters the conversation, so that every
// consumer sees the same masked text. Time is linear in the text's length
// (see the benchmarks); it keeps no global state.
//
// It catches secrets as they appear; a secret encoded (base64, URL
// escaping), split across lines or too short to be told from other text
// passes unmasked.
package redact

import (
	"cmp"
	"slices"
	"strings"
)

// Marker starts every placeholder.
const Marker = "[REDACTED:"

// MinValueLen is the shortest secret value that is masked, from the
// environment or the configured apiKey: shorter ones (on, 1, dev, the x or
// none that local servers accept as a key) would mask ordinary words and
// letters everywhere, and are no secret.
const MinValueLen = 8

// secretNames are the parts of an environment variable's name (any case)
// that make its value a secret.
var secretNames = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"}

// Redactor masks secrets. A nil *Redactor masks nothing (redactSecrets
// off). Safe for concurrent use.
type Redactor struct {
	literals *strings.Replacer // nil when there are no literal secrets
	names    []string          // the environment variables whose values are masked
}

// New returns a redactor for the secret values of environ (os.Environ
// form, NAME=value) and the configured API key (may be ""), each when it
// is MinValueLen characters or more, and the token shapes.
func New(environ []string, apiKey string) *Redactor {
	type secret struct{ value, kind string }
	var secrets []secret
	r := &Redactor{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !IsSecretName(name) {
			continue
		}
		value = strings.TrimSpace(value)
		if len(value) < MinValueLen {
			continue
		}
		secrets = append(secrets, secret{value, "$" + name})
		r.names = append(r.names, name)
	}
	if k := strings.TrimSpace(apiKey); len(k) >= MinValueLen {
		secrets = append(secrets, secret{k, "apiKey"})
	}
	// The longest value wins where values overlap (a value inside
	// another), and one value is masked once, by its first name.
	slices.SortStableFunc(secrets, func(a, b secret) int { return cmp.Compare(len(b.value), len(a.value)) })
	var pairs []string
	seen := map[string]bool{}
	for _, s := range secrets {
		if !seen[s.value] {
			seen[s.value] = true
			pairs = append(pairs, s.value, Marker+s.kind+"]")
		}
	}
	if len(pairs) > 0 {
		r.literals = strings.NewReplacer(pairs...)
	}
	slices.Sort(r.names)
	return r
}

// IsSecretName reports whether an environment variable's value is masked
// by its name.
func IsSecretName(name string) bool {
	upper := strings.ToUpper(name)
	for _, s := range secretNames {
		if strings.Contains(upper, s) {
			return true
		}
	}
	return false
}

// Names are the environment variables whose values are masked, sorted.
func (r *Redactor) Names() []string {
	if r == nil {
		return nil
	}
	return r.names
}

// Redact returns s with every secret replaced by its placeholder.
func (r *Redactor) Redact(s string) string {
	if r == nil || s == "" {
		return s
	}
	if r.literals != nil {
		s = r.literals.Replace(s)
	}
	s = redactPEM(s)
	for _, sh := range shapes {
		s = sh.redact(s)
	}
	return s
}
