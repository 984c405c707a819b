package prompts

// Audit is everything the auditor's system prompt is built from.
type Audit struct {
	Dir   string
	Tools []Tool
}

// Render returns the auditor's system prompt.
func (a Audit) Render() string {
	return render("audit.md", a)
}

// AuditCommand is a command the worker ran.
type AuditCommand struct {
	Command  string
	ExitCode int
}

// AuditRequest is what the auditor is asked to check.
type AuditRequest struct {
	Request  string   // the request the worker answered with DONE
	Original string   // the session's first request, when it differs
	Tasks    []string // the worker's final task list, one "[x] text" line each
	Summary  string   // the worker's DONE summary
	Files    []string // written or edited
	Commands []AuditCommand
}

// Render returns the auditor's first message.
func (a AuditRequest) Render() string {
	return render("audit_request.md", a)
}
