package mcp

import (
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

func sdkTool(name string, schema any) *sdk.Tool { return &sdk.Tool{Name: name, InputSchema: schema} }
