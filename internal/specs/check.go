package specs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clada/clada/internal/rules"
)

// Check decides argv, run in dir (absolute, already confined by the
// caller), against the specs. The order: a wrapper is Ask (rules.Wrapper),
// whatever the specs say; an argv[0] that is not a bare name is NoSpec; git
// goes to gitrules; a name without a spec is NoSpec; otherwise every flag,
// value and path must fit the spec, or the verdict is Deny naming the
// argument. On Allow, Exec holds the program found by exec.LookPath (the
// bare name, and Missing says so, when it is not installed)
// (resolved once per name per Set) and the final arguments. Hard blocks are
// not checked here; see [HardBlock].
func (s *Set) Check(argv []string, dir string, r *Resolver) Verdict {
	if len(argv) == 0 {
		return Verdict{Outcome: Deny, Rule: rules.Spec, Reason: "empty command", Advice: "write a command"}
	}
	if reason, ok := Wrapper(argv); ok {
		return Verdict{Outcome: Ask, Rule: rules.Wrapper, Arg: argv[0], Reason: reason, Advice: "run the program directly, or wait for the person to approve"}
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
		return Verdict{Outcome: Deny, Rule: rules.Spec, Arg: name, Reason: err.Error(), Advice: "report this bug in clada; meanwhile ask the person to run the command"}
	}
	if sp == nil {
		return Verdict{Outcome: NoSpec, Reason: "no spec for " + name}
	}
	v := sp.forDialect(s.dialect).check(argv, dir, r)
	if v.Outcome != Allow && v.Outcome != Ask {
		return v
	}
	v.grant(sp)
	prog, err := s.LookPath(name)
	switch {
	case len(sp.guard) == 0 || len(v.Exec) == 0:
	case sp.scriptCheck != "":
		v = s.checkedGuard(sp, v, prog, err, r)
	default:
		v = s.guarded(sp, v, prog, err, r)
	}
	if v.Outcome == Ask {
		return v
	}
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

// check applies one spec; on Allow and Ask, Exec[0] is still the bare name.
func (sp *spec) check(argv []string, dir string, r *Resolver) Verdict {
	if helpOnly(argv[1:]) && !sp.noHelp {
		return Verdict{Outcome: Allow, Rule: rules.Spec, Reason: sp.name + " " + argv[1] + " only prints", Exec: sp.execFor(argv)}
	}
	if sp.subs != nil {
		return sp.checkSub(argv, dir, r)
	}
	return sp.checkPlain(argv, dir, r)
}

// checkPlain applies one spec without subcommands.
func (sp *spec) checkPlain(argv []string, dir string, r *Resolver) Verdict {
	args := argv[1:]
	if sp.bundled {
		args = sp.unbundle(args)
	}
	p, derr := sp.parseArgs(args)
	if derr != nil {
		return denyVerdict(derr)
	}
	for f := range sp.patternFlags {
		if p.seen[f] {
			p.pattern = true // rg --files: every operand is a path
		}
	}
	if len(sp.writesWith) > 0 && !p.any(sp.writesWith) {
		// tar -f names the archive written by tar -c, read by tar -t.
		for i := range p.flagPaths {
			p.flagPaths[i].write = false
		}
		p.target = false
	}
	flagTouched, deny, ok := sp.confineFlagPaths(p.flagPaths, dir, r)
	if !ok {
		return deny
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
	for _, o := range ops {
		for prefix, why := range sp.forbidOperands {
			if strings.HasPrefix(o, prefix) {
				return Verdict{Outcome: Deny, Rule: rules.Spec, Arg: o, Reason: fmt.Sprintf("%s operand %s starts with %q: %s", sp.name, o, prefix, why),
					Advice: "name a file that starts with " + prefix + " as ./" + o + "; " + sp.usage()}
			}
		}
	}
	for _, o := range ops[:npos] {
		if sp.positionalPrefix != "" && !strings.HasPrefix(o, sp.positionalPrefix) {
			return Verdict{Outcome: Deny, Rule: rules.Spec, Arg: o, Reason: fmt.Sprintf("%s operand %s must start with %q", sp.name, o, sp.positionalPrefix), Advice: sp.usage()}
		}
		if sp.modeOperand {
			if err := checkMode(sp.name, o); err != nil {
				return denyVerdict(err)
			}
		}
	}
	var touched []Path // every path the command opens, for Verdict.Paths
	if sp.slashPaths {
		// which /outside/x tests that file: an operand with a
		// separator is a path, read.
		for _, o := range ops[:npos] {
			if !strings.ContainsAny(o, `/\`) {
				continue
			}
			res, err := r.Confine(dir, o, false)
			if err != nil {
				return denyErr(err)
			}
			touched = append(touched, Path{o, res})
		}
	}
	touched = append(flagTouched, touched...)
	paths := ops[npos:]
	if sp.scriptCheck == "awk" {
		// awk '{…}' n=1 a.txt: an operand NAME=VALUE sets a variable
		// before awk reads the files after it; it opens nothing.
		paths = slices.DeleteFunc(slices.Clone(paths), isAwkAssign)
	}
	if sp.modeOperand && npos == 0 && !p.pattern {
		return Verdict{Outcome: Deny, Rule: rules.Spec, Reason: sp.name + " needs a mode", Advice: sp.usage()}
	}
	switch {
	case sp.exactPaths >= 0 && len(paths) != sp.exactPaths:
		return Verdict{Outcome: Deny, Rule: rules.TooManyPaths, Reason: fmt.Sprintf("%s takes exactly %d path(s), got %d", sp.name, sp.exactPaths, len(paths)), Advice: sp.usage()}
	case sp.maxPaths >= 0 && len(paths) > sp.maxPaths:
		arg := paths[sp.maxPaths]
		reason := fmt.Sprintf("%s takes at most %d path(s), got %d", sp.name, sp.maxPaths, len(paths))
		if sp.maxPaths == 0 {
			reason = fmt.Sprintf("%s takes no path or operand here, got %q", sp.name, arg)
		}
		return Verdict{Outcome: Deny, Rule: rules.TooManyPaths, Arg: arg, Reason: reason, Advice: sp.usage()}
	}
	if sp.noRemote {
		for _, a := range paths {
			if remotePath(a) {
				return remoteDeny(sp.name, a)
			}
		}
	}
	if sp.link {
		lt, err := sp.checkLink(p, paths, dir, r)
		if err != nil {
			return denyErr(err)
		}
		touched = append(touched, lt...)
		paths = nil // checked, and destroyed below
	}
	if sp.dotPaths {
		for _, a := range paths {
			if !strings.HasPrefix(a, ".") && !filepath.IsAbs(a) {
				return Verdict{Outcome: Deny, Rule: rules.Spec, Arg: a,
					Reason: fmt.Sprintf("%s takes %s for an import path or a pattern, which Go resolves outside the project too (go fmt std rewrites GOROOT)", sp.name, a),
					Advice: "name the package by its directory: ./" + a + " (./src/... for the packages below src)"}
			}
		}
	}
	// tar -C DIR opens later operands from DIR, and GNU tar takes each
	// -C from the directory the one before led to (-C .. -C .. climbs
	// twice): every such directory must stay inside the root, and the
	// operands are confined from each.
	var chdirs []string
	cd := dir
	for _, fp := range p.flagPaths {
		if !slices.Contains(sp.chdirFlags, fp.flag) {
			continue
		}
		// Resolve, not Confine: a directory tar changes to is where
		// tar -x writes, never a read outside to ask about.
		res, err := r.Resolve(cd, fp.arg)
		if err != nil {
			return denyErr(err)
		}
		cd = res
		chdirs = append(chdirs, res)
	}
	var read []Path // the paths the command reads, for copies_mode
	for i, fp := range p.flagPaths {
		if !fp.write {
			read = append(read, flagTouched[i])
		}
	}
	last := len(paths) - 1
	for i, a := range paths {
		write := sp.writes == WritesAll || (sp.writes == WritesLast && i == last && last > 0 && !p.target) || p.any(sp.editFlags)
		res, err := r.Confine(dir, a, write)
		if err != nil {
			return denyErr(err)
		}
		touched = append(touched, Path{a, res})
		if !write {
			read = append(read, Path{a, res})
		}
		for _, cd := range chdirs {
			res, err := r.Confine(cd, a, write)
			if err != nil {
				return denyErr(err)
			}
			// The file tar opens: tar -C .git config reads
			// .git/config, a secret.
			touched = append(touched, Path{a, res})
		}
		// cp a b dir/ writes dir/a and dir/b: check them too, so that a
		// symlink dir/a -> .git/config is not written through.
		if sp.targetDir && write && i == last {
			if fi, err := os.Stat(res); err == nil && fi.IsDir() {
				for _, src := range paths[:last] {
					if _, err := r.Confine(res, sp.destName(p, src), true); err != nil {
						return denyErr(err)
					}
				}
			}
		}
	}
	if len(sp.walkLinks) > 0 {
		write := sp.writes == WritesAll || p.any(sp.editFlags)
		if err := sp.checkLinks(paths, dir, write, r); err != nil {
			return denyErr(err)
		}
	}
	listAsk := ""
	if p.any(sp.checkLists) {
		lt, ask, err := sp.checkListed(paths, dir, r)
		if err != nil {
			return denyErr(err)
		}
		touched = append(touched, lt...)
		listAsk = ask
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
				if _, err := r.Confine(res, sp.destName(p, src), true); err != nil {
					return denyErr(err)
				}
			}
		}
	}
	if err := sp.checkTrees(p, paths, dir, r); err != nil {
		return denyErr(err)
	}
	if err := sp.checkModeSources(p, read); err != nil {
		return denyErr(err)
	}
	if sp.modeOperand && p.any([]string{"-R", "--recursive"}) {
		// chmod -R sub changes every mode under sub, in a nested
		// sub/.git/ too (chmod -R +x makes its hooks run).
		for _, a := range paths {
			res, err := r.Resolve(dir, a)
			if err != nil || !isDir(res) {
				continue
			}
			if err := r.checkTree(a, res, sp.name+" -R", "change the modes there", "name the directories to change without it"); err != nil {
				return denyErr(err)
			}
		}
	}
	destroyed := sp.destroyed(p, paths, dir, r)
	if sp.link {
		destroyed = sp.linkDestroyed(p, ops, dir, r)
	}
	destroyed = sp.backups(p, destroyed)
	if sp.deletes(p) {
		destroyed = sp.findDestroyed(ops, dir, r)
		for _, d := range destroyed {
			if d.Tree {
				if err := r.checkDeleteTree(d.Arg, d.Path); err != nil {
					return denyErr(err)
				}
			}
		}
	}
	v := Verdict{Outcome: Allow, Rule: rules.Spec, Reason: sp.name + " fits its spec", Exec: sp.execFor(argv), Env: sp.env, Destroys: destroyed, Paths: touched}
	if len(p.inner) > 0 {
		start := "."
		if len(ops) > 0 {
			start = ops[0]
		}
		for _, in := range p.inner {
			v.Inner = append(v.Inner, substBraces(in, start))
		}
		v.Outcome, v.Rule = Ask, rules.SpecAsk
		v.Reason = sp.name + " " + strings.Join(sp.seenOf(p, sp.execActions), " ") + " runs a command for each file it finds"
		v.Advice = "run the inner command on the files yourself, or wait for the person to approve"
		return v
	}
	why := sp.askWhy(p)
	if why == "" {
		why = listAsk
	}
	if why == "" && sp.modeOperand && p.any([]string{"-R", "--recursive"}) {
		why = sp.recursiveWriteWhy(p, ops[:npos], flagTouched)
	}
	if why == "" && (len(sp.scriptAsks) > 0 || sp.scriptCheck != "") {
		var files []Path
		for i, fp := range p.flagPaths {
			if sp.patternFlags[fp.flag] {
				files = append(files, touched[i])
			}
		}
		// jq -f takes no value: it makes the first operand the script
		// file (jq -fr f.jq, jq x.json -f f.jq runs x.json).
		for f := range sp.patternFlags {
			if sp.flags[f] == TypeBool && p.seen[f] && len(ops) > 0 {
				if res, err := r.Confine(dir, ops[0], false); err == nil {
					files = append(files, Path{ops[0], res})
				}
				break
			}
		}
		why = sp.scriptWhy(append(p.scripts, ops[:npos]...), files)
		if why == "" && sp.scriptCheck != "" {
			for _, f := range files {
				if !r.inside(f.Resolved) {
					// Not a read outside to ask about: clada would
					// parse the file, and its parse errors quote it.
					return Verdict{Outcome: Deny, Rule: rules.PathOutsideRoot, Arg: f.Arg,
						Reason: sp.name + " program file " + f.Arg + " is outside the project, and clada checks a program file only inside it",
						Advice: "copy the program into the project, or give it inline"}
				}
			}
			var streams bool
			if why, streams = sp.checkScript(files, append(p.scripts, ops[:npos]...)); why != "" {
				v.Outcome, v.Rule, v.Reason, v.Arg = Ask, rules.SpecAsk, why, ""
				v.Advice = "print to standard output and let the shell redirect it, read only the files named as operands, or wait for the person to approve; `clada allow '" + sp.name + " *'` consents to every " + sp.name + " program from now on"
				return v
			}
			if streams {
				// gawk --sandbox refuses print > "/dev/stderr" too.
				v.Exec = sp.dropGuard(v.Exec)
			}
		}
	}
	if why != "" {
		v.Outcome, v.Rule, v.Reason = Ask, rules.SpecAsk, why
		v.Arg = p.unknown
		v.Advice = "wait for the person to approve; `clada allow '" + sp.name + " *'` consents to this command from now on"
	}
	return v
}

// confineFlagPaths confines the path values of flags, in order, and
// returns them as Paths; a remote HOST:FILE value (no_remote) or one
// outside the root is denied (ok false, and the verdict). An output file
// /dev/null stays as written (devNullOut).
func (sp *spec) confineFlagPaths(fps []pathArg, dir string, r *Resolver) (touched []Path, deny Verdict, ok bool) {
	for _, fp := range fps {
		if sp.noRemote && remotePath(fp.arg) {
			return nil, remoteDeny(sp.name, fp.arg), false
		}
		if devNullOut(fp, sp.targetDir) {
			touched = append(touched, Path{fp.arg, fp.arg})
			continue
		}
		confine := r.Confine
		if slices.Contains(sp.chdirFlags, fp.flag) || slices.Contains(workFlags, fp.flag) {
			// tar -C, make -C, npm --prefix: see workFlags.
			confine = func(base, p string, _ bool) (string, error) { return r.Resolve(base, p) }
		}
		res, err := confine(dir, fp.arg, fp.write)
		if err != nil {
			return nil, denyErr(err), false
		}
		touched = append(touched, Path{fp.arg, res})
	}
	return touched, Verdict{}, true
}

// workFlags are path options that name where a program works, or a file
// it may write as well as read, rather than a file it only reads: make
// -C, npm --prefix, cargo --manifest-path (builds in that crate), go
// -modfile (go mod tidy rewrites it), go -pkgdir, pytest --rootdir and
// --confcutdir, tsc -p and --project, swift --package-path, and a
// --config that decides what the program does (black, ruff). Their value is confined to the root (and the granted
// directories) even where reads outside are asked (rule read-outside): a
// question "reads ../x" would hide that the program works there. A spec's
// chdir_flags are treated so too.
var workFlags = []string{"-C", "--directory", "--prefix", "--manifest-path", "-modfile", "-pkgdir", "--rootdir", "--confcutdir",
	"-p", "--project", "--package-path", "--config"}

// destName is the name cp gives the source src under a destination
// directory: its last element, or, with a parents flag (cp --parents),
// the whole source path as written, without leading separators (cp
// --parents src/a.txt dir writes dir/src/a.txt, creating dir/src; .. in
// it is followed as the kernel follows it, so Confine sees where it
// lands).
func (sp *spec) destName(p parsed, src string) string {
	if p.any(sp.parentsFlags) {
		if n := strings.TrimLeft(src, `/\`); n != "" {
			return n
		}
		return "."
	}
	return baseName(src)
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
	var de *rules.Denied
	if errors.As(err, &de) {
		return denyVerdict(de)
	}
	return Verdict{Outcome: Deny, Rule: rules.PathOutsideRoot, Reason: err.Error(), Advice: "use a path inside the project root"}
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
		for _, part := range sp.withSubs() {
			for _, ex := range part.allow {
				if v := sp.checkExample(ex, r); v.Outcome != Allow {
					errs = append(errs, fmt.Errorf("%s: %s: allow example %q is %s: %s", sp.source, part.name, ex, v.Outcome, v.Reason))
				}
			}
			for _, ex := range part.deny {
				if v := sp.checkExample(ex, r); v.Outcome != Deny {
					errs = append(errs, fmt.Errorf("%s: %s: deny example %q is %s: %s", sp.source, part.name, ex, v.Outcome, v.Reason))
				}
			}
			for _, ex := range part.asked {
				if v := sp.checkExample(ex, r); v.Outcome != Ask {
					errs = append(errs, fmt.Errorf("%s: %s: asked example %q is %s: %s", sp.source, part.name, ex, v.Outcome, v.Reason))
				}
			}
		}
		// The examples above hold under the GNU dialect wherever clada
		// runs; bsd_allow and bsd_deny under the BSD dialect.
		bsd := sp.forDialect(DialectBSD)
		for _, ex := range sp.bsdAllow {
			if v := bsd.checkExample(ex, r); v.Outcome != Allow {
				errs = append(errs, fmt.Errorf("%s: %s: bsd_allow example %q is %s under the BSD dialect: %s", sp.source, name, ex, v.Outcome, v.Reason))
			}
		}
		for _, ex := range sp.bsdDeny {
			if v := bsd.checkExample(ex, r); v.Outcome != Deny {
				errs = append(errs, fmt.Errorf("%s: %s: bsd_deny example %q is %s under the BSD dialect", sp.source, name, ex, v.Outcome))
			}
		}
	}
	return errors.Join(errs...)
}

func (sp *spec) checkExample(ex string, r *Resolver) Verdict {
	argv, err := splitExample(ex)
	if err != nil {
		return Verdict{Outcome: Deny, Rule: rules.Spec, Reason: err.Error()}
	}
	if e := HardBlock(argv, r.Root(), r); e != nil {
		return denyVerdict(e)
	}
	return sp.check(argv, r.Root(), r)
}
