package specs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clada/clada/internal/rules"
)

// Forms of particular tools that the spec fields name: tar's bundled
// first word, chmod's mode, ln's targets, find's -delete and -exec, and
// the guard of sed and awk (docs/specs.md).

// unbundle turns tar's traditional first word into flags: tar czf out.tgz
// a is tar -c -z -f out.tgz a. Each letter that takes a value takes the
// next word, in order (tar cfC a.tar dir); a first word starting with '-'
// is left alone.
func (sp *spec) unbundle(args []string) []string {
	if len(args) == 0 || args[0] == "" || strings.HasPrefix(args[0], "-") {
		return args
	}
	out := make([]string, 0, len(args)+len(args[0]))
	rest := args[1:]
	for _, c := range args[0] {
		name := "-" + string(c)
		out = append(out, name)
		if t, ok := sp.flags[name]; ok && t != TypeBool && t != TypeOpt && len(rest) > 0 {
			out = append(out, rest[0])
			rest = rest[1:]
		}
	}
	return append(out, rest...)
}

// checkMode denies a chmod mode that sets the setuid or setgid bit (4xxx,
// 2xxx, u+s, g+s, +s, =s), or that is no mode at all.
func checkMode(name, m string) *rules.Denied {
	suid := &rules.Denied{Rule: rules.FlagValue, Word: m,
		Reason: fmt.Sprintf("%s %s sets the setuid or setgid bit, which runs the file with its owner's or group's rights", name, m),
		Advice: "leave out the s bit (4xxx, 2xxx, u+s, g+s); use modes such as 644, 755 or u+x"}
	if m != "" && strings.Trim(m, "01234567") == "" {
		v, err := strconv.ParseUint(m, 8, 32)
		if err != nil || v > 0o7777 {
			return &rules.Denied{Rule: rules.FlagValue, Word: m, Reason: fmt.Sprintf("%s %s is not a mode", name, m), Advice: "write a mode such as 644 or u+x"}
		}
		if v&0o6000 != 0 {
			return suid
		}
		return nil
	}
	if !symbolicMode(m) {
		return &rules.Denied{Rule: rules.FlagValue, Word: m, Reason: fmt.Sprintf("%s %s is not a mode", name, m), Advice: "write a mode such as 644 or u+x"}
	}
	for _, clause := range strings.Split(m, ",") {
		ops := strings.TrimLeft(clause, "ugoa")
		op := byte(0)
		for i := 0; i < len(ops); i++ {
			switch c := ops[i]; {
			case c == '+' || c == '-' || c == '=':
				op = c
			case op != '-' && (c == 's' || c >= '0' && c <= '7'):
				return suid
			}
		}
	}
	return nil
}

// recursiveWriteWhy says why a recursive mode change (chmod -R) is asked:
// its mode (modes, the mode operand) or the mode of its --reference file
// (touched, the flag paths) grants write to the group or to others, so
// every file below becomes writable by other users (chmod -R o+w, g+w,
// a+w, 777, 0666, =rw, go=u). A mode without u, g, o or a (+w, =rw) is
// counted as a: chmod applies it as a less the umask, and the umask 002
// of many systems leaves group write in. "" when it grants neither.
func (sp *spec) recursiveWriteWhy(p parsed, modes []string, touched []Path) string {
	for _, m := range modes {
		if grantsSharedWrite(m) {
			return fmt.Sprintf("%s -R %s makes every file below writable by the group or by others", sp.name, m)
		}
	}
	if !p.any(sp.copiesMode) {
		return ""
	}
	for _, t := range touched {
		fi, err := os.Stat(t.Resolved)
		if err == nil && fi.Mode().Perm()&0o022 != 0 {
			return fmt.Sprintf("%s -R --reference=%s copies mode %s, which makes every file below writable by the group or by others", sp.name, t.Arg, octalMode(fi.Mode()&fs.ModePerm))
		}
	}
	return ""
}

