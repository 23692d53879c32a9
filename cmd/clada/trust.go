package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/clada/clada/approve"
	"github.com/clada/clada/gateway"
	"github.com/clada/clada/internal/smallfile"
	"github.com/clada/clada/project"
	"github.com/clada/clada/specs"
)

// maxTrustedFile bounds a project file clada trust reads (the loaders'
// bound is the same order: a larger file is a mistake).
const maxTrustedFile = 4 << 20

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
	hashes := map[string]string{}
	var lines []string
	for _, name := range approve.ProjectFiles {
		path := filepath.Join(abs, approve.DirName, name)
		data, err := smallfile.Read(path, maxTrustedFile)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if len(data) > maxTrustedFile {
			return fmt.Errorf("%s is larger than %d bytes: clada does not read it", path, maxTrustedFile)
		}
		what, err := trustSummary(path, name, data)
		if err != nil {
			return withHint(err, "fix the file, then run clada trust again; nothing was trusted")
		}
		hashes[name] = approve.Hash(data)
		lines = append(lines, fmt.Sprintf("%s/%s: %s", approve.DirName, name, what))
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
	case approve.ConfigFile:
		cfg, err := approve.ParseConfig(path, data)
		if err != nil {
			return "", err
		}
		if l := approve.Loosened(cfg); len(l) > 0 {
			return "sets " + strings.Join(l, ", "), nil
		}
		return "only tightens (it applies without trust too)", nil
	case approve.CommandsFile, approve.LegacyFile:
		allowed, blocked, err := approve.ParseCommands(path, data, name == approve.LegacyFile, gateway.ParsePattern)
		if err != nil {
			return "", err
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
		return fmt.Sprintf("allows %d %s without asking: %s", len(allowed), plural(len(allowed), "pattern", "patterns"), strings.Join(texts, "; ")), nil
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

// untrustAction is clada untrust.
func untrustAction(root string, stdout io.Writer) error {
	abs, how, err := project.Locate(root)
	if err != nil {
		return err
	}
	if err := approve.ForgetTrust(abs); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "root: %s\nclada: no file of this project is trusted now; clada uses only what they tighten until clada trust\n", project.Where(abs, how))
	return nil
}

// configAction is clada config: every setting's effective value and the
// file it comes from (as git config --show-origin), with the scopes'
// files and which of them are not trusted.
func configAction(root string, stdout io.Writer) error {
	p, err := project.Open(project.Options{Root: root})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "root: %s\n", project.Where(p.Root, p.Discovered))
	fmt.Fprintf(stdout, "scopes (a later one wins for values; a block in any scope beats an allow in any; managed wins over all):\n")
	dot := filepath.Join(p.Root, approve.DirName)
	user := "(no user configuration directory)"
	if d := approve.UserDir(); d != "" {
		user = d
	}
	for _, s := range [][2]string{{"user", user}, {"project", dot}, {"personal", filepath.Join(dot, "*.local.toml")}, {"managed", approve.ManagedDir()}} {
		fmt.Fprintf(stdout, "  %-8s %s\n", s[0], s[1])
	}
	if note := p.UntrustedNote(); note != "" {
		fmt.Fprintf(stdout, "note: %s\n", note)
	}
	for _, key := range approve.ConfigKeys {
		origin := p.Config.Origins[key]
		if origin == "" {
			origin = "default"
		}
		fmt.Fprintf(stdout, "%s = %s\t# %s\n", key, p.Config.ShowValue(key), origin)
	}
	return nil
}
