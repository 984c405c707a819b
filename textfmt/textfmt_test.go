package textfmt

import (
	"testing"
	"time"
)

func TestFirstLine(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                    "",
		"one":                 "one",
		"\n  two words \nx\n": "two words",
		"a\r\nb":              "a",
	} {
		if got := FirstLine(in); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClipAndExcerpt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		n    int
		clip string
		exc  string
	}{
		{"short", 10, "short", "short"},
		{"exactly10!", 10, "exactly10!", "exactly10!"},
		{"eleven runes", 10, "eleven ru…", "eleven ru…"},
		{"ünïcödé text here", 8, "ünïcödé…", "ünïcödé…"},
		{"a\n\n  b\tc", 20, "a\n\n  b\tc", "a b c"},
		{"anything", 0, "", ""},
	}
	for _, tt := range tests {
		if got := Clip(tt.in, tt.n); got != tt.clip {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.clip)
		}
		if got := Excerpt(tt.in, tt.n); got != tt.exc {
			t.Errorf("Excerpt(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.exc)
		}
	}
}

func TestSummary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"go test ./...", 80, "go test ./..."},
		{"  go build\ngo test\n", 80, "go build …"},
		{"a very long first line", 10, "a very lo…"},
		{"", 10, ""},
	}
	for _, tt := range tests {
		if got := Summary(tt.in, tt.n); got != tt.want {
			t.Errorf("Summary(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestPluralAndThousands(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		Plural(0, "line"):     "0 lines",
		Plural(1, "line"):     "1 line",
		Plural(2, "entry"):    "2 entries",
		Plural(2, "key"):      "2 keys",
		Plural(30, "day"):     "30 days",
		Plural(1, "step"):     "1 step",
		Plural(1247, "token"): "1247 tokens",
		Thousands(0):          "0",
		Thousands(999):        "999",
		Thousands(1000):       "1,000",
		Thousands(-1234567):   "-1,234,567",
		Thousands(123456):     "123,456",
	}
	for got, want := range tests {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestCountShortDuration(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ got, want string }{
		{Count(1, "step"), "1 step"},
		{Count(1, "token"), "1 token"},
		{Count(1247, "token"), "1,247 tokens"},
		{Count(0, "entry"), "0 entries"},
		{Size(1), "1 byte"},
		{Size(512), "512 bytes"},
		{Size(12595), "12.3 KB"},
		{Size(4 << 20), "4.0 MB"},
		{Size(3 << 30), "3.0 GB"},
		{Short(987), "987"},
		{Short(9999), "9,999"},
		{Short(12345), "12.3k"},
		{Short(1234567), "1.2M"},
		{Duration(400 * time.Millisecond), "0s"},
		{Duration(14 * time.Second), "14s"},
		{Duration(125 * time.Second), "2m05s"},
		{Duration(3720 * time.Second), "1h02m"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestWithoutFences(t *testing.T) {
	t.Parallel()
	in := "a.go\n```go\npackage a\n  ~~~\n```\n\n```find\nx\n```"
	if got, want := WithoutFences(in), "a.go\npackage a\n\nx"; got != want {
		t.Errorf("WithoutFences = %q, want %q", got, want)
	}
}
