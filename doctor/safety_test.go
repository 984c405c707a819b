package doctor_test

import (
	"context"
	"testing"

	"github.com/devagent/dev/doctor"
)

// The safety check says which of files, network and signals the OS
// sandbox enforces, and warns when the settings ask for more than it can.
func TestSafetySandbox(t *testing.T) {
	t.Parallel()
	full := "Landlock ABI 7: files, network, signals"
	for _, c := range []struct {
		name   string
		safety doctor.Safety
		status doctor.Status
		detail string
	}{
		{"enforced", doctor.Safety{Sandbox: "workspace", SandboxFiles: true, SandboxWhy: full},
			doctor.OK, "sandbox workspace (" + full + "; network closed)"},
		{"ports", doctor.Safety{Sandbox: "workspace", SandboxNetwork: "5432, 6379", SandboxFiles: true, SandboxWhy: full},
			doctor.OK, "sandbox workspace (" + full + "; network closed but TCP ports 5432, 6379)"},
		{"all", doctor.Safety{Sandbox: "workspace", SandboxNetwork: "all", SandboxFiles: true, SandboxWhy: full},
			doctor.OK, "sandbox workspace (" + full + "; network open)"},
		{"old kernel", doctor.Safety{Sandbox: "workspace", SandboxFiles: true, SandboxWhy: "Landlock ABI 3: files", SandboxMissing: []string{"the network", "signals"}},
			doctor.Warn, "sandbox workspace (Landlock ABI 3: files; network closed); the sandbox does not confine the network; nor signals"},
		{"none", doctor.Safety{Sandbox: "workspace", SandboxWhy: "Landlock is not available"},
			doctor.Fail, "sandbox workspace, but the OS cannot enforce it (Landlock is not available): dev will not start"},
		{"off", doctor.Safety{Sandbox: "off", SandboxFiles: true, SandboxWhy: full},
			doctor.OK, "sandbox off (the OS offers it: " + full + ")"},
	} {
		c.safety.Approval, c.safety.Redact = "auto", true
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // the safety check needs no server
		r := doctor.Run(ctx, doctor.Config{APIURL: "http://127.0.0.1:1/v1", Sends: sends(), File: configFile, Safety: c.safety})
		got := check(t, r, doctor.CheckSafety)
		want := c.detail + "; approval auto; secrets redacted (token shapes; no secret environment variables)"
		if got.Status != c.status || got.Detail != want {
			t.Errorf("%s: %s %q\nwant %s %q", c.name, got.Status, got.Detail, c.status, want)
		}
	}
}
