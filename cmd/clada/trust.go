package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/project"
	"github.com/clada/clada/internal/specs"
)

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

// initConfig is the commented config.toml clada init writes: every key at
// its default, commented out, so the file changes nothing until the
// person edits it.
const initConfig = `# clada's settings for this project (docs/config.md). Every line is
# commented out: clada's defaults apply until you change one. A change made
# by anything but clada needs ` + "`clada trust`" + ` again before it loosens anything.
#
# timeout = "60s"          # per command, 1s to 24h
# max_output = "10MB"      # stdout+stderr per command; past it the command is killed
# approval_timeout = "60s" # how long a question waits for an answer
# untrusted = false        # true: ask even for commands the specs allow
# hard_blocks = true       # the built-in hard blocks (sudo, rm -rf /, ...)
# sandbox = "auto"         # auto, required or off
# compose = true           # true: RUN blocks may be compositions too; false: nowhere
# secrets = []             # file name patterns whose reading is asked, besides the built-in ones
`

// initGitignore is .clada/.gitignore: what must not be committed.
const initGitignore = `# clada: what must not be committed.
out/
*.lock
# your personal settings and patterns, beside the project's
*.local.toml
`

// initAction is clada init: it writes a commented .clada/config.toml and
// .clada/.gitignore where they do not exist (an existing file is never
// replaced), trusts what it wrote, and prints the next steps.
func initAction(root string, stdout io.Writer) error {
	abs := root
	if abs == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		abs = wd
	}
	abs, err := filepath.Abs(abs)
	if err != nil {
		return err
	}
	if err := approve.EnsureDir(abs); err != nil {
		return err
	}
	dot := filepath.Join(abs, approve.DirName)
	hashes := map[string]string{}
	for _, f := range []struct{ name, text string }{{approve.ConfigFile, initConfig}, {".gitignore", initGitignore}} {
		path := filepath.Join(dot, f.name)
		w, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			fmt.Fprintf(stdout, "clada: %s exists; left as it is\n", path)
			continue
		}
		if err != nil {
			return err
		}
		_, err = w.WriteString(f.text)
		if err = errors.Join(err, w.Close()); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		fmt.Fprintf(stdout, "clada: wrote %s\n", path)
		if f.name == approve.ConfigFile {
			hashes[f.name] = approve.Hash([]byte(f.text))
		}
	}
	if len(hashes) > 0 {
		if err := approve.RecordTrust(abs, hashes, false); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, `next steps:
  clada check 'go test ./...'   # what clada decides for a command, and why
  clada allow 'go test *'       # let a command run without asking (clada trust shows what a cloned project allows)
  clada hook install claude-code  # or gemini, cursor; or register clada mcp with your agent
  commit .clada/config.toml and .clada/.gitignore; your own settings go in .clada/config.local.toml
`)
	return nil
}
