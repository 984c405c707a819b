package step

import (
	"strings"
	"unicode/utf8"

	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/textfmt"
)

// CutError is a reply that ran to its output limit: Limit tokens, set by
// maxTokens (Configured) or by the default cap of SPEC §18. Message is the
// format error told to the model. It is a *parser.FormatError to errors.As.
type CutError struct {
	Limit      int
	Configured bool
	Message    string
}

func (e *CutError) Error() string { return e.Message }

// As makes a CutError a *parser.FormatError: one the model can fix.
func (e *CutError) As(target any) bool {
	if fe, ok := target.(**parser.FormatError); ok {
		*fe = &parser.FormatError{Message: e.Message}
		return true
	}
	return false
}

// Sizes of a rejected reply's glimpse.
const (
	glimpseLines = 3   // lines from each end
	glimpseWidth = 200 // runes of each line
)

// Glimpse is what a rejected reply shows of itself: its first and last
// lines that are not blank (tail empty when head holds them all), each
// clipped, and its number of lines. Reasoning is left out: it is never
// shown unless asked for. Linear in the reply, whatever its size.
func Glimpse(reply string) (head, tail []string, lines int) {
	content, _ := parser.StripThinking(reply)
	content = strings.Trim(content, "\n")
	if strings.TrimSpace(content) == "" {
		return nil, nil, 0
	}
	lines = strings.Count(content, "\n") + 1
	var all []int // starts of the non-blank lines seen from the front, up to 2×glimpseLines
	for i := 0; i < len(content) && len(head) < glimpseLines; {
		end := strings.IndexByte(content[i:], '\n')
		if end < 0 {
			end = len(content) - i
		}
		if line := content[i : i+end]; strings.TrimSpace(line) != "" {
			head = append(head, clipLine(line))
			all = append(all, i)
		}
		i += end + 1
	}
	headEnd := 0
	if len(all) > 0 {
		headEnd = all[len(all)-1]
	}
	for end := len(content); end > headEnd && len(tail) < glimpseLines; {
		start := strings.LastIndexByte(content[:end], '\n') + 1
		if start <= headEnd {
			break
		}
		if line := content[start:end]; strings.TrimSpace(line) != "" {
			tail = append([]string{clipLine(line)}, tail...)
		}
		end = max(start-1, 0)
	}
	return head, tail, lines
}

func clipLine(line string) string {
	line = strings.TrimRight(line, " \t\r")
	if len(line) > 4*glimpseWidth {
		cut := 4 * glimpseWidth // Clip counts runes: not over megabytes
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line = line[:cut]
	}
	return textfmt.Clip(line, glimpseWidth)
}
