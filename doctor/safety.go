package doctor

import (
	"fmt"
	"strings"
)

// Safety is what the safety check reports (SPEC §13): the settings, and
// what the OS can enforce of the sandbox.
type Safety struct {
	Approval string // auto, edits, ask, plan
	Sandbox  string // off, workspace
	// SandboxNetwork is the sandboxNetwork setting for people: "all", or
	// the open TCP ports ("" for none).
	SandboxNetwork string
	// SandboxFiles: the OS can enforce the sandbox (its writes); without
	// it, sandbox workspace does not start. SandboxWhy says what it
	// enforces ("Landlock ABI 7: files, network, signals") or why not.
	SandboxFiles bool
	SandboxWhy   string
	// SandboxMissing lists, in words, what it cannot confine here that
	// the settings ask for (the network, signals); a warning.
	SandboxMissing []string
	Redact         bool
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
	case s.Sandbox == "workspace" && !s.SandboxFiles:
		c.Status = Fail
		parts = append(parts, "sandbox workspace, but the OS cannot enforce it ("+s.SandboxWhy+"): dev will not start")
		c.Fix = "set sandbox to off in " + d.cfg.File + " (or run on Linux 5.13 or later with Landlock enabled)"
	case s.Sandbox == "workspace":
		network := "network closed"
		switch s.SandboxNetwork {
		case "all":
			network = "network open"
		case "":
		default:
			network = "network closed but TCP ports " + s.SandboxNetwork
		}
		parts = append(parts, "sandbox workspace ("+s.SandboxWhy+"; "+network+")")
		if len(s.SandboxMissing) > 0 {
			c.Status = Warn
			parts = append(parts, "the sandbox does not confine "+strings.Join(s.SandboxMissing, "; nor "))
			c.Fix = "a newer Linux kernel confines more (Landlock ABI 4, Linux 6.7: TCP ports; ABI 6, Linux 6.12: signals)"
		}
	case s.SandboxFiles:
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
