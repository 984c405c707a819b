package doctor

import (
	"fmt"
	"strings"
)

// Safety is what the safety check reports (SPEC §13): the settings, and
// whether the OS can enforce the sandbox.
type Safety struct {
	Approval string // auto, edits, ask
	Sandbox  string // off, workspace
	// SandboxAvailable and SandboxWhy: whether the OS can enforce the
	// sandbox, and what it offers or lacks ("Landlock ABI 7").
	SandboxAvailable bool
	SandboxWhy       string
	Redact           bool
	// Secrets names the environment variables whose values are masked.
	Secrets []string
}

// safety reports the safety layers in force. It needs no server: it runs
// even when the server cannot be reached.
func (d *doctor) safety() {
	s := d.cfg.Safety
	c := Check{Name: CheckSafety, Status: OK}
	var parts []string
	switch {
	case s.Sandbox == "workspace" && !s.SandboxAvailable:
		c.Status = Fail
		parts = append(parts, "sandbox workspace, but the OS cannot enforce it ("+s.SandboxWhy+"): dev will not start")
		c.Fix = "set sandbox to off in " + d.cfg.File + " (or run on Linux 5.13 or later with Landlock enabled)"
	case s.Sandbox == "workspace":
		parts = append(parts, "sandbox workspace ("+s.SandboxWhy+")")
	case s.SandboxAvailable:
		parts = append(parts, "sandbox off (the OS offers it: "+s.SandboxWhy+")")
	default:
		parts = append(parts, "sandbox off (the OS cannot enforce one: "+s.SandboxWhy+")")
	}
	parts = append(parts, "approval "+s.Approval)
	switch {
	case !s.Redact:
		parts = append(parts, "secrets not redacted")
	case len(s.Secrets) == 0:
		parts = append(parts, "secrets redacted (token shapes; no secret environment variables)")
	default:
		parts = append(parts, fmt.Sprintf("secrets redacted (token shapes and %d environment variables: %s)", len(s.Secrets), strings.Join(s.Secrets, ", ")))
	}
	c.Detail = strings.Join(parts, "; ")
	d.set(c)
}
