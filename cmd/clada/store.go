package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/project"
	"github.com/clada/clada/internal/rules"
)

// patternHelp is the description of PATTERN in the help of clada allow,
// block and forget.
const patternHelp = "PATTERN is a command line parsed like a RUN body (shell syntax is refused). It matches\n" +
	"commands with the same argv, or, when its last word is *, commands starting with the rest."

// storeAction is clada allow, block and forget (name): it adds pattern to
// the allowed or blocked list of .clada/commands.toml, or removes it from
// both; nargs is how many words it was given, force is allow's --force.
func storeAction(name, root, pattern string, nargs int, force bool, stdout io.Writer) error {
	if nargs == 0 {
		return withHint(errors.New("no pattern"), "clada %s 'npm test'", name)
	}
	abs, how, err := project.Locate(root)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "clada: project root %s\n", project.Where(abs, how))
	switch name {
	case "forget":
		path, removed, err := approve.Remove(abs, pattern, gateway.ParsePattern)
		if err != nil {
			return storeError(err)
		}
		if !removed {
			fmt.Fprintf(stdout, "clada: `%s` was not in %s\n", pattern, path)
			return exitError(exitFailed)
		}
		fmt.Fprintf(stdout, "clada: removed `%s` from %s\n", pattern, path)
		return nil
	default:
		list := approve.ListAllowed
		if name == "block" {
			list = approve.ListBlocked
		} else if err := gateway.CheckAllowPattern(abs, pattern); err != nil {
			return withHint(err, "%s", err.(*gateway.PatternError).Advice)
		} else if stop, err := allowChecks(abs, pattern, force, stdout); stop || err != nil {
			return err
		}
		path, changed, err := approve.AddChanged(abs, list, pattern, gateway.ParsePattern)
		if err != nil {
			return storeError(err)
		}
		if !changed {
			fmt.Fprintf(stdout, "clada: `%s` is already in %s in %s\n", pattern, list, path)
			return nil
		}
		fmt.Fprintf(stdout, "clada: added `%s` to %s in %s\n", pattern, list, path)
		return nil
	}
}

// storeError gives an error of allow/block/forget the hint that fits it:
// the file is unusable, or the pattern is.
func storeError(err error) error {
	var fe *approve.FileError
	if errors.As(err, &fe) {
		return withHint(err, "fix or move the file; clada never rewrites a file it cannot read")
	}
	var d *rules.Denied
	if errors.As(err, &d) {
		return withHint(err, "patterns are command lines without shell syntax; a final * matches any further words")
	}
	return withHint(err, "check that .clada/ is a directory clada can write")
}
