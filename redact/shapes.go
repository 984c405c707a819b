package redact

import (
	"strings"
)

// shape is a well-known token format. It is found from its fixed start
// (hints, located with strings.Index), then measured by a matcher that
// reads a bounded run of bytes, so the whole scan stays linear.
type shape struct {
	kind  string
	hints []string
	// match returns the length of the token that starts s (with one of
	// the hints), or 0.
	match func(s string) int
}

// Byte classes of token bodies.
const (
	alnum   = "A-Za-z0-9"
	upperNo = "A-Z0-9"
	word    = "A-Za-z0-9_"
	dashed  = "A-Za-z0-9_-" // also base64url
	slack   = "A-Za-z0-9-"
	hookURL = "A-Za-z0-9_/-"
)

// body matches a hint (of hintLen bytes) followed by at least minRun bytes
// of class; exact, when set, is the only run length accepted.
func body(hintLen int, class string, minRun, exact int) func(string) int {
	return func(s string) int {
		n := run(s, hintLen, class)
		if n < minRun || exact > 0 && n != exact {
			return 0
		}
		return hintLen + n
	}
}

// run counts the bytes of class from s[i].
func run(s string, i int, class string) int {
	n := 0
	for i+n < len(s) && inClass(s[i+n], class) {
		n++
	}
	return n
}

func inClass(c byte, class string) bool {
	switch {
	case c >= '0' && c <= '9':
		return true
	case c >= 'A' && c <= 'Z':
		return true
	case c >= 'a' && c <= 'z':
		return class != upperNo
	case c == '_':
		return class == word || class == dashed || class == hookURL
	case c == '-':
		return class == dashed || class == slack || class == hookURL
	case c == '/':
		return class == hookURL
	}
	return false
}

// jwtMatch matches header.payload.signature, header and payload being
// base64url JSON objects (eyJ is `{"`).
func jwtMatch(s string) int {
	i := 3 + run(s, 3, dashed)
	if i < 3+8 || i >= len(s) || s[i] != '.' || !strings.HasPrefix(s[i+1:], "eyJ") {
		return 0
	}
	j := i + 4 + run(s, i+4, dashed)
	if j < i+4+8 || j >= len(s) || s[j] != '.' {
		return 0
	}
	return j + 1 + run(s, j+1, dashed)
}

// shapes are the token formats of SPEC §13, most specific first (an
// Anthropic key also looks like an OpenAI one).
var shapes = []shape{
	{kind: "aws-access-key-id", hints: []string{"AKIA", "ASIA", "ABIA", "ACCA"}, match: body(4, upperNo, 16, 16)},
	{kind: "aws-access-key-id", hints: []string{"A3T"}, match: body(3, upperNo, 17, 17)},
	{kind: "github-token", hints: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, match: body(4, alnum, 36, 0)},
	{kind: "github-token", hints: []string{"github_pat_"}, match: body(len("github_pat_"), word, 22, 0)},
	{kind: "gitlab-token", hints: []string{"glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glcbt-", "glimt-", "glsoat-", "gloas-", "glagent-"}, match: func(s string) int {
		dash := strings.IndexByte(s, '-')
		return body(dash+1, dashed, 20, 0)(s)
	}},
	{kind: "slack-token", hints: []string{"xoxb-", "xoxa-", "xoxp-", "xoxo-", "xoxr-", "xoxs-", "xoxe-", "xapp-"}, match: body(5, slack, 10, 0)},
	{kind: "slack-webhook", hints: []string{"hooks.slack.com/services/"}, match: body(len("hooks.slack.com/services/"), hookURL, 20, 0)},
	{kind: "anthropic-key", hints: []string{"sk-ant-"}, match: body(len("sk-ant-"), dashed, 20, 0)},
	{kind: "openai-key", hints: []string{"sk-"}, match: body(3, dashed, 20, 0)},
	{kind: "google-api-key", hints: []string{"AIza"}, match: body(4, dashed, 35, 35)},
	{kind: "jwt", hints: []string{"eyJ"}, match: jwtMatch},
}

