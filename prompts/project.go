package prompts

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Size limits of the project context: paid on every request, so small.
const (
	readmeExcerptBytes = 600
	instructionBytes   = 8 << 10  // per AGENTS.md file
	instructionsTotal  = 16 << 10 // all AGENTS.md files together
)

// Project describes the project in the working directory.
type Project struct {
	Kind     string // "Go module", "Node.js package", ...
	Name     string
	Manifest string // the file the kind and name come from
	Tree     string // a shallow tree of the working directory
	Readme   string // the start of the README
}

// manifests are tried in order; the first present one names the project.
var manifests = []struct {
	file, kind string
	name       func([]byte) string
}{
	{"go.mod", "Go module", firstMatch(`(?m)^module\s+(\S+)`)},
	{"package.json", "Node.js package", jsonName},
	{"Cargo.toml", "Rust crate", firstMatch(`(?m)^name\s*=\s*"([^"]+)"`)},
	{"pyproject.toml", "Python project", firstMatch(`(?m)^name\s*=\s*"([^"]+)"`)},
	{"setup.py", "Python project", firstMatch(`name\s*=\s*["']([^"']+)["']`)},
	{"requirements.txt", "Python project", nil},
	{"pom.xml", "Maven project", firstMatch(`<artifactId>([^<]+)</artifactId>`)},
	{"build.gradle", "Gradle project", nil},
	{"build.gradle.kts", "Gradle project", nil},
	{"Gemfile", "Ruby project", nil},
	{"composer.json", "PHP project", jsonName},
	{"CMakeLists.txt", "CMake project", firstMatch(`(?i)project\s*\(\s*([\w.-]+)`)},
	{"deno.json", "Deno project", jsonName},
	{"Makefile", "Make project", nil},
}

// DiscoverProject reads the project's kind, name and README excerpt from dir.
// tree is the caller's rendering of the directory, root line first (may be
// empty). It returns nil when there is nothing to say.
func DiscoverProject(dir, tree string) *Project {
	p := &Project{}
	if tree = strings.TrimRight(tree, "\n"); strings.Contains(tree, "\n") {
		p.Tree = tree // a lone root line says nothing
	}
	for _, m := range manifests {
		data, err := os.ReadFile(filepath.Join(dir, m.file))
		if err != nil {
			continue
		}
		p.Kind, p.Manifest = m.kind, m.file
		if m.name != nil {
			p.Name = m.name(data)
		}
		break
	}
	for _, name := range []string{"README.md", "README", "README.txt", "readme.md", "README.rst"} {
		if data, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			p.Readme = excerpt(data, readmeExcerptBytes)
			break
		}
	}
	if p.Kind == "" && p.Tree == "" && p.Readme == "" {
		return nil
	}
	return p
}

func firstMatch(expr string) func([]byte) string {
	re := regexp.MustCompile(expr)
	return func(data []byte) string {
		if m := re.FindSubmatch(data); m != nil {
			return string(m[1])
		}
		return ""
	}
}

func jsonName(data []byte) string {
	var v struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(data, &v) // a broken manifest only costs us the name
	return v.Name
}

// excerpt returns the start of text, at most max bytes, cut at a paragraph or
// line boundary when one is near, and marked when cut.
func excerpt(data []byte, max int) string {
	data = bytes.TrimSpace(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")))
	if len(data) <= max {
		return string(data)
	}
	cut := data[:max]
	if i := bytes.LastIndex(cut, []byte("\n\n")); i > max/2 {
		cut = cut[:i]
	} else if i := bytes.LastIndexByte(cut, '\n'); i > max/2 {
		cut = cut[:i]
	}
	for !utf8.Valid(cut) && len(cut) > 0 {
		cut = cut[:len(cut)-1]
	}
	return string(bytes.TrimSpace(cut)) + "\n[…]"
}

// Instructions collects AGENTS.md files: the user's, in configDir, then every
// one from the repository root (the nearest ancestor holding .git) down to
// dir. Empty files are skipped; each file and the total are size-capped.
func Instructions(configDir, dir string) []Instruction {
	paths := []string{filepath.Join(configDir, "AGENTS.md")}
	for _, d := range RepoChain(dir) {
		paths = append(paths, filepath.Join(d, "AGENTS.md"))
	}
	var out []Instruction
	budget := instructionsTotal
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] || budget <= 0 {
			continue
		}
		seen[p] = true
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		text := strings.TrimSpace(string(data))
		if text == "" {
			continue
		}
		limit := min(instructionBytes, budget)
		if len(text) > limit {
			text = excerpt([]byte(text), limit)
		}
		budget -= len(text)
		out = append(out, Instruction{Path: p, Content: text})
	}
	return out
}

// RepoChain lists the directories from the repository root down to dir, or
// just dir when it is not inside a repository: where AGENTS.md files and
// project slash commands are looked for.
func RepoChain(dir string) []string {
	var chain []string
	for d := dir; ; d = filepath.Dir(d) {
		chain = append(chain, d)
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			break
		}
		if parent := filepath.Dir(d); parent == d {
			return []string{dir} // no repository: only the working directory
		}
	}
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	return chain
}
