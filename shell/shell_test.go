package shell

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line    string
		words   []string
		special string // "" or a substring of the description
	}{
		{line: "git status", words: []string{"git", "status"}},
		{line: "  go   test  ./... ", words: []string{"go", "test", "./..."}},
		{line: `go test '-exec=rm -rf src victim.txt --' .`, words: []string{"go", "test", "-exec=rm -rf src victim.txt --", "."}},
		{line: `git diff '--output=x'`, words: []string{"git", "diff", "--output=x"}},
		{line: `tree '-o' x`, words: []string{"tree", "-o", "x"}},
		{line: `git diff --o\utput=x`, words: []string{"git", "diff", "--output=x"}},
		{line: `git diff "--out"put=x`, words: []string{"git", "diff", "--output=x"}},
		{line: `grep "a\"b" 'c\d' "e\f"`, words: []string{"grep", `a"b`, `c\d`, `e\f`}},
		{line: "cat a\\\nb", words: []string{"cat", "ab"}, special: "line break"},
		{line: `cat 'a b' c\ d`, words: []string{"cat", "a b", "c d"}},
		{line: `grep "x*" file`, words: []string{"grep", "x*", "file"}},
		{line: `ls \*.go`, words: []string{"ls", "*.go"}},
		{line: "", words: nil},

		{line: "cat a; rm a", special: "`;`"},
		{line: "cat a && rm a", special: "`&`"},
		{line: "cat a | sh", special: "`|`"},
		{line: "cat a > b", special: "`>`"},
		{line: "cat < a", special: "`<`"},
		{line: "cat $HOME", special: "`$`"},
		{line: "cat `x`", special: "backquote"},
		{line: "cat a\nrm a", special: "line break"},
		{line: "cat a\rrm a", special: "line break"},
		{line: `grep 'a;b' f`, special: "`;`"}, // quoted operators are refused too
		{line: "ls *.go", words: []string{"ls", "*.go"}, special: "glob"},
		{line: "cat ~/.profile", words: []string{"cat", "~/.profile"}, special: "tilde"},
		{line: "cat {a,b}.go", words: []string{"cat", "{a,b}.go"}, special: "brace"},
		{line: "X=1 go test", words: []string{"go", "test"}, special: "assignment"},
		{line: "! go test", words: []string{"go", "test"}, special: "negation"},
		{line: "(go test)", special: "compound"},
		{line: "{ go test\n}", special: "line break"},
		{line: "if true\nthen ls\nfi", special: "line break"},
		{line: "go test ) x", special: ""}, // error below
	} {
		words, special, err := Words(tc.line)
		if tc.line == "go test ) x" {
			var se *Error
			if !errors.As(err, &se) {
				t.Errorf("Words(%q): err = %v, want a *shell.Error", tc.line, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Words(%q): %v", tc.line, err)
			continue
		}
		if tc.words != nil && !slices.Equal(words, tc.words) {
			t.Errorf("Words(%q) = %q, want %q", tc.line, words, tc.words)
		}
		if tc.special == "" && special != "" {
			t.Errorf("Words(%q): special %q, want none", tc.line, special)
		}
		if tc.special != "" && !strings.Contains(special, tc.special) {
			t.Errorf("Words(%q): special %q, want it to contain %q", tc.line, special, tc.special)
		}
	}
}

// commands renders a script's commands as "via: arg arg" lines.
func commands(s *Script) []string {
	var out []string
	for _, c := range s.Commands {
		line := strings.Join(c.Args(), " ")
		for _, r := range c.Redirects {
			line += " " + r.Fd + r.Op + r.Target.Text
		}
		if c.Via != "" {
			line = c.Via + ": " + line
		}
		out = append(out, line)
	}
	return out
}

func TestParseFindsEveryCommand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"go test ./...", []string{"go test ./..."}},
		{"a | b && c || d; e & f", []string{"a", "b", "c", "d", "e", "f"}},
		{"(a; (b))", []string{"a", "b"}},
		{"{ a; }", []string{"a"}},
		{"echo $(a $(b)) `c`", []string{"echo $(a $(b)) `c`", "a $(b)", "b", "c"}},
		{"x=$(a) y", []string{"y", "a"}},
		{"x=$(a)", []string{"a"}},
		{"echo \"$(a)\" ${v:-$(b)}", []string{"echo $(a) ${v:-$(b)}", "a", "b"}},
		{"diff <(a) >(b)", []string{"diff <(a) >(b)", "a", "b"}},
		{"if a; then b; elif c; then d; else e; fi", []string{"a", "b", "c", "d", "e"}},
		{"for i in $(a); do b; done", []string{"a", "b"}},
		{"while a; do b; done", []string{"a", "b"}},
		{"case $(a) in x) b;; esac", []string{"a", "b"}},
		{"f() { a; }; f", []string{"a", "f"}},
		{"time a", []string{"a"}},
		{"! a", []string{"a"}},
		{"export X=$(a)", []string{"export X=$(a)", "a"}},
		{"cat <<EOF\n$(a)\nEOF", []string{"cat <<EOF", "a"}},
		{"a > out 2>&1", []string{"a >out 2>&1"}},
		{"> out", []string{" >out"}},

		{"sh -c 'a; b'", []string{"sh -c a; b", "sh -c: a", "sh -c: b"}},
		{`bash -lc "a | b"`, []string{"bash -lc a | b", "bash -c: a", "bash -c: b"}},
		{`bash -o pipefail -c 'a'`, []string{"bash -o pipefail -c a", "bash -c: a"}},
		{`sh -c "sh -c 'a'"`, []string{"sh -c sh -c 'a'", "sh -c: sh -c a", "sh -c: a"}},
		{`/bin/sh -e -c 'a' name arg`, []string{"/bin/sh -e -c a name arg", "sh -c: a"}},
		{`sh script.sh`, []string{"sh script.sh"}},
		{`bash <<< 'a'`, []string{"bash <<<a", "bash: a"}},
		{`eval "a; b"`, []string{"eval a; b", "eval: a", "eval: b"}},
		{`env X=1 -u Y a b`, []string{"env X=1 -u Y a b", "env: a b"}},
		{`env -S 'a b'`, []string{"env -S a b", "env: a b"}},
		{`command a`, []string{"command a", "command: a"}},
		{`command -v a`, []string{"command -v a"}},
		{`exec -a name a`, []string{"exec -a name a", "exec: a"}},
		{`nice -n 5 nohup a`, []string{"nice -n 5 nohup a", "nice: nohup a", "nohup: a"}},
		{`nice -10 a`, []string{"nice -10 a", "nice: a"}},
		{`timeout -s KILL 5 a`, []string{"timeout -s KILL 5 a", "timeout: a"}},
		{`timeout --signal=KILL 5s a b`, []string{"timeout --signal=KILL 5s a b", "timeout: a b"}},
		{`xargs -n1 -I{} a {}`, []string{"xargs -n1 -I{} a {}", "xargs: a {}"}},
		{`xargs -0 -P 4 a`, []string{"xargs -0 -P 4 a", "xargs: a"}},
		{`find . -name x -exec a {} \; -execdir b {} +`, []string{"find . -name x -exec a {} ; -execdir b {} +", "find -exec: a {}", "find -exec: b {}"}},
		{`sudo -u root a`, []string{"sudo -u root a", "sudo: a"}},
		{`su - root -c 'a'`, []string{"su - root -c a", "su: a"}},
		{`su root`, []string{"su root"}},
		{`flock /tmp/l -c 'a'`, []string{"flock /tmp/l -c a", "flock: a"}},
		{`flock /tmp/l a`, []string{"flock /tmp/l a", "flock: a"}},
		{`watch -n 1 'a | b'`, []string{"watch -n 1 a | b", "watch: a", "watch: b"}},
		{`busybox rm x`, []string{"busybox rm x", "busybox: rm x"}},
		{`X=1 a`, []string{"a"}},
	} {
		s, err := Parse(tc.line)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.line, err)
			continue
		}
		if got := commands(s); !slices.Equal(got, tc.want) {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tc.line, got, tc.want)
		}
	}
}

