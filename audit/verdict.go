package audit

import (
	"regexp"
	"strings"

	"github.com/devagent/dev/textfmt"
)

// Verdict is the outcome of an audit.
type Verdict string

// Verdicts.
const (
	Pass Verdict = "PASS"
	Fail Verdict = "FAIL"
)

// verdictLine finds "Overall: PASS" and its variants: any case, markdown
// emphasis or a table cell between the words ("**Overall:** fail",
// "| Overall | PASS |"), and "Overall verdict/result/status".
var verdictLine = regexp.MustCompile(`(?i)\boverall(?:\s+(?:verdict|result|status|assessment))?[^a-z0-9\n]{0,8}(pass|fail)(?:ed)?\b`)

// ParseVerdict reads the verdict of an audit report; the last one wins, as
// an auditor may quote the format before giving its own.
func ParseVerdict(report string) (Verdict, bool) {
	all := verdictLine.FindAllStringSubmatch(report, -1)
	if len(all) == 0 {
		return "", false
	}
	return Verdict(strings.ToUpper(all[len(all)-1][1])), true
}

// FeedbackLine is the most telling line of an audit report: the first
// after its verdict line, where auditors say what to fix; the verdict line
// when nothing follows it; the report's first line when it has no verdict.
func FeedbackLine(report string) string {
	lines := strings.Split(strings.TrimSpace(report), "\n")
	for i, l := range lines {
		if _, ok := ParseVerdict(l); ok {
			for _, next := range lines[i+1:] {
				if strings.TrimSpace(next) != "" {
					return strings.TrimSpace(next)
				}
			}
			return strings.TrimSpace(l)
		}
	}
	return textfmt.FirstLine(report)
}
