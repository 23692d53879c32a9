package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/clada/clada/internal/project"
)

// openProject opens the project for a command: --root when given, else
// the root found from the working directory; sys is --os.
func openProject(root string, untrusted bool, sys string) (*project.Project, error) {
	return project.Open(project.Options{Root: root, Untrusted: untrusted, OS: sys})
}

// openTrusted opens the project for clada run and check, which CI runs:
// there (CI set, or --no-prompt) a project file the person has not
// trusted is an error naming it, unless --trust-project vouches for the
// repository. Elsewhere clada goes on with what the files tighten, and
// the note saying so is returned for the caller to print once.
func openTrusted(root string, untrusted, trustProject, noPrompt bool, sys string) (p *project.Project, note string, err error) {
	p, err = project.Open(project.Options{Root: root, Untrusted: untrusted, TrustProject: trustProject, OS: sys})
	if err != nil {
		return nil, "", err
	}
	note = p.UntrustedNote()
	if note != "" && (noPrompt || os.Getenv("CI") != "") {
		why := "CI set"
		if noPrompt {
			why = "--no-prompt"
		}
		return nil, "", withHint(fmt.Errorf("%s", note),
			"with %s nobody can review it here: run `clada trust` where a person can, or pass --trust-project when the workflow's author vouches for the repository", why)
	}
	if len(p.DirsMissing) > 0 {
		missing := fmt.Sprintf("the granted directories %s do not exist here, so reads there are asked like any read outside the project (dirs in config.toml)",
			strings.Join(p.DirsMissing, ", "))
		if note != "" {
			note += "; " + missing
		} else {
			note = missing
		}
	}
	return p, note, nil
}
