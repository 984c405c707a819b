package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// layerRow is a row of the layer table: | floor | `package` | owns |.
var layerRow = regexp.MustCompile("^\\| (\\d+) \\| `([^`]+)` \\|")

// The layer table is the Layers section of docs/development.md.
const (
	layerPage    = "docs/development.md"
	layerSection = "## Layers"
)

// TestLayers keeps the layer table true: every package of the module is
// in it, every package it names exists, and a package imports only
// packages on lower floors, on every system dev is built for (build tags
// choose files, and so imports).
func TestLayers(t *testing.T) {
	t.Parallel()
	floors := readFloors(t, layerPage)
	imports := map[string]map[string]bool{}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for pkg, deps := range moduleImports(t, goos) {
			if imports[pkg] == nil {
				imports[pkg] = map[string]bool{}
			}
			for _, d := range deps {
				imports[pkg][d] = true
			}
		}
	}
	for pkg, deps := range imports {
		floor, ok := floors[pkg]
		if !ok {
			t.Errorf("package %s is not in the layer table (%s, section %s): add it on the floor above the highest it imports", pkg, layerPage, layerSection)
			continue
		}
		for d := range deps {
			if floors[d] >= floor {
				t.Errorf("%s (floor %d) imports %s (floor %d): a package imports only packages on lower floors", pkg, floor, d, floors[d])
			}
		}
	}
	for pkg := range floors {
		if _, ok := imports[pkg]; !ok {
			t.Errorf("the layer table (%s) names %s, which is no package of the module", layerPage, pkg)
		}
	}
}

// readFloors reads the layer table of page's Layers section: package (as
// the table names it: "main", or the path in the module) → floor.
func readFloors(t *testing.T, page string) map[string]int {
	t.Helper()
	f, err := os.Open(page)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	floors := map[string]int{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == layerSection
			continue
		}
		m := layerRow.FindStringSubmatch(line)
		if !in || m == nil {
			continue
		}
		if _, dup := floors[m[2]]; dup {
			t.Errorf("%s: the layer table names %s twice", page, m[2])
		}
		floors[m[2]], _ = strconv.Atoi(m[1])
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(floors) == 0 {
		t.Fatalf("%s: no layer table (| floor | `package` | owns |) in the section %s", page, layerSection)
	}
	return floors
}

// moduleImports is what go list says each package of the module imports of
// the module, built for goos, without tests: package → imports, each named
// as the layer table names it.
func moduleImports(t *testing.T, goos string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Module", "./...")
	cmd.Env = append(os.Environ(), "GOOS="+goos)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("GOOS=%s go list: %v\n%s", goos, err, stderr.Bytes())
	}
	type pkg struct {
		ImportPath string
		Imports    []string
		Module     struct{ Path string }
	}
	imports := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("GOOS=%s go list: %v", goos, err)
		}
		mod := p.Module.Path
		name := func(path string) (string, bool) {
			if path == mod {
				return "main", true
			}
			return strings.CutPrefix(path, mod+"/")
		}
		self, _ := name(p.ImportPath)
		imports[self] = []string{}
		for _, imp := range p.Imports {
			if dep, ok := name(imp); ok {
				imports[self] = append(imports[self], dep)
			}
		}
	}
	return imports
}