func TestParseWords(t *testing.T) {
	t.Parallel()
	s, err := Parse(`X=1 '/usr/bin/sudo' "$HOME" ~ a\ b "c"d * {x,y} $'\n'`)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Commands[0]
	if len(c.Assigns) != 1 || c.Assigns[0].Text != "X=1" || !c.Assigns[0].Static {
		t.Errorf("assigns = %+v", c.Assigns)
	}
	if c.Program() != "sudo" || c.Name() != "/usr/bin/sudo" {
		t.Errorf("program %q name %q", c.Program(), c.Name())
	}
	want := []Word{
		{Raw: `'/usr/bin/sudo'`, Text: "/usr/bin/sudo", Static: true, Head: "/usr/bin/sudo", Tail: "/usr/bin/sudo"},
		{Raw: `"$HOME"`, Text: "$HOME", Unknown: true},
		{Raw: `~`, Text: "~", Head: "~", Tail: "~"},
		{Raw: `a\ b`, Text: "a b", Static: true, Head: "a b", Tail: "a b"},
		{Raw: `"c"d`, Text: "cd", Static: true, Head: "cd", Tail: "cd"},
		{Raw: `*`, Text: "*", Head: "*", Tail: "*"},
		{Raw: `{x,y}`, Text: "{x,y}", Head: "{x,y}", Tail: "{x,y}"},
		{Raw: `$'\n'`, Text: `$'\n'`, Unknown: true},
	}
	if !slices.Equal(c.Words, want) {
		t.Errorf("words:\n got %+v\nwant %+v", c.Words, want)
	}
	if p := (Command{Words: []Word{{Raw: "$x", Text: "$x"}}}).Program(); p != "" {
		t.Errorf("a dynamic program is named %q", p)
	}
}

