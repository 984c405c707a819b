package compress

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/devagent/dev/llm"
)

func toolMsg(name, body string) string {
	return `<tool_result tool="` + name + `" ok="true">` + "\n" + body + "\n</tool_result>"
}

func TestTranscript(t *testing.T) {
	t.Parallel()
	got := Transcript(msgs("<user_request>\nfix it\n</user_request>", "# Agent Response\n..."))
	want := "<message role=\"user\">\n<user_request>\nfix it\n</user_request>\n</message>\n\n<message role=\"assistant\">\n# Agent Response\n...\n</message>"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestFitLeavesWhatFits(t *testing.T) {
	t.Parallel()
	h := msgs("request", "reply", toolMsg("READ_FILE", strings.Repeat("x", 5000)))
	text, cuts := Fit(h, 100000)
	if cuts != 0 || text != Transcript(h) {
		t.Errorf("a transcript that fits was changed (%d cuts)", cuts)
	}
	if text, _ := Fit(h, 0); text != Transcript(h) {
		t.Error("budget 0 (no limit) changed the transcript")
	}
}

func TestFitShortensTheLongestToolResultsInTheMiddleFirst(t *testing.T) {
	t.Parallel()
	big := "HEAD-OF-BIG\n" + strings.Repeat("b", 20000) + "\nTAIL-OF-BIG"
	medium := "HEAD-OF-MEDIUM\n" + strings.Repeat("m", 3000) + "\nTAIL-OF-MEDIUM"
	small := "small result"
	thoughts := "# Agent Response\n\n## Thoughts\n" + strings.Repeat("t", 2000)
	h := msgs("<user_request>\nread the files\n</user_request>", thoughts,
		toolMsg("READ_FILE", big)+"\n\n"+toolMsg("READ_FILE", small), thoughts, toolMsg("COMMAND", medium))
	budget := 12000
	text, cuts := Fit(h, budget)
	if len(text) > budget {
		t.Fatalf("transcript of %d bytes, budget %d", len(text), budget)
	}
	if cuts != 1 {
		t.Errorf("%d cuts, want only the largest result cut", cuts)
	}
	for _, want := range []string{"HEAD-OF-BIG", "TAIL-OF-BIG", "bytes cut", small, medium, thoughts, "read the files"} {
		if !strings.Contains(text, want) {
			t.Errorf("transcript lacks %.40q", want)
		}
	}
	// Just enough was cut: a budget a little larger keeps more of it.
	if len(text) < budget-200 {
		t.Errorf("transcript of %d bytes for a budget of %d: cut more than needed", len(text), budget)
	}
}

func TestFitSharesTheCutBetweenLongResults(t *testing.T) {
	t.Parallel()
	a := strings.Repeat("a", 10000)
	b := strings.Repeat("b", 8000)
	h := msgs("req", "r", toolMsg("READ_FILE", a), "r", toolMsg("READ_FILE", b))
	text, cuts := Fit(h, 8000)
	if len(text) > 8000 || cuts != 2 {
		t.Fatalf("%d bytes, %d cuts", len(text), cuts)
	}
	na, nb := strings.Count(text, "a"), strings.Count(text, "b")
	if diff := na - nb; diff < -50 || diff > 50 {
		t.Errorf("kept %d of a and %d of b: the longest is not cut to a common length", na, nb)
	}
}

func TestFitThenMessagesThenOldestMessages(t *testing.T) {
	t.Parallel()
	var contents []string
	contents = append(contents, "<user_request>\nTHE REQUEST\n</user_request>")
	for i := range 40 {
		if i%2 == 0 {
			contents = append(contents, "# Agent Response\n"+strings.Repeat("r", 900))
		} else {
			contents = append(contents, toolMsg("COMMAND", strings.Repeat("o", 900)))
		}
	}
	contents = append(contents, "LAST MESSAGE")
	h := msgs(contents...)
	text, cuts := Fit(h, 6000)
	if len(text) > 6000 {
		t.Fatalf("%d bytes over a budget of 6000", len(text))
	}
	if !strings.Contains(text, "THE REQUEST") || !strings.Contains(text, "LAST MESSAGE") {
		t.Errorf("the first or the last message is gone:\n%s", text)
	}
	if !strings.Contains(text, "earlier messages left out") || cuts < 10 {
		t.Errorf("%d cuts, no note of messages left out", cuts)
	}
}

func TestFitTinyBudget(t *testing.T) {
	t.Parallel()
	h := msgs(strings.Repeat("é", 3000), strings.Repeat("ü", 3000))
	text, _ := Fit(h, 500)
	if len(text) > 500 || !utf8.ValidString(text) {
		t.Errorf("%d bytes, valid UTF-8 %v", len(text), utf8.ValidString(text))
	}
}

func TestCutMiddleKeepsCharactersWhole(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("日本語", 500)
	got := cutMiddle(s, 101)
	if !utf8.ValidString(got) || !strings.Contains(got, "bytes cut") || len(got) > 101+cutMarkLen {
		t.Errorf("cutMiddle = %q", got)
	}
	if cutMiddle("short", 100) != "short" {
		t.Error("a short string was cut")
	}
}

func FuzzFit(f *testing.F) {
	f.Add("<tool_result tool=\"X\">\nbody\n</tool_result>", "reply", 50)
	f.Add("\xff\xfe", "<tool_result\n\n</tool_result>", 3)
	f.Fuzz(func(t *testing.T, a, b string, budget int) {
		h := []llm.Message{{Role: "user", Content: a}, {Role: "assistant", Content: b}, {Role: "user", Content: a + b}}
		text, _ := Fit(h, budget)
		if budget > 0 && len(text) > budget && len(text) > cutMarkLen {
			t.Errorf("%d bytes over a budget of %d", len(text), budget)
		}
	})
}
