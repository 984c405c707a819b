package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestNoTrackedExecutables fails when git tracks a compiled program: a
// `go build` output committed by accident (a 9.7 MB `demo` once made 73%
// of the pack). It reads what the index holds, not the working tree, so a
// binary staged but not yet committed fails too. .ci/run runs it first.
func TestNoTrackedExecutables(t *testing.T) {
	t.Parallel()
	for _, f := range trackedFiles(t) {
		if format := executableFormat(f.head); format != "" {
			t.Errorf("git tracks %s, an executable (%s): build outputs stay out of the repository (git rm --cached it; .gitignore names the usual ones)", f.path, format)
		}
	}
}

// executableFormat names the executable format whose header starts head
// ("ELF", "Mach-O", "PE"), or is "" for anything else. Object files and
// shared libraries of those formats count too: they are build outputs as
// well.
func executableFormat(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		return "ELF"
	case len(head) >= 4 && isMachO(binary.BigEndian.Uint32(head)):
		return "Mach-O"
	case bytes.HasPrefix(head, []byte("MZ")) && len(head) >= 0x40:
		// An MS-DOS header; a PE file's says at 0x3c where "PE\0\0" is.
		// Text that happens to begin with "MZ" has no such signature.
		off := binary.LittleEndian.Uint32(head[0x3c:])
		if uint64(off)+4 <= uint64(len(head)) && string(head[off:off+4]) == "PE\x00\x00" {
			return "PE"
		}
	}
	return ""
}

// isMachO: the magic numbers of 32- and 64-bit Mach-O files in either byte
// order, and of universal ("fat") files, which a Java class file shares.
func isMachO(magic uint32) bool {
	switch magic {
	case 0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe:
		return true
	}
	return false
}

// trackedFile is a regular file in git's index and the start of its bytes.
type trackedFile struct {
	path string
	head []byte
}

// headSize is how much of each tracked file executableFormat reads: enough
// for a PE signature where linkers put it.
const headSize = 4096

// trackedFiles lists the regular files git's index holds (symbolic links
// and submodules aside) with the first headSize bytes of each, read from
// the object store by one `git cat-file --batch`.
func trackedFiles(t *testing.T) []trackedFile {
	t.Helper()
	ls, err := exec.Command("git", "ls-files", "--stage", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v (this test needs git and a clone of the repository)", err)
	}
	var files []trackedFile
	var objects strings.Builder
	for _, entry := range strings.Split(strings.TrimSuffix(string(ls), "\x00"), "\x00") {
		// "<mode> <object> <stage>\t<path>"
		meta, path, ok := strings.Cut(entry, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 {
			t.Fatalf("git ls-files --stage: unexpected entry %q", entry)
		}
		if fields[0] != "100644" && fields[0] != "100755" {
			continue
		}
		files = append(files, trackedFile{path: path})
		objects.WriteString(fields[1] + "\n")
	}
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(objects.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file --batch: %v", err)
	}
	r := bufio.NewReader(bytes.NewReader(out))
	for i := range files {
		size, err := blobHeader(r)
		if err != nil {
			t.Fatalf("git cat-file --batch, %s: %v", files[i].path, err)
		}
		body := make([]byte, size+1) // the content and its closing newline
		if _, err := io.ReadFull(r, body); err != nil {
			t.Fatalf("git cat-file --batch, %s: %v", files[i].path, err)
		}
		files[i].head = body[:min(size, headSize)]
	}
	return files
}

// blobHeader reads cat-file's "<object> blob <size>" line and returns the size.
func blobHeader(r *bufio.Reader) (int, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return 0, err
	}
	fields := strings.Fields(line)
	if len(fields) != 3 || fields[1] != "blob" {
		return 0, fmt.Errorf("unexpected header %q", line)
	}
	return strconv.Atoi(fields[2])
}

func TestExecutableFormat(t *testing.T) {
	t.Parallel()
	pe := make([]byte, 0x84)
	copy(pe, "MZ")
	binary.LittleEndian.PutUint32(pe[0x3c:], 0x80)
	copy(pe[0x80:], "PE\x00\x00")
	notPE := bytes.Clone(pe)
	copy(notPE[0x80:], "text")
	tests := []struct {
		name string
		head []byte
		want string
	}{
		{"ELF", []byte("\x7fELF\x02\x01\x01"), "ELF"},
		{"Mach-O 64-bit, little-endian", []byte{0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1}, "Mach-O"},
		{"Mach-O 32-bit, big-endian", []byte{0xfe, 0xed, 0xfa, 0xce}, "Mach-O"},
		{"Mach-O universal", []byte{0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2}, "Mach-O"},
		{"PE", pe, "PE"},
		{"MZ without a PE signature", notPE, ""},
		{"text starting with MZ", []byte("MZ is a postcode area.\n"), ""},
		{"Go source", []byte("package main\n"), ""},
		{"PNG", []byte("\x89PNG\r\n\x1a\n"), ""},
		{"empty", nil, ""},
	}
	for _, tt := range tests {
		if got := executableFormat(tt.head); got != tt.want {
			t.Errorf("%s: executableFormat = %q, want %q", tt.name, got, tt.want)
		}
	}
}