func TestRedirectWrites(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]bool{
		"a > f": true, "a >> f": true, "a &> f": true, "a >| f": true, "a <> f": true, "a >&f": true,
		"a 2>&1": false, "a >&2": false, "a >&-": false, "a < f": false, "a <<< s": false, "a <<E\nx\nE": false,
	} {
		s, err := Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Commands[0].Redirects[0].Writes(); got != want {
			t.Errorf("%q writes = %v, want %v", line, got, want)
		}
	}
}

func TestForkBomb(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]bool{
		":(){ :|:& };:":                   true,
		"bomb() { bomb | bomb & }; bomb":  true,
		"f() { f & }; f":                  true,
		"function g { g|g; }; g":          true,
		"f() { echo hi; }; f":             false,
		"f() { g | g & }; f":              false,
		"count() { count; }":              false, // recursion without forking
		"f() { ls | grep x; }; f | f & f": false, // the function does not call itself
	} {
		s, err := Parse(line)
		if err != nil {
			t.Fatalf("Parse(%q): %v", line, err)
		}
		got := false
		for _, f := range s.Funcs {
			got = got || f.ForksItself
		}
		if got != want {
			t.Errorf("%q: ForksItself = %v, want %v", line, got, want)
		}
	}
	// Inside sh -c too.
	s, err := Parse(`bash -c ':(){ :|:& };:'`)
	if err != nil || len(s.Funcs) != 1 || !s.Funcs[0].ForksItself {
		t.Errorf("fork bomb in bash -c: %+v %v", s, err)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		"a )",
		"if a; then b",
		"echo 'unterminated",
		`sh -c 'if'`,
		`eval "a )"`,
		strings.Repeat(`sh -c "`, 1) + nest(maxDepth+2) + `"`,
	} {
		_, err := Parse(line)
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q): err = %v, want a *shell.Error", line, err)
		}
	}
	_, err := Parse(`sh -c 'if'`)
	if err == nil || !strings.Contains(err.Error(), "sh -c") {
		t.Errorf("a nested error does not say where: %v", err)
	}
}

// nest builds n levels of `eval eval … a`, each one a nested command line.
func nest(n int) string {
	return strings.Repeat("eval ", n) + "a"
}

func TestFields(t *testing.T) {
	t.Parallel()
	dir, home := t.TempDir(), "/home/someone"
	for _, name := range []string{"a.go", "b.go", ".hidden.go", "-o"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		line    string
		want    []string
		special string
	}{
		{line: "wc -l *.go", want: []string{"wc", "-l", "a.go", "b.go"}},
		{line: "ls .*.go", want: []string{"ls", ".hidden.go"}},
		{line: "ls *.txt", want: []string{"ls", "*.txt"}},
		{line: "ls '*.go' \\*.go", want: []string{"ls", "*.go", "*.go"}},
		{line: "cat ~/x ~", want: []string{"cat", home + "/x", home}},
		{line: "cat {a,b}.go", want: []string{"cat", "a.go", "b.go"}},
		{line: "ls *", want: []string{"ls", "-o", "a.go", "b.go"}}, // callers check the fields for options
		{line: `git diff '--output=x'`, want: []string{"git", "diff", "--output=x"}},
		{line: "cat $HOME/x", special: "`$`"},
		{line: "cat \"${x}\"", special: "`$`"},
		{line: "cat a; ls", special: "`;`"},
		{line: "X=1 ls", special: "assignment"},
	} {
		got, special, err := Fields(tc.line, dir, home)
		if err != nil {
			t.Errorf("Fields(%q): %v", tc.line, err)
			continue
		}
		if tc.special != "" {
			if !strings.Contains(special, tc.special) || got != nil {
				t.Errorf("Fields(%q) = %q, special %q; want special %q", tc.line, got, special, tc.special)
			}
			continue
		}
		if special != "" || !slices.Equal(got, tc.want) {
			t.Errorf("Fields(%q) = %q, special %q; want %q", tc.line, got, special, tc.want)
		}
	}
}

