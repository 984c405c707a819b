package commands

import (
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/config"
	"github.com/devagent/dev/repl"
	"github.com/devagent/dev/ui"
)

// The manual is README.md and the pages of docs/ it links (SPEC §17, "The
// manual matches the binary"). This test enumerates what the binary knows
// and fails naming each thing no page names. A name appears when:
//
//   - a subcommand: its whole command line, "dev sessions serve", is in
//     the text;
//   - a flag: "--name" (or "-n", a one-letter alias) stands as a word (not
//     inside a longer flag) in a page that names its command: any page for
//     dev's own flags, a page with "dev stats" for --days;
//   - a slash command: "/name" stands as a word, not inside a path (not
//     after a letter, a digit, "." or "/");
//   - a config key, of the file or of an entry of profiles, prices, tools
//     or mcpServers: `key` in backticks, or "key" in quotes (a JSON
//     example).
func TestManualNamesEverything(t *testing.T) {
	pages := manualPages(t)
	all := strings.Join(slices.Collect(maps.Values(pages)), "\n")
	var missing []string

	var walk func(path string, cmds []*cli.Command)
	walk = func(path string, cmds []*cli.Command) {
		for _, c := range cmds {
			line := path + " " + c.Name
			if !strings.Contains(all, line) {
				missing = append(missing, "command "+line)
			}
			missing = append(missing, missingFlags(pages, line, c.Flags)...)
			walk(line, c.Subcommands)
		}
	}
	a := newCLI(&devCmd{streams: &ui.Streams{}}, io.Discard)
	missing = append(missing, missingFlags(pages, "", a.Flags)...)
	walk("dev", a.Commands)

	for _, c := range repl.Builtins() {
		for _, name := range append([]string{c.Name}, c.Aliases...) {
			if !slashCommand(name).MatchString(all) {
				missing = append(missing, "slash command "+name)
			}
		}
	}

	for _, key := range configKeys() {
		if !strings.Contains(all, "`"+key+"`") && !strings.Contains(all, `"`+key+`"`) {
			missing = append(missing, "config key "+key)
		}
	}
	for _, m := range missing {
		t.Errorf("the manual does not name %s", m)
	}
}

// manualPages reads README.md and every page of docs/ it links, each
// link checked to resolve, and returns their texts by path.
func manualPages(t *testing.T) map[string]string {
	t.Helper()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{"README.md": string(readme)}
	for _, target := range links(string(readme)) {
		file, _, _ := strings.Cut(target, "#")
		if strings.HasPrefix(file, "docs/") && strings.HasSuffix(file, ".md") {
			data, err := os.ReadFile(filepath.Join("..", file))
			if err != nil {
				t.Errorf("README.md links %s: %v", target, err)
				continue
			}
			pages[file] = string(data)
		}
	}
	if len(pages) < 5 {
		t.Fatalf("the README links %d pages of docs/; the manual is missing", len(pages)-1)
	}
	return pages
}

// TestManualLinksResolve: every relative link of the manual's pages names
// a file that exists and, with a #fragment, a heading of that page.
func TestManualLinksResolve(t *testing.T) {
	pages := manualPages(t)
	for path, text := range pages {
		for _, target := range links(text) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, fragment, _ := strings.Cut(target, "#")
			linked := path
			if file != "" {
				linked = filepath.ToSlash(filepath.Join(filepath.Dir(path), file))
			}
			data, err := os.ReadFile(filepath.Join("..", linked))
			if err != nil {
				t.Errorf("%s links %s: %v", path, target, err)
				continue
			}
			if fragment != "" && strings.HasSuffix(linked, ".md") && !slices.Contains(anchors(string(data)), fragment) {
				t.Errorf("%s links %s: %s has no heading #%s", path, target, linked, fragment)
			}
		}
	}
}

// missingFlags are the flags of the command at line (dev's own when line
// is "") that the pages naming that command do not name.
func missingFlags(pages map[string]string, line string, flags []cli.Flag) []string {
	var texts []string
	for _, text := range pages {
		if line == "" || strings.Contains(text, line) {
			texts = append(texts, text)
		}
	}
	text := strings.Join(texts, "\n")
	var missing []string
	for _, f := range flags {
		for _, name := range f.Names() {
			dashed := "--" + name
			if len(name) == 1 {
				dashed = "-" + name
			}
			if !regexp.MustCompile(`(^|[^\w-])` + regexp.QuoteMeta(dashed) + `\b([^-]|$)`).MatchString(text) {
				what := "dev"
				if line != "" {
					what = line
				}
				missing = append(missing, "flag "+dashed+" of "+what)
			}
		}
	}
	return missing
}

// slashCommand matches name standing as a slash command.
func slashCommand(name string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^\w./])` + regexp.QuoteMeta(name) + `\b([^/]|$)`)
}

// configKeys are the JSON names of config.json's keys and of the fields of
// its entries.
func configKeys() []string {
	var keys []string
	for _, v := range []any{config.Config{}, config.Profile{}, config.Price{}, config.CustomTool{}, config.MCPServer{}} {
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if name != "" && name != "-" && !slices.Contains(keys, name) {
				keys = append(keys, name)
			}
		}
	}
	return keys
}

// link matches a markdown link's target.
var link = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// links are the targets of the markdown links in text, outside code.
func links(text string) []string {
	var out []string
	for _, m := range link.FindAllStringSubmatch(prose(text), -1) {
		out = append(out, m[1])
	}
	return out
}

// prose is text without its fenced code blocks.
func prose(text string) string {
	var b strings.Builder
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// anchors are the fragments GitHub gives the headings of a page: lower
// case, punctuation dropped, spaces as hyphens, "-1", "-2" after repeats.
func anchors(text string) []string {
	var out []string
	seen := map[string]int{}
	for _, line := range strings.Split(prose(text), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		heading := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(heading) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			out = append(out, slug+"-"+strconv.Itoa(n))
		} else {
			out = append(out, slug)
		}
		seen[slug]++
	}
	return out
}
