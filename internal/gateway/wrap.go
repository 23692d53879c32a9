package gateway

import (
	"fmt"
	"os"

	"github.com/clada/clada/internal/parser"
	"github.com/clada/clada/internal/rules"
	"github.com/clada/clada/internal/specs"
)

// maxWrapDepth bounds nested simple wrappers (env nice timeout 5 … cmd),
// as deep as the hard blocks see through them.
const maxWrapDepth = 8

// wrapped decides a simple wrapper (env, nice, timeout, time, stdbuf,
// nohup) by the command it runs, decided as if it stood alone (blocked
// patterns, hard blocks, confinement, allowed patterns, specs), after the
// wrapper's own words: a refusal of the command is the wrapper's refusal,
// an ask of either is an ask, and only two allows are an allow.
func (g *Gateway) wrapped(argv []string, u *specs.Unwrapped, absDir string, depth int) (v Verdict) {
	if u.Deny != nil {
		v := refused(u.Deny, u.Deny.Word)
		v.Dir = absDir
		return v
	}
	if depth >= maxWrapDepth {
		return Verdict{Decision: Deny, Rule: rules.Wrapper, Word: u.Name, Dir: absDir,
			Reason: fmt.Sprintf("more than %d wrappers inside each other", maxWrapDepth),
			Advice: "run the command with at most one wrapper"}
	}
	prog, err := g.opts.Specs.LookPath(u.Name)
	missing := ""
	if err != nil {
		prog, missing = u.Name, specs.MissingNote(u.Name, err)
	}
	defer func() {
		if missing != "" && v.Decision != Deny {
			v.Missing = missing
		}
	}()
	if u.Opaque {
		v := g.runnable(argv, absDir, prog)
		v.Decision, v.Rule, v.Word = Ask, rules.Wrapper, u.AskWord
		v.Why = u.Ask
		v.Reason = u.Ask + ", so the person must approve it"
		v.Advice = "run the program directly, or wait for the person to approve"
		return v
	}
	dir := absDir
	if u.Chdir != "" {
		d, err := g.resolver.Resolve(absDir, u.Chdir)
		if err != nil {
			return refused(err, u.Chdir)
		}
		if !g.isDir(d) {
			return Verdict{Decision: Deny, Rule: rules.DirNotFound, Word: u.Chdir, Dir: absDir,
				Reason: fmt.Sprintf("env --chdir %q is not a directory inside the project", u.Chdir),
				Advice: "use the dir attribute of the RUN block instead"}
		}
		dir = d
	}
	var out []specs.Destroyed
	if u.Output != "" {
		res, err := g.resolver.Confine(absDir, u.Output, true)
		if err != nil {
			v := refused(err, u.Output)
			v.Dir = absDir
			return v
		}
		if fi, err := os.Stat(res); err == nil && !fi.IsDir() && !u.Append {
			out = append(out, specs.Destroyed{Arg: u.Output, Path: res}) // time -o replaces it
		}
	}
	head := append([]string{prog}, u.Opts...)
	if u.Inner == nil {
		v = Verdict{Decision: Allow, Rule: rules.Spec, Exec: head, Dir: absDir,
			Reason: fmt.Sprintf("%s runs no command here", u.Name)}
	} else {
		in := g.decideInner(u.Inner, dir, depth+1)
		if in.Decision == Deny {
			in.Dir = absDir
			return in
		}
		v = in
		if u.Name == "env" {
			// env -i and -u would drop what the command needs from
			// clada's environment (git's hardening): pass it as
			// assignments after the model's, which env applies last.
			head = append(head, in.Env...)
		}
		v.Exec = append(head, in.Exec...)
		v.Dir = absDir
		if v.Decision == Allow {
			v.Reason = fmt.Sprintf("%s runs `%s`: %s", u.Name, parser.Quote(u.Inner), in.Reason)
		}
	}
	if u.Ask != "" {
		why := u.Ask
		if v.Decision == Ask && v.Why != "" {
			why += "; " + v.Why
		}
		v.Decision, v.Rule, v.Word, v.Why = Ask, rules.Wrapper, u.AskWord, why
		v.Reason = why + ", so the person must approve it"
		v.Advice = "leave the setting out if the command does not need it, or wait for the person to approve"
	}
	return g.restorable(v, []string{u.Name}, out)
}

// decideInner is the decision for a wrapped command: the blocked
// patterns, then everything decide does.
func (g *Gateway) decideInner(argv []string, dir string, depth int) Verdict {
	if v, ok := g.blocked(argv); ok {
		v.Dir = dir
		return v
	}
	return g.decide(argv, dir, depth)
}
