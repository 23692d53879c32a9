package specs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Deleting and overwriting (docs/rules.md, `destroys`): a spec says which
// of its path operands the command deletes or replaces (destroys = "all"
// for rm, "last" for the destination of cp and mv, "none" for touch and
// mkdir; by default what writes says), and which flags make it edit every
// path operand in place (edit_flags, sed -i). [Set.Check] lists in
// [Verdict.Destroys] every such path that exists; the gateway allows the
// command only when git can restore all of them.

// Destroyed is an existing path that a command deletes or replaces.
type Destroyed struct {
	Arg  string // as the model wrote it
	Path string // absolute, inside the root
	// Tree is set for a directory: it goes with everything under it
	// (rm -r; the destination tree of cp -r or mv, conservatively).
	Tree bool
}

func (sp *spec) buildDestroys(in fileSpec, bad func(f, format string, args ...any) *SpecError) *SpecError {
	sp.destroys = in.Destroys
	if sp.destroys == "" {
		sp.destroys = sp.writes
	}
	if sp.destroys != WritesNone && sp.writes == WritesNone {
		return bad("destroys", "a command that writes none of its paths cannot destroy them (set writes)")
	}
	for _, f := range in.EditFlags {
		if _, ok := sp.tests[f]; ok {
			sp.editFlags = append(sp.editFlags, f) // find -delete
			continue
		}
		if _, ok := sp.flags[f]; !ok {
			return bad("edit_flags", "%s is not in flags", f)
		}
		sp.editFlags = append(sp.editFlags, f)
	}
	return nil
}

func (sp *spec) printDestroys(b *strings.Builder) {
	switch sp.destroys {
	case WritesAll:
		b.WriteString("  destroys: every path (allowed only when git can restore each; directories with everything under them)\n")
	case WritesLast:
		b.WriteString("  destroys: an existing destination (allowed only when git can restore it)\n")
	}
	if len(sp.editFlags) > 0 {
		fmt.Fprintf(b, "  with %s every path is edited in place (allowed only when git can restore each)\n", strings.Join(sp.editFlags, " "))
	}
}

// destroyed lists the existing paths the command deletes or replaces;
// paths are the path operands, all already confined. A path the program
// deletes or renames over (rm, mv, sed -i) is the entry itself, a symlink
// not followed unless written with a trailing slash (rm -r link/ empties
// the directory it points to); a destination it opens and writes into (cp:
// destroys = "last" with writes = "last") is followed. An edited symlink
// counts twice, as itself and as what it points to, since sed -i replaces
// the link and sed -i --follow-symlinks the file.
func (sp *spec) destroyed(p parsed, paths []string, dir string, r *Resolver) []Destroyed {
	var out []Destroyed
	add := func(arg, abs string) {
		if fi, err := os.Lstat(abs); err == nil {
			out = append(out, Destroyed{Arg: arg, Path: abs, Tree: fi.IsDir()})
		}
	}
	entry := func(base, arg string) string { return r.entry(base, arg) }
	follow := func(base, arg string) string {
		res, err := r.Resolve(base, arg)
		if err != nil {
			return ""
		}
		return res
	}
	if p.any(sp.editFlags) {
		for _, a := range paths {
			e := entry(dir, a)
			add(a, e)
			if f := follow(dir, a); f != e && f != "" {
				add(a, f)
			}
		}
		return out
	}
	switch sp.destroys {
	case WritesAll:
		for _, a := range paths {
			add(a, entry(dir, a))
		}
	case WritesLast:
		get := entry
		if sp.writes == WritesLast {
			get = follow
		}
		dest, srcs := "", paths
		switch {
		case p.target:
			for _, fp := range p.flagPaths {
				if fp.write {
					dest = fp.arg
				}
			}
		case len(paths) >= 2:
			dest, srcs = paths[len(paths)-1], paths[:len(paths)-1]
		}
		if dest == "" {
			break
		}
		res := follow(dir, dest)
		if res != "" && sp.targetDir && isDir(res) && (p.target || !p.any(sp.targetSelf)) {
			for _, src := range srcs {
				add(filepath.Join(dest, baseName(src)), get(res, baseName(src)))
			}
			break
		}
		add(dest, get(dir, dest))
	}
	// Other written flag values (sort -o FILE, tar -f FILE) replace an
	// existing file; a directory there is only written into.
	for _, fp := range p.flagPaths {
		if !fp.write || (p.target && sp.targetDir) || devNullOut(fp, sp.targetDir) {
			continue
		}
		if res := follow(dir, fp.arg); res != "" && !isDir(res) {
			add(fp.arg, res)
		}
	}
	return out
}

// entry resolves p from base as [Resolver.Resolve] does, except that a
// last component that is a symlink is not followed: the path of the entry
// that rm or mv removes. A trailing slash, "." or ".." at the end follows
// it. It returns "" when p cannot be resolved inside the root.
func (r *Resolver) entry(base, p string) string {
	if r.windows {
		// Both separators separate (--os windows on a POSIX system too).
		p = filepath.FromSlash(strings.ReplaceAll(p, `\`, "/"))
	}
	name := filepath.Base(p)
	if strings.HasSuffix(p, "/") || strings.HasSuffix(p, string(filepath.Separator)) || name == "." || name == ".." || name == string(filepath.Separator) {
		res, err := r.Resolve(base, p)
		if err != nil {
			return ""
		}
		return res
	}
	parent := filepath.Dir(p)
	pres, err := r.Resolve(base, parent)
	if err != nil {
		return ""
	}
	res := filepath.Join(pres, name)
	if !r.inside(res) {
		return ""
	}
	return res
}
