package specs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Check decides argv, run in dir (absolute, already confined by the
// caller), against the specs. The order: a wrapper is Ask (RuleWrapper),
// whatever the specs say; an argv[0] that is not a bare name is NoSpec; git
// goes to gitrules; a name without a spec is NoSpec; otherwise every flag,
// value and path must fit the spec, or the verdict is Deny naming the
// argument. On Allow, Exec holds the program found by exec.LookPath (the
// bare name, and Missing says so, when it is not installed)
// (resolved once per name per Set) and the final arguments. Hard blocks are
// not checked here; see [HardBlock].
func (s *Set) Check(argv []string, dir string, r *Resolver) Verdict {
	if len(argv) == 0 {
		return Verdict{Outcome: Deny, Rule: RuleSpec, Reason: "empty command", Advice: "write a command"}
	}
	if reason, ok := Wrapper(argv); ok {
		return Verdict{Outcome: Ask, Rule: RuleWrapper, Arg: argv[0], Reason: reason, Advice: "run the program directly, or wait for the person to approve"}
	}
	name := argv[0]
	if strings.ContainsAny(name, `/\`) {
		return Verdict{Outcome: NoSpec, Reason: name + " is a path, and specs apply only to bare program names"}
	}
	if name == "git" {
		return s.checkGit(argv, dir, r)
	}
	sp, err := s.spec(name)
	if err != nil {
		return Verdict{Outcome: Deny, Rule: RuleSpec, Arg: name, Reason: err.Error(), Advice: "report this bug in clada; meanwhile ask the person to run the command"}
	}
	if sp == nil {
		return Verdict{Outcome: NoSpec, Reason: "no spec for " + name}
	}
	v := sp.check(argv, dir, r)
	if v.Outcome == Ask {
		v.Network, v.Caches, v.CacheQuery = sp.network, sp.caches, sp.cacheQuery
	}
	if v.Outcome != Allow {
		return v
	}
	v.Network, v.Caches, v.CacheQuery = sp.network, sp.caches, sp.cacheQuery
	prog, err := s.LookPath(name)
	if err != nil {
		// Whether a program is installed is a fact about this machine,
		// not a policy: the verdict stands, and running it reports
		// exit 127 (see Verdict.Missing).
		v.Missing = MissingNote(name, err)
		return v
	}
	v.Exec[0] = prog
	return v
}

// MissingNote says that program name is not installed here, for
// [Verdict.Missing]: "`rg` is not installed here (not found in PATH)".
func MissingNote(name string, err error) string {
	why := "not found in PATH"
	if !errors.Is(err, exec.ErrNotFound) {
		why = err.Error()
	}
	return fmt.Sprintf("`%s` is not installed here (%s)", name, why)
}

// LookPath resolves a bare program name with exec.LookPath once per Set
// and caches the result, so a program is pinned for the whole run.
func (s *Set) LookPath(name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if lr, ok := s.path[name]; ok {
		return lr.path, lr.err
	}
	p, err := exec.LookPath(name)
	if err == nil && !filepath.IsAbs(p) {
		// exec.ErrDot covers "." in PATH; any other relative result
		// would depend on the working directory.
		err = fmt.Errorf("found only at relative path %s", p)
	}
	s.path[name] = lookResult{p, err}
	return p, err
}

// check applies one spec; on Allow, Exec[0] is still the bare name.
func (sp *spec) check(argv []string, dir string, r *Resolver) Verdict {
	p, derr := sp.parseArgs(argv[1:])
	if derr != nil {
		return denyVerdict(derr)
	}
	var touched []Path // every path the command opens, for Verdict.Paths
	for _, fp := range p.flagPaths {
		res, err := r.Confine(dir, fp.arg, fp.write)
		if err != nil {
			return denyErr(err)
		}
		touched = append(touched, Path{fp.arg, res})
	}
	ops := p.operands
	npos := sp.positionals
	if npos > 0 && p.pattern {
		npos = 0
	}
	if npos < 0 {
		npos = len(ops)
	}
	if npos > len(ops) {
		npos = len(ops)
	}
	for _, o := range ops[:npos] {
		if sp.positionalPrefix != "" && !strings.HasPrefix(o, sp.positionalPrefix) {
			return Verdict{Outcome: Deny, Rule: RuleSpec, Arg: o, Reason: fmt.Sprintf("%s operand %s must start with %q", sp.name, o, sp.positionalPrefix), Advice: sp.usage()}
		}
	}
	paths := ops[npos:]
	switch {
	case sp.exactPaths >= 0 && len(paths) != sp.exactPaths:
		return Verdict{Outcome: Deny, Rule: RuleTooManyPaths, Reason: fmt.Sprintf("%s takes exactly %d path(s), got %d", sp.name, sp.exactPaths, len(paths)), Advice: sp.usage()}
	case sp.maxPaths >= 0 && len(paths) > sp.maxPaths:
		arg := paths[sp.maxPaths]
		reason := fmt.Sprintf("%s takes at most %d path(s), got %d", sp.name, sp.maxPaths, len(paths))
		if sp.maxPaths == 0 {
			reason = fmt.Sprintf("%s takes no path or operand here, got %q", sp.name, arg)
		}
		return Verdict{Outcome: Deny, Rule: RuleTooManyPaths, Arg: arg, Reason: reason, Advice: sp.usage()}
	}
	last := len(paths) - 1
	for i, a := range paths {
		write := sp.writes == WritesAll || (sp.writes == WritesLast && i == last && last > 0 && !p.target) || p.any(sp.editFlags)
		res, err := r.Confine(dir, a, write)
		if err != nil {
			return denyErr(err)
		}
		touched = append(touched, Path{a, res})
		// cp a b dir/ writes dir/a and dir/b: check them too, so that a
		// symlink dir/a -> .git/config is not written through.
		if sp.targetDir && write && i == last {
			if fi, err := os.Stat(res); err == nil && fi.IsDir() {
				for _, src := range paths[:last] {
					if _, err := r.Confine(res, baseName(src), true); err != nil {
						return denyErr(err)
					}
				}
			}
		}
	}
	if sp.targetDir && p.target {
		for _, fp := range p.flagPaths {
			if !fp.write {
				continue
			}
			res, err := r.Confine(dir, fp.arg, true)
			if err != nil {
				return denyErr(err)
			}
			for _, src := range paths {
				if _, err := r.Confine(res, baseName(src), true); err != nil {
					return denyErr(err)
				}
			}
		}
	}
	if err := sp.checkTrees(p, paths, dir, r); err != nil {
		return denyErr(err)
	}
	exec := make([]string, 0, 1+len(sp.harden)+len(argv)-1)
	exec = append(exec, argv[0])
	exec = append(exec, sp.harden...)
	exec = append(exec, argv[1:]...)
	return Verdict{Outcome: Allow, Rule: RuleSpec, Reason: sp.name + " fits its spec", Exec: exec, Destroys: sp.destroyed(p, paths, dir, r), Paths: touched}
}

// baseName is the last element of a path as cp and mv use it ("a/b/" is b).
func baseName(p string) string {
	b := filepath.Base(p)
	if b == "/" || b == "." || b == ".." {
		return "."
	}
	return b
}

func denyErr(err error) Verdict {
	var de *DeniedError
	if errors.As(err, &de) {
		return denyVerdict(de)
	}
	return Verdict{Outcome: Deny, Rule: RulePathOutsideRoot, Reason: err.Error(), Advice: "use a path inside the project root"}
}

func (sp *spec) usage() string {
	if len(sp.allow) > 0 {
		return "for example: " + sp.allow[0]
	}
	return "see clada specs " + sp.name
}

// CheckExamples checks that every spec's allow examples are allowed and
// its deny examples denied, run in the root of r. Whether the program is
// installed does not matter here. It returns nil, or every failure
// (errors.Join).
func (s *Set) CheckExamples(r *Resolver) error {
	var errs []error
	for _, name := range s.Names() {
		sp, err := s.spec(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, ex := range sp.allow {
			if v := sp.checkExample(ex, r); v.Outcome != Allow {
				errs = append(errs, fmt.Errorf("%s: %s: allow example %q is %s: %s", sp.source, name, ex, v.Outcome, v.Reason))
			}
		}
		for _, ex := range sp.deny {
			if v := sp.checkExample(ex, r); v.Outcome != Deny {
				errs = append(errs, fmt.Errorf("%s: %s: deny example %q is %s", sp.source, name, ex, v.Outcome))
			}
		}
	}
	return errors.Join(errs...)
}

func (sp *spec) checkExample(ex string, r *Resolver) Verdict {
	argv, err := splitExample(ex)
	if err != nil {
		return Verdict{Outcome: Deny, Rule: RuleSpec, Reason: err.Error()}
	}
	if e := HardBlock(argv, r.Root(), r); e != nil {
		return denyVerdict(e)
	}
	return sp.check(argv, r.Root(), r)
}
