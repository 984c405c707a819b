package llm

import "strings"

// continueContent opens a history that would otherwise start with an
// assistant turn: strict templates require the first turn to be the user's.
const continueContent = "(continue)"

// Normalize returns msgs as strict chat templates accept them: the system
// message(s) first and merged into one, then strictly alternating user and
// assistant turns starting with user (consecutive same-role messages merged
// with a blank line), and no empty messages.
//
// Choices where the input gives no clear answer: a system message found
// later in the history is moved into the leading one (strict templates
// reject it anywhere else); a role other than system or assistant counts as
// user; a message whose content is only whitespace is dropped; and a history
// whose first turn is the assistant's gets a user message "(continue)"
// before it, the one message Normalize ever adds, because dropping the
// assistant turn would lose history. The input slice is not modified.
func Normalize(msgs []Message) []Message {
	var system []string
	var turns []Message
	for _, m := range msgs {
		if strings.TrimSpace(m.Content) == "" {
			continue
		}
		role := strings.ToLower(m.Role)
		switch role {
		case RoleSystem:
			system = append(system, m.Content)
			continue
		case RoleAssistant:
		default:
			role = RoleUser
		}
		if n := len(turns); n > 0 && turns[n-1].Role == role {
			turns[n-1].Content += "\n\n" + m.Content
			continue
		}
		turns = append(turns, Message{Role: role, Content: m.Content})
	}
	out := make([]Message, 0, len(turns)+2)
	if len(system) > 0 {
		out = append(out, Message{Role: RoleSystem, Content: strings.Join(system, "\n\n")})
	}
	if len(turns) > 0 && turns[0].Role == RoleAssistant {
		out = append(out, Message{Role: RoleUser, Content: continueContent})
	}
	return append(out, turns...)
}
