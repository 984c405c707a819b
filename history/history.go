// Package history is the vocabulary of a conversation's history: a
// constructor for every kind of message dev writes into it (the user's
// request, an accepted reply or a failed attempt, the tools' results, the
// summary that replaces a compressed history, an interruption, a command
// the user ran, a format error) and one reader, Read, that tells them
// apart and gives back their parts. No other package matches message text.
//
// The bytes a constructor writes never change: sessions written by older
// versions are read and resumed by newer ones, and a server's prompt cache
// reuses a conversation's prefix only while its messages stay the same,
// byte for byte (testdata/messages.golden pins them).
package history

import (
	"strings"

	"github.com/devagent/dev/llm"
	"github.com/devagent/dev/parser"
	"github.com/devagent/dev/prompts"
)

// The texts that mark each kind of message.
const (
	requestOpen  = "<user_request>\n"
	requestClose = "\n</user_request>"
	// requestTag is how a request starts, read back leniently: histories
	// of older versions, and hand-written ones, need not break the line.
	requestTag = "<user_request>"
	requestEnd = "</user_request>"
	// planTag starts what follows a request worked on in plan mode
	// (prompts.PlanMode).
	planTag     = "<plan_mode>"
	shellNote   = "The user ran a command in the working directory, for you to know:\n"
	formatError = "Your reply could not be used: "
	emptyReply  = "(empty reply)"

	interruptedStep  = "The user interrupted this step."
	interruptedReply = "The user interrupted the request before the reply was complete."
	interruptedAudit = "The user interrupted the audit of your DONE."
)

// Request is the user's message that asks for work: the request in
// <user_request> tags, so the model can tell it from tool data.
func Request(text string) llm.Message {
	return user(requestOpen + strings.TrimSpace(text) + requestClose)
}

// PlanRequest is a request worked on in plan mode (SPEC §17): the request
// as Request writes it, then what plan mode lets the model do, commands
// being the read-only commands it may run (prompts.PlanMode).
func PlanRequest(text string, commands []string) llm.Message {
	return user(requestOpen + strings.TrimSpace(text) + requestClose + "\n\n" + strings.TrimSpace(prompts.PlanMode(commands)))
}

// Reply is the assistant's message of an accepted reply: only its
// normalised template, never the text around it or its reasoning.
func Reply(resp parser.Response) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: resp.Template()}
}

// Attempt is the assistant's message of a reply that could not be used,
// kept (reasoning removed) until a reply parses so the model sees what it
// wrote; an empty one is said to be empty, as a chat template refuses an
// empty message.
func Attempt(content string) llm.Message {
	if strings.TrimSpace(content) == "" {
		content = emptyReply
	}
	return llm.Message{Role: llm.RoleAssistant, Content: content}
}

// FormatError tells the model why its reply could not be used; with
// reminder, the outline of the template follows (not when the example
// exchange shows the template: small models copy the outline's
// placeholders).
func FormatError(problem string, reminder bool) llm.Message {
	if reminder {
		return user(formatError + problem + "\n\n" + prompts.FormatReminder())
	}
	return user(formatError + problem)
}

// InterruptedReply tells the model the user interrupted the request while
// it was replying: the reply is not in the history.
func InterruptedReply() llm.Message { return user(interruptedReply) }

// InterruptedAudit tells the model the user interrupted the audit of its
// DONE: the work was not accepted.
func InterruptedAudit() llm.Message { return user(interruptedAudit) }

// Shell brings a command the user ran (the ! escape) and its result into
// the conversation, for the model to know at its next request: the
// command is an attribute of the result ("" adds none, as versions before
// it wrote).
func Shell(command string, result ToolResult) llm.Message {
	if command != "" {
		result.Attrs = append([][2]string{{shellCommand, command}}, result.Attrs...)
	}
	return user(shellNote + result.wrap())
}

// shellCommand is the attribute of a Shell result that holds the command.
const shellCommand = "command"

func user(content string) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: content}
}
