package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/clada/clada/internal/guide"
	"github.com/urfave/cli/v2"
)

// promptCommand is `clada prompt`: the instructions for a model's system
// prompt.
func promptCommand(_ io.Reader, stdout, _ io.Writer) *cli.Command {
	return &cli.Command{
		Name:  "prompt",
		Usage: "print instructions for a model's system prompt: how to write RUN blocks for this project",
		Description: "Prints, for this project's specs, approvals and limits, how to write RUN blocks and dir,\n" +
			"what clada refuses and what to write instead, and what needs a person. Paste it into the\n" +
			"system prompt of the model whose replies you run with clada run." + examples(
			"clada prompt                 # plain text, under 60 lines",
			"clada prompt --format json   # the same text as one JSON string",
			"clada prompt --untrusted     # when replies run with --untrusted"),
		Flags: []cli.Flag{
			rootFlag(),
			formatFlag("text, or json for one JSON string"),
			&cli.BoolFlag{Name: "untrusted", Usage: "say that every command is asked, as clada run --untrusted does"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c, "clada prompt --format json"); err != nil {
				return err
			}
			return promptAction(promptOptions{root: c.String("root"), format: c.String("format"), untrusted: c.Bool("untrusted")}, stdout)
		},
	}
}

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
