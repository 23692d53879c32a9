package specs

// RuleClada denies a command that runs clada itself in a way that changes
// what clada allows or runs without asking: clada allow, block and
// forget edit the person's patterns, and clada run (other than a dry run)
// can approve every ask with --trust-all or run another project's
// patterns with --root. A model must never grant itself permissions.
const RuleClada Rule = "clada-self"

// cladaReadOnly are the clada subcommands and options a command may run:
// they print and change nothing. Anything else, including subcommands
// clada does not have yet, is denied.
var cladaReadOnly = map[string]bool{
	"check": true, "list": true, "specs": true, "prompt": true,
	"help": true, "h": true, "--help": true, "-h": true, "--version": true, "-v": true,
}

// SelfInvocation returns a denial when argv, or a command it runs through
// a wrapper or a shell's -c script, runs clada other than to print
// something (check, list, specs, prompt, help, --version, run --dry-run).
// Unlike the hard blocks it cannot be switched off. A program counts as
// clada by its base name (clada, /usr/local/bin/clada, clada.exe).
func SelfInvocation(argv []string) *DeniedError {
	return eachCommand(argv, 0, cladaForm)
}

func cladaForm(argv []string) *DeniedError {
	if progName(argv[0]) != "clada" {
		return nil
	}
	if len(argv) == 1 || cladaReadOnly[argv[1]] {
		return nil // clada alone prints its usage
	}
	word := argv[1]
	if word == "run" {
		for _, a := range argv[2:] {
			if a == "--" {
				break
			}
			if a == "--dry-run" || a == "-dry-run" || a == "--dry-run=true" {
				return nil
			}
		}
	}
	reason := "clada " + word + " would let the command change what clada allows or run commands without the person's approval"
	switch word {
	case "allow", "block", "forget":
		reason = "clada " + word + " edits the person's allowed and blocked patterns; a command may never change its own permissions"
	case "run":
		reason = "clada run without --dry-run runs commands, and with --trust-all or --root it would approve them without the person"
	}
	return &DeniedError{Rule: RuleClada, Arg: word, Reason: reason,
		Advice: "do not run clada from a RUN block; ask the person to approve commands themselves (clada check and clada run --dry-run are fine)"}
}
