package acp

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/devagent/dev/mention"
	"github.com/devagent/dev/tools"
)

// requestText is what an editor's prompt asks, as dev -p would be asked
// it: the text of its text blocks as written, then the files it embeds
// (their content as the editor sent it, an unsaved buffer's maybe) or
// links (read from the disk), attached after it as @ mentions attach
// files, within READ_FILE's caps. A link dev cannot open (not a file:// URI)
// is named in the text. Images and audio are refused: dev does not
// advertise them, and its models read text.
func requestText(dir string, blocks []sdk.ContentBlock) (string, error) {
	var (
		text  strings.Builder
		files []mention.File
	)
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			text.WriteString(b.Text.Text)
		case b.Resource != nil:
			files = append(files, embedded(dir, b.Resource.Resource))
		case b.ResourceLink != nil:
			link := b.ResourceLink
			path, ok := filePath(link.Uri)
			if !ok {
				fmt.Fprintf(&text, "[%s](%s)", link.Name, link.Uri)
				continue
			}
			disp := display(dir, path)
			f, err := tools.ReadText(path, disp)
			if err != nil {
				return "", fmt.Errorf("the prompt links %s, which dev cannot read: %w", link.Uri, err)
			}
			files = append(files, mention.File{Path: disp, Text: f.Text, Size: f.Size, Binary: f.Binary})
		case b.Image != nil:
			return "", fmt.Errorf("the prompt holds an image: dev takes text, and files as resources or links")
		case b.Audio != nil:
			return "", fmt.Errorf("the prompt holds audio: dev takes text, and files as resources or links")
		}
	}
	if strings.TrimSpace(text.String()) == "" && len(files) == 0 {
		return "", fmt.Errorf("the prompt is empty")
	}
	return mention.Attach(text.String(), files), nil
}

// embedded is a resource the editor sent with its content, named as the
// model sees files: a file of the working directory by its relative path,
// with the lines the editor selected (#L5:15) when it says which.
func embedded(dir string, r sdk.EmbeddedResourceResource) mention.File {
	var uri string
	switch {
	case r.TextResourceContents != nil:
		uri = r.TextResourceContents.Uri
	case r.BlobResourceContents != nil:
		uri = r.BlobResourceContents.Uri
	}
	disp := uri
	if path, ok := filePath(uri); ok {
		disp = display(dir, path)
		if u, err := url.Parse(uri); err == nil && u.Fragment != "" {
			disp += "#" + u.Fragment
		}
	}
	if r.TextResourceContents != nil {
		f := tools.TextOf(r.TextResourceContents.Text, disp)
		return mention.File{Path: disp, Text: f.Text, Size: f.Size, Binary: f.Binary}
	}
	size := int64(0)
	if r.BlobResourceContents != nil {
		blob := strings.TrimSpace(r.BlobResourceContents.Blob)
		size = int64(len(blob)/4*3 - strings.Count(blob[max(0, len(blob)-2):], "="))
	}
	return mention.File{Path: disp, Size: size, Binary: true}
}

// filePath is the local path of a file:// URI (percent-decoded, without
// the fragment that marks a selection).
func filePath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", false
	}
	p := u.Path
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' { // file:///C:/x on Windows
		p = p[1:]
	}
	return filepath.FromSlash(p), true
}

// display names path for the model as the tools do: relative to dir with
// forward slashes when inside it, absolute otherwise.
func display(dir, path string) string {
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return filepath.ToSlash(rel)
}
