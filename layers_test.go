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

// layerRow is a row of the README's layer table: | floor | `package` | owns |.
var layerRow = regexp.MustCompile("^\\| (\\d+) \\| `([^`]+)` \\|")

// TestLayers keeps the README's layer table true: every package of the
// module is in it, every package it names exists, and a package imports
// only packages on lower floors, on every system dev is built for (build
// tags choose files, and so imports).
func TestLayers(t *testing.T) {
	t.Parallel()
	floors := readFloors(t, "README.md")
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
			t.Errorf("package %s is not in the README's layer table (section Development): add it on the floor above the highest it imports", pkg)
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
			t.Errorf("the README's layer table names %s, which is no package of the module", pkg)
		}
	}
}

// readFloors reads the layer table of the README's Development section:
// package (as the table names it: "main", or the path in the module) →
// floor.
func readFloors(t *testing.T, readme string) map[string]int {
	t.Helper()
	f, err := os.Open(readme)
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
			in = line == "## Development"
			continue
		}
		m := layerRow.FindStringSubmatch(line)
		if !in || m == nil {
			continue
		}
		if _, dup := floors[m[2]]; dup {
			t.Errorf("%s: the layer table names %s twice", readme, m[2])
		}
		floors[m[2]], _ = strconv.Atoi(m[1])
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(floors) == 0 {
		t.Fatalf("%s: no layer table (| floor | `package` | owns |) in the Development section", readme)
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