// grantsSharedWrite says whether the chmod mode m (already checked by
// checkMode) gives write permission to the group or to others: an octal
// mode with 020 or 002, or a symbolic clause that adds or sets w, or
// copies another class's bits (g=u, o+u), for g, o, a or no class.
func grantsSharedWrite(m string) bool {
	if m != "" && strings.Trim(m, "01234567") == "" {
		v, err := strconv.ParseUint(m, 8, 32)
		return err != nil || v&0o022 != 0
	}
	for _, clause := range strings.Split(m, ",") {
		ops := strings.TrimLeft(clause, "ugoa")
		who := clause[:len(clause)-len(ops)]
		shared := who == "" || strings.ContainsAny(who, "goa")
		op := byte(0)
		for i := 0; i < len(ops); i++ {
			switch c := ops[i]; {
			case c == '+' || c == '-' || c == '=':
				op = c
			case op != '-' && shared && strings.IndexByte("wugo", c) >= 0:
				return true
			case op != '-' && shared && c >= '0' && c <= '7' && (c-'0')&2 != 0:
				return true
			}
		}
	}
	return false
}

// checkModeSources applies copies_mode: with one of its flags the command
// gives the files it writes the modes of the files it reads (cp -p, -a,
// --preserve; chmod --reference), so a file read that has the setuid or
// setgid bit is denied, as a mode with that bit is. With a walk_target
// flag too (cp -a, cp -pr), every entry below a source directory is
// checked, without following symlinks, at most maxTreeEntries. A file is
// looked at when clada decides; the sandbox refuses the bits to what runs
// confined whatever happens after (sandbox.seccompProgram).
func (sp *spec) checkModeSources(p parsed, read []Path) error {
	if !p.any(sp.copiesMode) {
		return nil
	}
	flags := strings.Join(sp.seenOf(p, sp.copiesMode), " ")
	deny := func(arg, rel string, mode fs.FileMode) *rules.Denied {
		what := arg
		if rel != "" {
			what = fmt.Sprintf("%s holds %s, which", arg, rel)
		}
		advice := fmt.Sprintf("leave out %s (then %s drops the s bits), or ask the person", flags, sp.name)
		if sp.modeOperand {
			advice = fmt.Sprintf("give the mode itself, without the s bits (%s %s FILE)", sp.name, octalMode(mode&fs.ModePerm))
		}
		return &rules.Denied{Rule: rules.FlagValue, Word: arg,
			Reason: fmt.Sprintf("%s %s copies the mode of %s, and %s has the setuid or setgid bit (mode %s): the files it writes would run with their owner's or group's rights", sp.name, flags, arg, what, octalMode(mode)),
			Advice: advice}
	}
	const setID = fs.ModeSetuid | fs.ModeSetgid
	walk := p.any(sp.walkTarget)
	for _, src := range read {
		fi, err := os.Stat(src.Resolved)
		if err != nil {
			continue // the program fails on a missing file
		}
		if fi.Mode()&setID != 0 {
			return deny(src.Arg, "", fi.Mode())
		}
		if !walk || !fi.IsDir() {
			continue
		}
		n := 0
		var found *rules.Denied
		err = filepath.WalkDir(src.Resolved, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if n++; n > maxTreeEntries {
				return errTreeTooLarge
			}
			if d.Type()&fs.ModeSymlink != 0 {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			if info.Mode()&setID != 0 {
				rel, rerr := filepath.Rel(src.Resolved, path)
				if rerr != nil {
					rel = path
				}
				found = deny(src.Arg, filepath.Join(src.Arg, rel), info.Mode())
				return fs.SkipAll
			}
			return nil
		})
		switch {
		case found != nil:
			return found
		case err != nil:
			return &rules.Denied{Rule: rules.FlagValue, Word: src.Arg,
				Reason: fmt.Sprintf("%s could not be checked for files with the setuid or setgid bit, whose modes %s %s would copy: %v", src.Arg, sp.name, flags, err),
				Advice: fmt.Sprintf("copy smaller directories, or leave out %s", flags)}
		}
	}
	return nil
}

