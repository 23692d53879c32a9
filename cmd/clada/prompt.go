package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/clada/clada/internal/guide"
)

type promptOptions struct {
	root, format string
	untrusted    bool
}

// promptAction prints the instructions for a model's system prompt, as
// text or as one JSON string.
func promptAction(o promptOptions, stdout io.Writer) error {
	if o.format != "text" && o.format != "json" {
		return withHint(fmt.Errorf("unknown format %q for prompt", o.format), "--format text|json")
	}
	p, err := openProject(o.root, o.untrusted, "")
	if err != nil {
		return err
	}
	text := guide.Text(guide.FromProject(p, o.untrusted))
	if o.format == "text" {
		_, err = io.WriteString(stdout, text)
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(text)
}
