package specs

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	for _, f := range in.TreeFlags {
		if sp.flags[f] != TypeOutPath {
			return bad("tree_flags", "%s is not an outpath flag", f)
		}
	}
	sp.treeFlags = in.TreeFlags
	for field, fs := range map[string][]string{"backup_flags": in.BackupFlags, "extract_flags": in.ExtractFlags, "extract_keep": in.ExtractKeep} {
		for _, f := range fs {
			if _, ok := sp.flags[f]; !ok {
				return bad(field, "%s is not in flags", f)
			}
		}
	}
	if len(in.ExtractKeep) > 0 && len(in.ExtractFlags) == 0 {
		return bad("extract_keep", "needs extract_flags")
	}
	sp.backupFlags, sp.extractFlags, sp.extractKeep = in.BackupFlags, in.ExtractFlags, in.ExtractKeep
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
	if len(sp.treeFlags) > 0 {
		fmt.Fprintf(b, "  %s: an existing file or directory there is removed and made anew (allowed only when git can restore all of it)\n", strings.Join(sp.treeFlags, " "))
	}
	if len(sp.backupFlags) > 0 {
		fmt.Fprintf(b, "  with %s each replaced NAME is first renamed to NAME~, replacing an existing NAME~ (allowed only when git can restore it)\n", strings.Join(sp.backupFlags, " "))
	}
	if len(sp.extractFlags) > 0 {
		fmt.Fprintf(b, "  with %s it writes files named by its input into the directory it works in: that directory is destroyed with everything under it (allowed only when git can restore all of it)", strings.Join(sp.extractFlags, " "))
		if len(sp.extractKeep) > 0 {
			fmt.Fprintf(b, ", unless %s", strings.Join(sp.extractKeep, " "))
		}
		b.WriteString("\n")
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
		dest, srcs := p.destination(paths)
		if dest == "" {
			break
		}
		res := follow(dir, dest)
		if res != "" && sp.targetDir && isDir(res) && (p.target || !p.any(sp.targetSelf)) {
			for _, src := range srcs {
				add(filepath.Join(dest, sp.destName(p, src)), get(res, sp.destName(p, src)))
			}
			break
		}
		add(dest, get(dir, dest))
	}
	// Other written flag values (sort -o FILE, tar -f FILE) replace an
	// existing file; a directory there is only written into, unless the
	// flag is a tree flag (pytest --basetemp removes it first).
	for _, fp := range p.flagPaths {
		if !fp.write || (p.target && sp.targetDir) || devNullOut(fp, sp.targetDir) {
			continue
		}
		if slices.Contains(sp.treeFlags, fp.flag) {
			add(fp.arg, entry(dir, fp.arg))
			continue
		}
		if res := follow(dir, fp.arg); res != "" && !isDir(res) {
			add(fp.arg, res)
		}
	}
	return append(out, sp.extracted(p, dir, r)...)
}

// backups adds to ds, the paths a command replaces, what its backup
// flag replaces too: cp -b, mv -b and ln -b first rename each replaced
// NAME to NAME~ (GNU's simple backup; --backup=numbered takes a new name,
// but the value is not looked at), which replaces an existing NAME~.
func (sp *spec) backups(p parsed, ds []Destroyed) []Destroyed {
	if !p.any(sp.backupFlags) {
		return ds
	}
	for _, d := range ds {
		b := d.Path + "~"
		if fi, err := os.Lstat(b); err == nil {
			ds = append(ds, Destroyed{Arg: d.Arg + "~", Path: b, Tree: fi.IsDir()})
		}
	}
	return ds
}

// extracted lists the directories an extraction (extract_flags: tar -x)
// writes into, each destroyed with everything under it: the members'
// names come from the archive, which clada does not read, so any file
// below may be replaced. They are the block's directory dir, unless a
// chdir flag (tar -C) comes before every operand, and the directory each
// chdir flag leads to, in turn: GNU tar's -C is relative to the one
// before it. A directory that does not exist is left out (tar fails).
// With an extract_keep flag (tar -O) nothing is written.
func (sp *spec) extracted(p parsed, dir string, r *Resolver) []Destroyed {
	if !p.any(sp.extractFlags) || p.any(sp.extractKeep) {
		return nil
	}
	var out []Destroyed
	add := func(arg, abs string) {
		if isDir(abs) {
			out = append(out, Destroyed{Arg: arg, Path: abs, Tree: true})
		}
	}
	cur, chdir := dir, false
	for _, fp := range p.flagPaths {
		if !slices.Contains(sp.chdirFlags, fp.flag) {
			continue
		}
		if !chdir && fp.after > 0 {
			add(".", dir) // members named before the first -C
		}
		chdir = true
		res, err := r.Resolve(cur, fp.arg)
		if err != nil {
			// Out of the root from where tar is by then: the whole
			// project may be written.
			return append(out, Destroyed{Arg: fp.arg, Path: r.Root(), Tree: true})
		}
		cur = res
		add(fp.arg, cur)
	}
	if !chdir {
		add(".", dir)
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