// octalMode writes m as chmod's octal mode (4755).
func octalMode(m fs.FileMode) string {
	v := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		v |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		v |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		v |= 0o1000
	}
	return fmt.Sprintf("%04o", v)
}

// symbolicMode reports whether m is a symbolic mode as chmod reads it:
// clauses [ugoa]*([-+=]([rwxXst]*|[ugo]|[0-7]+))+ joined by ','. It also
// tells chmod -x FILE (a mode) from an option.
func symbolicMode(m string) bool {
	if m == "" {
		return false
	}
	for _, clause := range strings.Split(m, ",") {
		ops := strings.TrimLeft(clause, "ugoa")
		if ops == "" || !strings.ContainsRune("+-=", rune(ops[0])) {
			return false
		}
		for i := 0; i < len(ops); i++ {
			if !strings.ContainsRune("+-=rwxXstugo01234567", rune(ops[i])) {
				return false
			}
		}
	}
	return true
}

// lnPair is one link that ln makes: the link's path and its target, as
// written.
type lnPair struct{ link, target string }

// linkPairs lists the links ln makes: ln T LINK, ln T... DIR (DIR/NAME of
// each), ln -t DIR T..., ln T (./NAME).
func (sp *spec) linkPairs(p parsed, paths []string, dir string, r *Resolver) []lnPair {
	var out []lnPair
	dest, targets := "", paths
	for _, fp := range p.flagPaths {
		if fp.write {
			dest = fp.arg
		}
	}
	switch {
	case dest != "":
	case len(paths) == 1:
		return []lnPair{{baseName(paths[0]), paths[0]}}
	case len(paths) >= 2:
		dest, targets = paths[len(paths)-1], paths[:len(paths)-1]
		if len(paths) == 2 && !p.target && p.any(sp.targetSelf) {
			return []lnPair{{dest, targets[0]}}
		}
		res, err := r.Resolve(dir, dest)
		if len(paths) == 2 && (err != nil || !isDir(res)) {
			return []lnPair{{dest, targets[0]}}
		}
	}
	for _, t := range targets {
		out = append(out, lnPair{filepath.Join(dest, baseName(t)), t})
	}
	return out
}

// checkLink confines every link ln makes (as written) and its target: a
// link may not be made in .git/ or .clada/, and a target may not point
// there or outside the root, since every later command that
// writes through the link would write there. With -s, and without -r, a
// target is resolved from the link's directory, as the kernel will.
func (sp *spec) checkLink(p parsed, paths []string, dir string, r *Resolver) ([]Path, error) {
	var touched []Path
	symbolic := p.seen["-s"] || p.seen["--symbolic"]
	relative := p.seen["-r"] || p.seen["--relative"]
	for _, lp := range sp.linkPairs(p, paths, dir, r) {
		lres, err := r.Confine(dir, lp.link, true)
		if err != nil {
			return nil, err
		}
		base := dir
		if symbolic && !relative {
			base = filepath.Dir(lres)
		}
		// The target is not written by ln: it may have other hard links
		// (a later write through the new link is checked then), but it
		// may not be in .git/ or .clada/.
		tres, err := r.Resolve(base, lp.target)
		if err != nil {
			var de *rules.Denied
			if symbolic && !relative && errors.As(err, &de) && de.Rule == rules.PathOutsideRoot {
				de.Reason = fmt.Sprintf("the symlink %s would point to %s, resolved from the link's directory: %s", lp.link, lp.target, de.Reason)
			}
			return nil, err
		}
		if name := r.protected(tres); name != "" {
			return nil, &rules.Denied{Rule: rules.ProtectedPath, Word: lp.target,
				Reason: fmt.Sprintf("%s is inside %s/: a link to it lets later commands write there", lp.target, name),
				Advice: "do not link to " + name + "/; ask the person to do it"}
		}
		touched = append(touched, Path{lp.link, lres}, Path{lp.target, tres})
	}
	return touched, nil
}

