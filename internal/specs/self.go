package specs

import (
	"strings"

	"github.com/clada/clada/internal/rules"
)

// selfPermission are the clada subcommands that change what clada allows
// (keep in step with cmd/clada and docs/hooks.md).
var selfPermission = map[string]string{
	"allow":   "clada allow adds to the patterns clada allows",
	"block":   "clada block changes the patterns clada blocks",
	"forget":  "clada forget removes allowed and blocked patterns",
	"trust":   "clada trust makes the project's own .clada files count",
	"untrust": "clada untrust changes which of the project's files count",
	"init":    "clada init writes the project's .clada files",
}

// SelfPermission refuses argv when it, or a command it runs through a
// wrapper or a shell script (env clada allow x, sh -c 'clada forget x'),
// is clada changing its own permissions: `clada allow`, `clada block`,
// `clada forget`, `clada hook install`, `clada hook uninstall`. A model
// may never change what it is allowed to do; only the person may. Any
// program named clada counts, wherever it is. It returns nil otherwise.
// Unlike the hard blocks, this check cannot be switched off.
func SelfPermission(argv []string) *rules.Denied {
	return eachCommand(argv, 0, selfPermissionOne)
}

func selfPermissionOne(argv []string) *rules.Denied {
	if progName(argv[0]) != "clada" {
		return nil
	}
	sub, rest := Subcommand(argv[1:])
	why, ok := selfPermission[sub]
	if !ok && sub == "hook" {
		if s, _ := Subcommand(rest); s == "install" || s == "uninstall" {
			why, ok = "clada hook "+s+" changes the agent's hook settings", true
		}
	}
	if !ok && (sub == "run" || sub == "check" || sub == "mcp") {
		// --trust-project makes the project's own files count without
		// the person's clada trust (urfave/cli also reads -trust-project
		// and --trust-project=true).
		for _, a := range rest {
			if a == "--" {
				break
			}
			if n, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); strings.HasPrefix(a, "-") && n == "trust-project" {
				return &rules.Denied{Rule: rules.SelfPermission, Word: a,
					Reason: "clada " + sub + " " + a + " makes the project's own .clada files count without the person's clada trust; a model may never change its own permissions",
					Advice: "run it without --trust-project, or ask the person to trust the project (clada trust)"}
			}
		}
	}
	if !ok {
		return nil
	}
	return &rules.Denied{Rule: rules.SelfPermission, Word: sub,
		Reason: why + "; a model may never change its own permissions",
		Advice: "ask the person to run it themselves if it is needed"}
}

// Subcommand returns the first word of args that is not an option, the
// subcommand urfave/cli would run, and the words after it. It returns ""
// when every word is an option.
func Subcommand(args []string) (sub string, rest []string) {
	for i, a := range args {
		if a == "--" {
			if i+1 < len(args) {
				return args[i+1], args[i+2:]
			}
			return "", nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			return a, args[i+1:]
		}
	}
	return "", nil
}
