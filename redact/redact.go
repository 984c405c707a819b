// Package redact masks secrets in text before it reaches the model, a
// session file, --json or the terminal (SPEC §13): the values of
// environment variables whose names say they are secret, the configured
// API key, and well-known token shapes. Each is replaced by
// [REDACTED:<kind>]. The caller applies it once, where tool output and
// the model's own text enter the conversation, so that every consumer
// sees the same masked text. Time is linear in the text's length (see the
// benchmarks); it keeps no global state.
//
// A secret value (from the environment or the API key) is also masked in
// the forms a command prints it in without meaning to: base64 (standard,
// with and without padding, and inside a longer base64 text at any of the
// three byte alignments), base64url, hex (lower and upper case), a JSON
// string and URL escaping. Other transformations (reversed, cut in parts,
// spaced out, case changed), a secret split across lines, and one too
// short to be told from other text pass unmasked. Writer masks a stream
// written to a file, Stream one shown as it comes.
package redact

import (
	"cmp"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
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
	literals *literals // nil when there are no literal secrets
	names    []string  // the environment variables whose values are masked
	// texts are the literal forms masked, longest first; longest is the
	// length of the first, and newline those that hold a line break:
	// what Writer must not cut.
	texts   []string
	longest int
	newline []string
	// byFirst lists, per first byte, the forms of texts starting with it,
	// and newlineByFirst those of newline: where a cut must not fall is
	// looked up by the byte there (clear).
	byFirst, newlineByFirst map[byte][]string
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
	var literals []secret
	for _, s := range secrets {
		for _, f := range forms(s.value) {
			literals = append(literals, secret{f.text, s.kind + f.name})
		}
	}
	// The longest form wins where forms overlap (a value inside another,
	// padded base64 around its unpadded core), and one text is masked
	// once, by its first name.
	slices.SortStableFunc(literals, func(a, b secret) int { return cmp.Compare(len(b.value), len(a.value)) })
	var marks []string
	seen := map[string]bool{}
	for _, s := range literals {
		if !seen[s.value] {
			seen[s.value] = true
			marks = append(marks, Marker+s.kind+"]")
			r.texts = append(r.texts, s.value)
			r.longest = max(r.longest, len(s.value))
			if strings.ContainsAny(s.value, "\n\r") {
				r.newline = append(r.newline, s.value)
			}
		}
	}
	if len(r.texts) > 0 {
		r.literals = newLiterals(r.texts, marks)
		r.byFirst, r.newlineByFirst = map[byte][]string{}, map[byte][]string{}
		for _, t := range r.texts {
			r.byFirst[t[0]] = append(r.byFirst[t[0]], t)
		}
		for _, t := range r.newline {
			r.newlineByFirst[t[0]] = append(r.newlineByFirst[t[0]], t)
		}
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
		s = r.literals.replace(s)
	}
	s = redactPEM(s)
	for _, sh := range shapes {
		s = sh.redact(s)
	}
	return s
}

// form is a way a secret value can appear in text.
type form struct {
	name string // added to the placeholder's kind: "" for the value itself
	text string
}

// forms are the texts that give a secret value away: the value itself,
// its base64 and base64url encodings, hex, and its escaped forms in a JSON
// string and in a URL.
//
// In a longer base64 text the value's bytes can start at any of the three
// byte positions of a 3-byte group: for each alignment k (0, 1, 2), the
// characters that encode only the value's own bits are masked, those that
// mix in the bytes before (the first ceil(8k/6)) or after it (past
// floor(8(k+n)/6)) are not: they differ with the surrounding text.
func forms(v string) []form {
	out := []form{{"", v}}
	add := func(name, text string) {
		if text != v && len(text) >= MinValueLen {
			out = append(out, form{name, text})
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		name := " base64"
		if enc == base64.URLEncoding {
			name = " base64url"
		}
		add(name, enc.EncodeToString([]byte(v)))
		add(name, enc.WithPadding(base64.NoPadding).EncodeToString([]byte(v)))
		for k := 0; k < 3; k++ {
			text := enc.EncodeToString(append(make([]byte, k), v...))
			from, to := (8*k+5)/6, 8*(k+len(v))/6
			add(name, text[from:to])
		}
	}
	add(" hex", hex.EncodeToString([]byte(v)))
	add(" hex", strings.ToUpper(hex.EncodeToString([]byte(v))))
	if quoted, err := json.Marshal(v); err == nil {
		inner := string(quoted[1 : len(quoted)-1])
		add(" json", inner)
		add(" json", strings.ReplaceAll(inner, "/", `\/`)) // the escaping of PHP and others
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if enc.Encode(v) == nil {
			add(" json", strings.TrimSuffix(strings.TrimSpace(b.String()), `"`)[1:])
		}
	}
	add(" url", url.QueryEscape(v))
	add(" url", url.PathEscape(v))
	return out
}