// linkDestroyed lists the existing entries ln -f replaces.
func (sp *spec) linkDestroyed(p parsed, paths []string, dir string, r *Resolver) []Destroyed {
	if !p.seen["-f"] && !p.seen["--force"] {
		return nil
	}
	var out []Destroyed
	for _, lp := range sp.linkPairs(p, paths, dir, r) {
		if e := r.entry(dir, lp.link); e != "" {
			if fi, err := os.Lstat(e); err == nil {
				out = append(out, Destroyed{Arg: lp.link, Path: e, Tree: fi.IsDir()})
			}
		}
	}
	return out
}

// deletes reports whether a find-style command deletes what it finds
// (find -delete, an edit flag of a tests spec).
func (sp *spec) deletes(p parsed) bool {
	return sp.tests != nil && p.any(sp.editFlags)
}

// findDestroyed is what find -delete may delete: every starting point
// (. when none) with everything under it.
func (sp *spec) findDestroyed(starts []string, dir string, r *Resolver) []Destroyed {
	if len(starts) == 0 {
		starts = []string{"."}
	}
	var out []Destroyed
	for _, s := range starts {
		e := r.entry(dir, s)
		if e == "" {
			continue
		}
		if fi, err := os.Lstat(e); err == nil {
			out = append(out, Destroyed{Arg: s, Path: e, Tree: fi.IsDir()})
		}
	}
	return out
}

// substBraces replaces find's {} in cmd with start, a path the command
// will see (one of the files found lies under it).
func substBraces(cmd []string, start string) []string {
	out := make([]string, len(cmd))
	for i, w := range cmd {
		out[i] = strings.ReplaceAll(w, "{}", start)
	}
	return out
}

// guardTimeout bounds each run of a guard probe.
const guardTimeout = 2 * time.Second

// guarded keeps v, a verdict for sp whose Exec holds sp.guard, when the
// installed program (prog, or lookErr) accepts the guard; otherwise it
// drops the guard from Exec and asks: without it the program's script can
// run programs and write files.
func (s *Set) guarded(sp *spec, v Verdict, prog string, lookErr error, r *Resolver) Verdict {
	if lookErr == nil && s.guardWorks(sp, prog, r) {
		return v
	}
	n := 1 + len(sp.harden)
	v.Exec = append(v.Exec[:n:n], v.Exec[n+len(sp.guard):]...)
	if v.Outcome == Allow {
		v.Outcome, v.Rule = Ask, rules.SpecAsk
		v.Reason = fmt.Sprintf("this %s does not take %s (clada checked with `%s %s`), so its script could run programs or write files",
			sp.name, strings.Join(sp.guard, " "), sp.name, strings.Join(sp.guardProbe, " "))
		v.Advice = "wait for the person to approve, or install GNU " + sp.name + " (with " + strings.Join(sp.guard, " ") + ")"
	}
	return v
}

// checkedGuard is guarded for a spec whose script clada checks itself
// (script_check): the decision is the checker's, the same whichever
// program is installed. A program the checker allowed keeps the guard
// where the installed program takes it (gawk --sandbox: a second fence),
// and runs without it elsewhere (mawk, BWK awk); an asked one runs without
// it, so that what the person approves (system(), print > f) is what runs.
func (s *Set) checkedGuard(sp *spec, v Verdict, prog string, lookErr error, r *Resolver) Verdict {
	if !sp.hasGuard(v.Exec) || (v.Outcome == Allow && lookErr == nil && s.guardWorks(sp, prog, r)) {
		return v
	}
	v.Exec = sp.dropGuard(v.Exec)
	return v
}

