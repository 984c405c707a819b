package config

// Default returns the configuration of SPEC §7. Each call returns fresh
// slices and maps, so callers may modify the result.
func Default() Config {
	return Config{
		APIURL:                 "http://localhost:8005/v1",
		APIKey:                 "",
		Model:                  "devstral-small-2507",
		AuditModel:             "",
		CompressModel:          "",
		MaxContextTokens:       131072,
		CompressThreshold:      0.85,
		CommandTimeout:         30,
		RequestTimeout:         300,
		MaxRetries:             3,
		MaxRetriesAutomated:    10,
		MaxLoops:               1000,
		MaxAuditFailures:       5,
		AuditCommands:          DefaultAuditCommands(),
		Audit:                  AuditChanges,
		SessionRetentionDays:   30,
		Checkpoints:            true,
		CheckpointMaxFileBytes: 10 << 20,
		WritableRoots:          []string{},
		DenyCommands:           []string{},
		DenyBuiltinCommands:    true,
		AllowCommands:          []string{},
		Approval:               ApprovalAuto,
		Sandbox:                SandboxOff,
		SandboxNetwork:         SandboxNetwork{Ports: []int{}},
		RedactSecrets:          true,
		Thinking:               ThinkingAuto,
		ExtraBody:              map[string]any{},
		Constrain:              ConstrainAuto,
		Profiles:               map[string]Profile{},
		Profile:                "",
		Prices:                 map[string]Price{},
		Tools:                  []CustomTool{},
		MCPServers:             map[string]MCPServer{},
	}
}

// DefaultAuditCommands is the audit's command allowlist of SPEC §4, in its
// order.
func DefaultAuditCommands() []string {
	return []string{
		"cat", "head", "tail", "ls", "dir", "tree", "wc", "grep",
		"git status", "git diff", "git log", "git show",
		"npm test", "npm run build",
		"go test", "go build", "go vet",
		"cargo test", "cargo build",
		"pytest", "python -m pytest",
		"make test",
	}
}