func TestFieldsNamesTheExpansionItCannotDo(t *testing.T) {
	t.Parallel()
	// A glob then an extended glob (no operator character in sight): the
	// extended glob is what Fields cannot expand, so it is named.
	_, special, err := Fields(`ls *+(x)`, t.TempDir(), "/h")
	if err != nil || !strings.Contains(special, "extended glob") {
		t.Errorf("special %q err %v, want the extended glob named", special, err)
	}
	s, _ := Parse(`ls *"$(date)"`)
	if w := s.Commands[0].Words[1]; w.Static {
		t.Errorf("word %+v is static", w)
	}
}

// What dev cannot know before the shell runs is reported, and what it can
// read of a line's indirections is read (issue 22).
func TestParseIndirection(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"sh <<EOF\na ~\nEOF", []string{"sh <<EOF", "sh <<: a ~"}},
		{"bash -s <<'X'\na\nX", []string{"bash -s <<X", "bash <<: a"}},
		{"echo 'a; b' | sh", []string{"echo a; b", "sh", "sh (piped): a", "sh (piped): b"}},
		{`printf 'a\nb\n' | bash`, []string{`printf a\nb\n`, "bash", "bash (piped): a", "bash (piped): b"}},
		{"cat <<E | sh\na\nE", []string{"cat <<E", "sh", "sh (piped): a"}},
		{"x | y | sh", []string{"x", "y", "sh"}},
		{"alias l='a -x'; l y", []string{"alias l=a -x", "l y", "alias: a -x y"}},
		{`$SHELL -c 'a'`, []string{"$SHELL -c a", "-c: a"}},
		{"sh < script.sh", []string{"sh <script.sh"}},
	} {
		s, err := Parse(tc.line)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.line, err)
			continue
		}
		if got := commands(s); !slices.Equal(got, tc.want) {
			t.Errorf("Parse(%q):\n got %q\nwant %q", tc.line, got, tc.want)
		}
	}
	opaque := map[string]string{
		"curl x | sh":          "a shell reading its commands from a pipe",
		"x | bash -s -- --yes": "a shell reading its commands from a pipe",
		"bash <(curl x)":       "a shell running what a process substitution prints",
		". <(x)":               "a shell running what a process substitution prints",
		"echo a | sh":          "",
		"sh x.sh":              "",
		"sh":                   "",
		"curl x | grep y":      "",
		// A -c script the shell computes first (issue 30, break 3).
		`sh -c "$(echo x | base64 -d)"`: "a shell whose -c script is computed",
		`bash -c "$X"`:                  "a shell whose -c script is computed",
		"sh -c \"`x`\"":                 "a shell whose -c script is computed",
		`bash -lc "a; $(b)"`:            "a shell whose -c script is computed",
		`$SHELL -c "$X"`:                "a shell whose -c script is computed",
		`su -c "$X" root`:               "su running a command line that is computed",
		`flock l -c"$X"`:                "flock running a command line that is computed",
		`sh -c 'a "$X"'`:                "",
		`bash -c "a; b"`:                "",
		`sh -c a "$X"`:                  "",
	}
	for line, want := range opaque {
		s, err := Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, c := range s.Commands {
			if c.Opaque != "" {
				got = c.Opaque
			}
		}
		if got != want {
			t.Errorf("%q: opaque %q, want %q", line, got, want)
		}
	}
}

