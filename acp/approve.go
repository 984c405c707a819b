package acp

import (
	"context"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/devagent/dev/app"
)

// The options of a permission request (SPEC §13's y, a and n).
const (
	optionAllow  = "allow"
	optionAlways = "always"
	optionReject = "reject"
)

// approve asks the editor, through session/request_permission, about an
// action the approval mode asks about: the tool call running, with the
// command, or the file's old and new text. Allow once, allow always (this
// exact command, or changes to this file, for the rest of the session) or
// reject. A prompt cancelled meanwhile is the question interrupted.
func (v *view) approve(ctx context.Context, q app.Approval) (app.Answer, error) {
	act := q.Action
	v.mu.Lock()
	c := v.tool
	if c == nil { // not the worker's tool (none asks now): a call of its own
		c = v.startCall(act.Tool, act.Tool, kindOf(act.Tool), nil, nil)
		v.tool = c
	}
	id := v.id
	v.mu.Unlock()

	always := "Always allow this command"
	var content []sdk.ToolCallContent
	switch {
	case act.MCP:
		always = "Always allow this call"
		content = append(content, sdk.ToolContent(sdk.TextBlock(fenced(act.Input))))
	case act.Command != "":
		content = append(content, sdk.ToolContent(sdk.TextBlock(fenced(act.Command))))
	default:
		always = "Always allow changes to " + act.Path
		if act.Existed {
			content = append(content, sdk.ToolDiffContent(act.Abs, act.New, act.Old))
		} else {
			content = append(content, sdk.ToolDiffContent(act.Abs, act.New))
		}
	}
	status := sdk.ToolCallStatusPending
	req := sdk.RequestPermissionRequest{
		SessionId: id,
		ToolCall: sdk.ToolCallUpdate{ToolCallId: c.id, Title: sdk.Ptr(c.title), Kind: sdk.Ptr(c.kind), Status: &status,
			Locations: c.locations, Content: content},
		Options: []sdk.PermissionOption{
			{OptionId: optionAllow, Name: "Allow", Kind: sdk.PermissionOptionKindAllowOnce},
			{OptionId: optionAlways, Name: always, Kind: sdk.PermissionOptionKindAllowAlways},
			{OptionId: optionReject, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
		},
	}
	resp, err := v.conn.RequestPermission(ctx, req)
	switch {
	case ctx.Err() != nil:
		return app.Answer{}, ctx.Err()
	case err != nil:
		return app.Answer{}, fmt.Errorf("the editor did not answer: %w", err)
	case resp.Outcome.Selected == nil: // the editor cancelled the question: the turn is being cancelled
		return app.Answer{}, context.Canceled
	}
	var answer app.Answer
	switch resp.Outcome.Selected.OptionId {
	case optionAllow:
		answer = app.Answer{Allow: true}
	case optionAlways:
		answer = app.Answer{Allow: true, Always: true}
	default:
		return app.Answer{}, nil // rejected
	}
	v.mu.Lock()
	v.send(sdk.UpdateToolCall(c.id, sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress)))
	v.mu.Unlock()
	return answer, nil
}
