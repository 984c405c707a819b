package loop

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/devagent/dev/audit"
	"github.com/devagent/dev/event"
	"github.com/devagent/dev/history"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/sessions"
	"github.com/devagent/dev/tools"
)

// The audit of a DONE: the evidence collected along the way, and the review
// that accepts the DONE or sends the auditor's feedback back to the worker.

// maxEvidence bounds the files and commands listed to the auditor.
const maxEvidence = 50

// collectEvidence remembers what the worker wrote and ran, for the audit.
func (r *run) collectEvidence(results []tools.Result) {
	for _, res := range results {
		for _, f := range res.Files {
			if !slices.Contains(r.files, f) {
				r.files = append(r.files, f)
			}
		}
		if res.Command != "" {
			r.commands = append(r.commands, audit.Command{Command: res.Command, ExitCode: res.ExitCode})
		}
	}
}

// review has a DONE audited. It reports whether the run ends, and how; after
// a failed audit the auditor's feedback is the DONE's result in history and
// the work goes on.
func (r *run) review(ctx context.Context, resp parser.Response, results []tools.Result) (Outcome, bool) {
	summary := results[len(results)-1].Output
	switch {
	case r.Auditor == nil:
		return Outcome{Stop: Done, Summary: summary, Audit: event.AuditOff}, true
	case r.AuditOnlyChanges && !r.changed():
		return Outcome{Stop: Done, Summary: summary, Audit: event.AuditSkipped}, true
	}
	r.emit(event.AuditStarted{})
	res, err := r.Auditor.Audit(ctx, r.auditInput(summary))
	// What the audit spent counts however it ended.
	r.sess.TotalTokens += res.Tokens
	r.sess.Requests = append(r.sess.Requests, res.Requests...)
	switch {
	case ctx.Err() != nil:
		r.conv.Append(history.InterruptedAudit())
		r.interruptNoted = true
		return Outcome{Stop: Interrupted}, true
	case errors.Is(err, audit.ErrFormat):
		return Outcome{Stop: FormatFailed, Err: err}, true
	case err != nil:
		return Outcome{Stop: Failed, Err: fmt.Errorf("audit: %w", err)}, true
	}
	r.out.Audits++
	// The DONE is the last message: its results are not in the history yet.
	r.sess.Audits = append(r.sess.Audits, sessions.Audit{
		Timestamp: r.now().UTC(), Steps: res.Steps, Verdict: string(res.Verdict), Feedback: res.Feedback,
		Reply: len(r.sess.History) - 1, CompressionCount: r.sess.CompressionCount})
	r.emit(event.AuditFinished{Verdict: string(res.Verdict), Feedback: res.Feedback, Steps: res.Steps})
	if res.Verdict == audit.Pass {
		return Outcome{Stop: Done, Summary: summary, Audit: event.AuditPassed}, true
	}
	r.auditFailures++
	done := &results[len(results)-1]
	done.OK, done.Done = false, false
	done.Output = history.AuditRejection(res.Feedback)
	r.conv.Append(history.Results(resp.Tools, tools.Held(results), ""))
	if r.auditFailures >= r.MaxAuditFailures {
		return Outcome{Stop: AuditFailed}, true
	}
	return Outcome{}, false
}

// changed reports whether the request wrote files with the file tools or
// ran a command (which may have changed anything): what the audit policy
// "changes" audits.
func (r *run) changed() bool {
	return len(r.files) > 0 || len(r.commands) > 0
}

func (r *run) auditInput(summary string) audit.Input {
	return audit.Input{Request: r.conv.Current, Original: r.sess.OriginalPrompt, Summary: summary,
		Tasks: r.sess.TaskList, Files: lastN(r.files, maxEvidence), Commands: lastN(r.commands, maxEvidence)}
}

// lastN keeps the last n items: the latest work matters most to an audit.
func lastN[T any](items []T, n int) []T {
	return items[max(0, len(items)-n):]
}