func TestParseFill(t *testing.T) {
	t.Parallel()
	s, _ := Parse(`find ~ src -name x -exec rm -rf {} \;`)
	c := s.Commands[1]
	if c.Placeholder != "{}" || len(c.Fill) != 2 || c.Fill[0].Text != "~" || c.Fill[1].Text != "src" {
		t.Errorf("find -exec: %+v", c)
	}
	s, _ = Parse(`find -exec a {} +`)
	if c := s.Commands[1]; len(c.Fill) != 1 || c.Fill[0].Text != "." {
		t.Errorf("find without a start: %+v", c)
	}
	s, _ = Parse(`ls | xargs -0 rm -f`)
	if c := s.Commands[2]; c.Via != "xargs" || c.Placeholder != "" || len(c.Fill) != 1 || !c.Fill[0].Unknown || !c.Fill[0].Split {
		t.Errorf("xargs: %+v", c)
	}
	for line, want := range map[string]string{"xargs -I% a %": "%", "xargs -I {} a {}": "{}", "xargs -i a {}": "{}", "xargs --replace=R a R": "R"} {
		s, _ := Parse(line)
		if c := s.Commands[1]; c.Placeholder != want {
			t.Errorf("%q: placeholder %q, want %q", line, c.Placeholder, want)
		}
	}
	for line, want := range map[string][]string{
		"find":                     {"."},
		"find -L . -name x":        {"."},
		"find a b -type f":         {"a", "b"},
		`find -D tree / \( -x \)`:  {"/"},
		"find ~ ! -name x -delete": {"~"},
	} {
		s, _ := Parse(line)
		var got []string
		for _, w := range FindStarts(s.Commands[0].Words[1:]) {
			got = append(got, w.Text)
		}
		if !slices.Equal(got, want) {
			t.Errorf("FindStarts(%q) = %q, want %q", line, got, want)
		}
	}
}

func TestParseValuesAndUnknownWords(t *testing.T) {
	t.Parallel()
	s, err := Parse(`X=rm; export Y='a b'; alias z=sudo; set -- -rf; for p in q ~; do :; done; echo $(echo e1) e2; printf 'p\x31'; $'\x73udo' "$V" $W "$@" "${a[@]}" pre$V/post`)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"rm", "a", "b", "sudo", "-rf", "q", "~", "e1", "e2", "p1"} {
		if !slices.Contains(s.Values, v) {
			t.Errorf("values %q lack %q", s.Values, v)
		}
	}
	last := s.Commands[len(s.Commands)-1]
	want := []Word{
		{Raw: `$'\x73udo'`, Text: `$'\x73udo'`, Unknown: true},
		{Raw: `"$V"`, Text: "$V", Unknown: true},
		{Raw: `$W`, Text: "$W", Unknown: true, Split: true},
		{Raw: `"$@"`, Text: "$@", Unknown: true, Split: true},
		{Raw: `"${a[@]}"`, Text: "${a[@]}", Unknown: true, Split: true},
		{Raw: `pre$V/post`, Text: "pre$V/post", Unknown: true, Split: true, Head: "pre", Tail: "/post"},
	}
	if !slices.Equal(last.Words, want) {
		t.Errorf("words:\n got %+v\nwant %+v", last.Words, want)
	}
	for _, tc := range []struct {
		prog, opt     string
		valued, known bool
	}{
		{"git", "-C", true, true}, {"git", "--no-pager", false, true}, {"git", "--git-dir", true, true}, {"npm", "--tag", false, false},
	} {
		if v, k := GlobalOption(tc.prog, tc.opt); v != tc.valued || k != tc.known {
			t.Errorf("GlobalOption(%s, %s) = %v, %v", tc.prog, tc.opt, v, k)
		}
	}
}

func TestBackground(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line, rest string
		ok         bool
	}{
		{"npm run dev &", "npm run dev", true},
		{"python -m http.server 8000 > server.log 2>&1 &  \n", "python -m http.server 8000 > server.log 2>&1", true},
		{"cd web && npm start &", "cd web && npm start", true},
		{"make build\n./server --port 8080 &", "make build\n./server --port 8080", true},
		{"make && make test", "", false},
		{"echo 'a &'", "", false},
		{`echo a \&`, "", false},
		{"(sleep 1 &)", "", false},
		{"sleep 1 & echo started", "", false},
		{"ls # &", "", false},
		{"echo done", "", false},
		{"&", "", false},
		{"echo 'unclosed &", "", false},
	} {
		rest, ok := Background(tc.line)
		if ok != tc.ok || (ok && rest != tc.rest) {
			t.Errorf("Background(%q) = %q, %v; want %q, %v", tc.line, rest, ok, tc.rest, tc.ok)
		}
	}
}

// Quote's words read back, through the shell parser, as what was quoted.
func TestQuote(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"plain", "/home/ada/my project", "it's", "$HOME", "a*b", "~", "", "tab\there", "#x", "back\\slash"} {
		q := Quote(s)
		words, _, err := Words("echo " + q)
		if err != nil || len(words) != 2 || words[1] != s {
			t.Errorf("Quote(%q) = %s, read back as %q (%v)", s, q, words, err)
		}
	}
	if got := Quote("/home/ada/hello"); got != "/home/ada/hello" {
		t.Errorf("a plain path is quoted: %s", got)
	}
}