// hasGuard says whether exec, as execFor built it, holds sp's guard.
func (sp *spec) hasGuard(exec []string) bool {
	n := 1 + len(sp.harden)
	return len(sp.guard) > 0 && len(exec) >= n+len(sp.guard) && slices.Equal(exec[n:n+len(sp.guard)], sp.guard)
}

// dropGuard returns exec without sp's guard.
func (sp *spec) dropGuard(exec []string) []string {
	if !sp.hasGuard(exec) {
		return exec
	}
	n := 1 + len(sp.harden)
	return append(exec[:n:n], exec[n+len(sp.guard):]...)
}

// guardWorks runs the probes of sp's guard once per Set: the program,
// given guard_probe, must exit 0, and given guard_refuse (a script the
// guard forbids, such as writing /dev/null), must fail; a program that
// ignores an unknown option fails the second. A program inside the
// project is never run to find out.
func (s *Set) guardWorks(sp *spec, prog string, r *Resolver) bool {
	s.mu.Lock()
	ok, done := s.guards[sp.name]
	s.mu.Unlock()
	if done {
		return ok
	}
	run := func(args []string) bool {
		ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, prog, args...)
		cmd.Dir = os.TempDir()
		return cmd.Run() == nil
	}
	real, err := filepath.EvalSymlinks(prog)
	ok = err == nil && !r.inside(real) && run(sp.guardProbe) && (len(sp.guardRefuse) == 0 || !run(sp.guardRefuse))
	s.mu.Lock()
	s.guards[sp.name] = ok
	s.mu.Unlock()
	return ok
}

// checkDeleteTree denies find -delete on a starting point (res, arg as
// written) that holds a .git or .clada directory at any depth: find walks
// into it, and a test such as -name config would delete what it finds
// there. A tree too large to walk (maxTreeEntries) is denied too.
func (r *Resolver) checkDeleteTree(arg, res string) error {
	return r.checkTree(arg, res, "find -delete", "delete what matches there", "start find in a directory without .git/ or .clada/ (find src -name x -delete)")
}

// checkTree denies a command (what) that walks the tree at res (arg as
// written) and changes what it finds (does) when the tree holds a .git
// or .clada directory at any depth (find -delete, chmod -R of a directory
// holding a nested repository), or is too large to check.
func (r *Resolver) checkTree(arg, res, what, does, instead string) error {
	n := 0
	found := ""
	err := filepath.WalkDir(res, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // find skips what it cannot read
		}
		n++
		if n > maxTreeEntries {
			return errTreeTooLarge
		}
		if d.IsDir() && ProtectedName(d.Name()) != "" {
			found = path
			return fs.SkipAll
		}
		return nil
	})
	switch {
	case found != "":
		rel, rerr := filepath.Rel(r.root, found)
		if rerr != nil {
			rel = found
		}
		return &rules.Denied{Rule: rules.ProtectedPath, Word: arg,
			Reason: fmt.Sprintf("%s would walk into %s/ under %s and %s", what, rel, arg, does),
			Advice: instead + ", or ask the person"}
	case errors.Is(err, errTreeTooLarge):
		return &rules.Denied{Rule: rules.ProtectedPath, Word: arg,
			Reason: fmt.Sprintf("%s is too large to check (more than %d entries) for a .git/ or .clada/ that %s would walk into", arg, maxTreeEntries, what),
			Advice: "name a smaller directory, or ask the person"}
	}
	return nil
}

// devNullOut reports whether fp is an output file flag given /dev/null
// (go build -o /dev/null, sort -o /dev/null): the program opens it to
// write and the bytes vanish, so it is allowed outside the root. Never a
// target directory (cp -t), and never an operand, which a program may
// unlink or rename over (rm /dev/null, mv x /dev/null).
func devNullOut(fp pathArg, targetDir bool) bool {
	return fp.write && !targetDir && fp.arg == "/dev/null" && runtime.GOOS != "windows"
}