// tokenByte reports whether c can continue a token: a match must not
// start or end inside a longer word (`task-…` is no `sk-…` key).
func tokenByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func (sh shape) redact(s string) string {
	var b strings.Builder
	changed := false
	done := 0 // s[:done] is in b once changed
	// next[h] is where hint h occurs next at or after the scan position
	// (len(s) when it does not): each hint's occurrences are searched for
	// once, whatever the others do.
	next := make([]int, len(sh.hints))
	for h := range next {
		next[h] = -1
	}
	for i := 0; i < len(s); {
		at := len(s)
		for h, hint := range sh.hints {
			if next[h] < i {
				if j := strings.Index(s[i:], hint); j >= 0 {
					next[h] = i + j
				} else {
					next[h] = len(s)
				}
			}
			at = min(at, next[h])
		}
		if at == len(s) {
			break
		}
		n := sh.match(s[at:])
		end := at + n
		if n == 0 || (at > 0 && tokenByte(s[at-1])) || (end < len(s) && tokenByte(s[end])) {
			i = at + 1
			continue
		}
		if !changed {
			changed = true
			b.Grow(len(s))
		}
		b.WriteString(s[done:at])
		b.WriteString(Marker + sh.kind + "]")
		done, i = end, end
	}
	if !changed {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// PEM private keys (RSA, EC, OPENSSH, ENCRYPTED, PGP … PRIVATE KEY): from
// the BEGIN marker to the END marker, also inside a line (a JSON string
// with \n escapes). A block whose END was cut off (long output keeps its
// head and tail) is masked to the end of the text; an END whose BEGIN was
// cut off is masked with the base64 lines before it.
const (
	pemKey  = "PRIVATE KEY"
	pemDash = "-----"
	pemKind = Marker + "private-key]"
)

func redactPEM(s string) string {
	if !strings.Contains(s, pemKey) {
		return s
	}
	var b strings.Builder
	changed := false
	done := 0
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], pemKey)
		if j < 0 {
			break
		}
		k := i + j
		i = k + len(pemKey)
		markEnd := markerEnd(s, i)
		start, begin, ok := markerStart(s, k)
		if markEnd < 0 || !ok || start < done {
			continue
		}
		end := markEnd
		if begin {
			end = len(s)
			if e := strings.Index(s[markEnd:], pemDash+"END "); e >= 0 {
				if f := strings.Index(s[markEnd+e+len(pemDash):], pemDash); f >= 0 {
					end = markEnd + e + len(pemDash) + f + len(pemDash)
				}
			}
		} else {
			for start > done && isBase64Line(s[:start]) {
				start = strings.LastIndexByte(s[:start-1], '\n') + 1
			}
		}
		changed = true
		b.WriteString(s[done:start])
		b.WriteString(pemKind)
		done, i = end, end
	}
	if !changed {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// markerEnd returns where a PEM marker ends after "PRIVATE KEY" at i
// (" BLOCK" for PGP, then the dashes), or -1.
func markerEnd(s string, i int) int {
	if strings.HasPrefix(s[i:], " BLOCK") {
		i += len(" BLOCK")
	}
	if !strings.HasPrefix(s[i:], pemDash) {
		return -1
	}
	return i + len(pemDash)
}

// markerStart finds the "-----BEGIN " or "-----END " that opens the marker
// whose "PRIVATE KEY" is at k, with only the key type (capitals, digits,
// spaces) in between.
func markerStart(s string, k int) (start int, begin, ok bool) {
	p := k
	for p > 0 && k-p < 40 && (s[p-1] == ' ' || s[p-1] >= 'A' && s[p-1] <= 'Z' || s[p-1] >= '0' && s[p-1] <= '9') {
		p--
	}
	for _, word := range []string{"BEGIN ", "END "} {
		if q := strings.Index(s[p:k+1], word); q == 0 && p >= len(pemDash) && s[p-len(pemDash):p] == pemDash {
			return p - len(pemDash), word == "BEGIN ", true
		}
	}
	return 0, false, false
}

// isBase64Line reports whether the line that ends s (with its newline) is
// PEM body: base64 only.
func isBase64Line(s string) bool {
	s = strings.TrimRight(s, "\r\n")
	line := s[strings.LastIndexByte(s, '\n')+1:]
	if line == "" {
		return false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}
