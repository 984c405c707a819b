package audit

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/devagent/dev/config"
)

// spellings writes an option the ways a shell or the command accepts it:
// with its value attached or apart, quoted, with a backslash inside, in a
// cluster of short options (not for Go's flags, which have none), and (for
// GNU-style long options) abbreviated.
func spellings(opt string, goFlags bool) []string {
	name := strings.TrimLeft(opt, "-")
	dashes := opt[:len(opt)-len(name)]
	out := []string{
		opt + "=x", opt + " x", "'" + opt + "=x'", `"` + opt + `" x`,
		dashes + `\` + name + " x", // the shell removes the backslash
		dashes + name[:1] + `"` + name[1:] + `"=x`,
	}
	if len(name) == 1 && !goFlags {
		out = append(out, opt+"x", "-v"+name+" x")
	}
	if dashes == "-" && len(name) > 1 {
		out = append(out, "-"+opt+"=x", "-"+opt+" x") // Go flags take two dashes too
	}
	if dashes == "--" && len(name) > 4 {
		out = append(out, "--"+name[:len(name)-1]+"=x") // an abbreviation getopt accepts
	}
	return out
}

func TestAuditRefusesWritingOptionsInEverySpelling(t *testing.T) {
	t.Parallel()
	p := newPolicy(append(config.DefaultAuditCommands(), "rg", "find"))
	refused := map[string][]string{
		"go test ./...": {"-exec", "-toolexec", "-vettool", "-o", "-c", "-coverprofile", "-cpuprofile", "-memprofile",
			"-blockprofile", "-mutexprofile", "-trace", "-outputdir", "-fuzz", "-modfile", "-ldflags", "-update",
			"-test.coverprofile", "-test.cpuprofile", "-test.trace", "-test.outputdir"},
		"go build ./...":   {"-o", "-toolexec", "-ldflags", "-pkgdir", "-modfile", "-exec"},
		"go vet ./...":     {"-vettool", "-toolexec", "-o", "-exec"},
		"git diff":         {"--output", "--ext-diff", "-c", "--exec-path", "-o"},
		"git log":          {"--output", "--ext-diff"},
		"git show":         {"--output", "--ext-diff"},
		"git status":       {"-c", "--output"},
		"pytest":           {"--junitxml", "--junit-xml", "--basetemp", "--resultlog", "--cov-report", "--cov", "--pastebin", "--cache-clear", "--debug", "--log-file", "-o", "-p"},
		"python -m pytest": {"--junitxml", "--basetemp", "-o"},
		"tree":             {"-o", "-R"},
		"cat":              {"-o", "--output", "-exec"},
		"grep -r x":        {"-o", "--output"},
		"npm test":         {"--script-shell", "--prefix", "-C", "--node-options"},
		"cargo test":       {"--target-dir", "--config", "-Z", "--logfile"},
		"cargo build":      {"--target-dir", "--config", "--out-dir"},
		"make test":        {"-f", "-C", "--eval", "-t", "-W", "--file", "--directory"},
		"rg x":             {"--pre"},
		"find .":           {"-exec", "-execdir", "-delete", "-fprint", "-ok"},
	}
	rows := 0
	for prefix, opts := range refused {
		for _, opt := range opts {
			for _, s := range spellings(opt, strings.HasPrefix(prefix, "go ")) {
				rows++
				cmd := prefix + " " + s
				why := p.refusal(cmd)
				if !strings.Contains(why, "could write files or run other programs") {
					t.Errorf("%s: not refused as a writing option: %q", cmd, why)
				}
			}
		}
	}
	t.Logf("%d spellings refused", rows)
}

func TestAuditPolicy(t *testing.T) {
	t.Parallel()
	p := newPolicy(config.DefaultAuditCommands())
	for _, tc := range []struct {
		command string
		why     string // "" when allowed, else a substring of the refusal
	}{
		{"go test ./...", ""},
		{"go test -v -count=1 -race -cover -run TestX ./...", ""},
		{"go test -json -shuffle=on -memprofilerate=1 ./...", ""},
		{"go test -mod=readonly ./...", ""},
		{"go test -mod=vendor ./...", ""},
		{"go vet ./...", ""},
		{"go build ./...", ""},
		{"git diff --stat HEAD~1", ""},
		{"git diff --exit-code --name-only", ""},
		{"git log --oneline -5", ""},
		{"git log -Soutput", ""},
		{"git show HEAD:main.go", ""},
		{"git status --porcelain", ""},
		{"git diff --text", ""},
		{"pytest -q -k 'not slow'", ""},
		{"pytest --co", ""},
		{"pytest -p no:randomly -x", ""},
		{"python -m pytest -x tests", ""},
		{"cargo test --release", ""},
		{"cargo build --target x86_64-unknown-linux-gnu", ""},
		{"cargo build --target=x86_64-unknown-linux-gnu", ""},
		{"npm test --silent", ""},
		{"npm run build --if-present", ""},
		{"make test -j4", ""},
		{"tree -L 2 -a", ""},
		{"grep -rn 'func main' .", ""},
		{"cat 'a file.txt'", ""},
		{"ls -la", ""},
		{"wc -l *.go", ""},

		{"go test -mod=mod ./...", "-mod"},
		{"go test -mod mod ./...", "-mod"},
		{"go test ./... -args -test.coverprofile=c.out", "-coverprofile"},
		{"go test '-exec=rm -rf src victim.txt --' .", "-exec"},
		{"go vet '-vettool=./evil.sh' .", "-vettool"},
		{"git diff '--output=x'", "--output"},
		{"git diff --o\\utput=x", "--output"},
		{"git diff --outp=x", "--outp"},
		{"git diff --textconv", "--textconv"},
		{"git show --textc HEAD", "--textc"},
		{"git log -p --ext-diff", "--ext-diff"},
		{"git -c core.pager=evil log", "not an allowed audit command"},
		{"pytest --basetemp=src", "--basetemp"},
		{"pytest --junitx=out.xml", "--junitx"},
		{"pytest -vo cache_dir=src", "-o"},
		{"pytest -p evil_plugin", "-p"},
		{"npm test -- -t name", "passed on to the project's script"},
		{"npm test -- --outputFile=x", "--outputFile"},
		{"npm test extra", "passed on to the project's script"},
		{"make test SHELL=./evil.sh", "variable assignment"},
		{"make test CC=rm", "variable assignment"},
		{"go test ./... | sh", "`|`"},
		{"go test $(rm -rf src)", "`$`"},
		{"go test `rm -rf src`", "backquote"},
		{"go test ./... > out", "`>`"},
		{"go test ./...; rm -rf src", "`;`"},
		{"go test ./...\nrm -rf src", "line break"},
		{"GOFLAGS=-exec=x go test ./...", "assignment"},
		{"(go test ./...)", "compound"},
		{"go test 'unterminated", "cannot be read as shell"},
		{"go tool compile x.go", "not an allowed audit command"},
		{"gofmt -w .", "not an allowed audit command"},
		{"git push", "not an allowed audit command"},
		{"catastrophe", "not an allowed audit command"},
		{"", "empty"},
	} {
		why := p.refusal(tc.command)
		switch {
		case tc.why == "" && why != "":
			t.Errorf("%q was refused: %s", tc.command, why)
		case tc.why != "" && !strings.Contains(why, tc.why):
			t.Errorf("%q: refusal %q, want it to contain %q", tc.command, why, tc.why)
		}
	}
}

// A file named like an option cannot come in through a glob.
func TestAuditChecksExpandedGlobs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"a.txt", "--output=x"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := newPolicy(config.DefaultAuditCommands())
	if _, why := p.check("git diff *", dir); !strings.Contains(why, "--output") {
		t.Errorf("git diff * with a file named --output=x: %q", why)
	}
	argv, why := p.check("cat *.txt", dir)
	if why != "" || !slices.Equal(argv, []string{"cat", "a.txt"}) {
		t.Errorf("cat *.txt = %q, %q", argv, why)
	}
}

func TestPrepare(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want []string }{
		{[]string{"pytest", "-x"}, []string{"pytest", "-p", "no:cacheprovider", "-x"}},
		{[]string{"python", "-m", "pytest"}, []string{"python", "-m", "pytest", "-p", "no:cacheprovider"}},
		{[]string{"go", "build", "./..."}, []string{"go", "build", "-o", os.DevNull, "./..."}},
		{[]string{"go", "test", "./..."}, []string{"go", "test", "./..."}},
		{[]string{"cat", "a"}, []string{"cat", "a"}},
	} {
		if got := prepare(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("prepare(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
