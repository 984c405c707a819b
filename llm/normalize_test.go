package llm

import (
	"reflect"
	"testing"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	sys := func(c string) Message { return Message{Role: RoleSystem, Content: c} }
	user := func(c string) Message { return Message{Role: RoleUser, Content: c} }
	asst := func(c string) Message { return Message{Role: RoleAssistant, Content: c} }
	cases := []struct {
		name string
		in   []Message
		want []Message
	}{
		{"empty", nil, []Message{}},
		{"already strict", []Message{sys("s"), user("u"), asst("a"), user("u2")}, []Message{sys("s"), user("u"), asst("a"), user("u2")}},
		{"no system", []Message{user("u"), asst("a")}, []Message{user("u"), asst("a")}},
		{"only system", []Message{sys("s")}, []Message{sys("s")}},
		{"systems merged and moved first", []Message{sys("s1"), user("u"), sys("s2"), asst("a")}, []Message{sys("s1\n\ns2"), user("u"), asst("a")}},
		{"consecutive users merged", []Message{user("a"), user("b"), user("c")}, []Message{user("a\n\nb\n\nc")}},
		{"consecutive assistants merged", []Message{user("u"), asst("a"), asst("b")}, []Message{user("u"), asst("a\n\nb")}},
		{"empty and blank dropped", []Message{sys(""), user("u"), asst("  \n"), user("v")}, []Message{user("u\n\nv")}},
		{"empty between same roles merges them", []Message{user("u"), asst(""), user("v"), asst("a")}, []Message{user("u\n\nv"), asst("a")}},
		{"leading assistant gets a user turn", []Message{sys("s"), asst("a"), user("u")}, []Message{sys("s"), user("(continue)"), asst("a"), user("u")}},
		{"unknown role counts as user", []Message{{Role: "tool", Content: "t"}, user("u")}, []Message{user("t\n\nu")}},
		{"role case", []Message{{Role: "User", Content: "u"}, {Role: "ASSISTANT", Content: "a"}}, []Message{user("u"), asst("a")}},
		{"content kept verbatim", []Message{user("  x  \n")}, []Message{user("  x  \n")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := append([]Message(nil), tc.in...)
			got := Normalize(tc.in)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Normalize = %q\n want %q", got, tc.want)
			}
			if !reflect.DeepEqual(in, tc.in) {
				t.Error("input modified")
			}
			for i, m := range got {
				if m.Content == "" {
					t.Errorf("message %d is empty", i)
				}
				if i > 0 && m.Role == got[i-1].Role {
					t.Errorf("messages %d and %d share role %s", i-1, i, m.Role)
				}
				if m.Role == RoleSystem && i != 0 {
					t.Errorf("system message at %d", i)
				}
			}
		})
	}
}
