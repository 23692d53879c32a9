package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/project"
	"github.com/clada/clada/internal/specs"
	"github.com/urfave/cli/v2"
)

// trustCommand is `clada trust`: the project's own .clada files shown,
// then trusted as they are.
func trustCommand(_ io.Reader, stdout, _ io.Writer) *cli.Command {
	return &cli.Command{
		Name:  "trust",
		Usage: "trust this project's own .clada files: show what they change, then use them",
		Description: "A project's config.toml, commands.toml and specs.toml loosen nothing until you trust them\n" +
			"(docs/config.md, \"Scopes and trust\"). clada trust shows what each file allows or loosens beyond clada's defaults,\n" +
			"then records their content hashes in your state directory; a later change to a file\n" +
			"(a git pull, a command) makes it untrusted again. What clada writes itself after you answered\n" +
			"stays trusted." + examples(
			"clada trust",
			"clada trust --root ~/src/app"),
		Flags: []cli.Flag{rootFlag()},
		Action: func(c *cli.Context) error {
			if err := noArgs(c, "run clada trust alone, in the project"); err != nil {
				return err
			}
			return trustAction(c.String("root"), stdout)
		},
	}
}

// trustAction is clada trust: it shows what each of the project's files
// changes beyond what clada uses without trust, and records the hash of
// exactly the content it showed. A file that does not parse is an error,
// and nothing is recorded.
func trustAction(root string, stdout io.Writer) error {
	abs, how, err := project.Locate(root)
	if err != nil {
		return err
	}
	if err := approve.CheckDir(abs); err != nil {
		return withHint(err, "a command may have made it: check what it points to, then remove it")
	}
	fmt.Fprintf(stdout, "root: %s\n", project.Where(abs, how))
	files, err := approve.ReadProjectFiles(abs)
	if err != nil {
		return err
	}
	hashes := map[string]string{}
	var lines []string
	for _, f := range files {
		what, err := trustSummary(f.Path, f.Name, f.Data)
		if err != nil {
			return withHint(err, "fix the file, then run clada trust again; nothing was trusted")
		}
		hashes[f.Name] = approve.Hash(f.Data)
		lines = append(lines, fmt.Sprintf("%s/%s: %s", approve.DirName, f.Name, what))
	}
	if len(hashes) == 0 {
		if err := approve.ForgetTrust(abs); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "nothing to trust: %s has none of %s\n", filepath.Join(abs, approve.DirName), strings.Join(approve.ProjectFiles, ", "))
		return nil
	}
	for _, l := range lines {
		fmt.Fprintln(stdout, l)
	}
	if err := approve.RecordTrust(abs, hashes, true); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "clada: trusted %d %s as they are now; a change to any of them needs clada trust again\n", len(hashes), plural(len(hashes), "file", "files"))
	return nil
}

// trustSummary says what trusting one file adds to what clada uses
// without trust.
func trustSummary(path, name string, data []byte) (string, error) {
	switch name {
	case approve.ConfigFile, approve.PersonalConfigFile:
		cfg, err := approve.ParseConfig(path, data)
		if err != nil {
			return "", err
		}
		if l := approve.Loosened(cfg); len(l) > 0 {
			return "sets " + strings.Join(l, ", "), nil
		}
		return "only tightens (it applies without trust too)", nil
	case approve.CommandsFile, approve.LegacyFile, approve.PersonalCommandsFile:
		allowed, blocked, err := approve.ParseCommands(path, data, name == approve.LegacyFile, gateway.ParsePattern)
		if err != nil {
			return "", err
		}
		network, err := approve.ParseNetwork(path, data, name == approve.LegacyFile, gateway.ParsePattern)
		if err != nil {
			return "", err
		}
		// The hosts the file lets commands reach ([[network]] allow),
		// which trust gives as it gives the allowed patterns.
		var hosts []string
		for _, r := range network {
			if len(r.Allow) > 0 {
				hosts = append(hosts, fmt.Sprintf("`%s` → %s", r.Pattern.Text, strings.Join(r.Allow, ", ")))
			}
		}
		reach := ""
		if len(hosts) > 0 {
			reach = fmt.Sprintf("; lets %d %s reach hosts through clada's proxy: %s", len(hosts), plural(len(hosts), "pattern", "patterns"), strings.Join(hosts, "; "))
		}
		if len(allowed) == 0 && reach != "" {
			return fmt.Sprintf("allows no command without asking; blocks %d %s", len(blocked), plural(len(blocked), "pattern", "patterns")) + reach, nil
		}
		if len(allowed) == 0 {
			return fmt.Sprintf("allows nothing; blocks %d %s (blocks apply without trust too)", len(blocked), plural(len(blocked), "pattern", "patterns")), nil
		}
		texts := make([]string, len(allowed))
		for i, p := range allowed {
			texts[i] = p.Text
			if w := gateway.RunsAnything(p); w != "" {
				texts[i] += " (" + w + ")"
			}
		}
		return fmt.Sprintf("allows %d %s without asking: %s", len(allowed), plural(len(allowed), "pattern", "patterns"), strings.Join(texts, "; ")) + reach, nil
	case approve.SpecsFile:
		set, err := specs.ParseData(path, data)
		if err != nil {
			return "", err
		}
		names := set.Names()
		return fmt.Sprintf("gives %d %s its own spec (in place of clada's): %s", len(names), plural(len(names), "command", "commands"), strings.Join(names, ", ")), nil
	}
	return "", fmt.Errorf("%s: not a file clada trusts", path)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
