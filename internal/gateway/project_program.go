package gateway

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/clada/clada/internal/rules"
)

// projectProgram turns an allow or ask verdict whose program lies inside
// the project into ask, and says which file it is. A bare name is
// project-program (the spec that allowed it, or the lack of one, is not
// what runs); a path-like program (./tool.sh, bin/x) keeps its rule, and
// its question names the file too. Deny verdicts and the user's allowed
// patterns (the person's own consent) are left as they are.
func (g *Gateway) projectProgram(argv []string, v Verdict) Verdict {
	if v.Decision == Deny || len(v.Exec) == 0 || v.Rule == rules.AllowedPattern {
		return v
	}
	file := g.projectFile(v.Exec[0])
	if file == "" {
		return v
	}
	pathLike := strings.ContainsAny(argv[0], `/\`)
	what := fmt.Sprintf("`%s` is %s, a program inside the project", argv[0], file)
	if !pathLike {
		what = fmt.Sprintf("`%s` resolves through PATH to %s, a program inside the project", argv[0], file)
	}
	if pathLike {
		if v.Decision == Ask && !strings.Contains(v.Why, file) {
			v.Why = what + "; " + v.Why
		}
		return v
	}
	if v.Decision == Ask && v.Rule != rules.NotInSpecs && v.Rule != rules.Untrusted {
		// A wrapper or a git subcommand: its own reason stands, and
		// the question says which file runs.
		v.Why = what + "; " + v.Why
		return v
	}
	v.Decision, v.Rule, v.Word = Ask, rules.ProjectProgram, argv[0]
	v.Why = what + ": project code, not the system program clada's specs describe"
	v.Reason = v.Why + ", so the person must approve it"
	v.Advice = fmt.Sprintf("the person is asked; to run the system %s, take the project's directory off PATH", argv[0])
	return v
}

// projectFile returns program (an absolute path), relative to the root,
// when it or the file its symlinks lead to lies inside the root; "" when
// neither does. A link inside the project to /usr/bin/python3 counts: the
// link itself is a project file that a command could replace.
func (g *Gateway) projectFile(program string) string {
	if f, ok := g.programs[program]; ok {
		return f
	}
	root := g.Root()
	file := ""
	if rel, ok := relInside(root, program); ok {
		file = rel
	} else if real, err := filepath.EvalSymlinks(program); err == nil {
		if rel, ok := relInside(root, real); ok {
			file = rel
		}
	}
	g.programs[program] = file
	return file
}

// relInside returns p relative to root, slash-separated, when p (absolute)
// is root or below it.
func relInside(root, p string) (string, bool) {
	// The common case without filepath.Rel's work: clean p under clean root.
	if len(p) > len(root)+1 && p[len(root)] == filepath.Separator && strings.HasPrefix(p, root) &&
		filepath.Clean(p) == p && filepath.Clean(root) == root {
		return filepath.ToSlash(p[len(root)+1:]), true
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// systemPath returns PATH without its entries inside the project, and
// whether it dropped any. A command allowed by its spec runs with it: the
// spec describes the program and the helpers it starts by name (tar -z
// runs gzip, go list runs gcc, npm runs node through env), and an
// activated .venv/bin or a node_modules/.bin on PATH would make the
// helper a file the model can write. An empty or relative entry names a
// directory from wherever the program runs, so it is dropped too.
//
// The answer is kept until the gateway forgets what it learned about the
// file system: it resolves every PATH entry, which the dry run would
// otherwise do for every allowed block. A decide-only gateway never runs
// a command, so it leaves PATH alone ("", false) and resolves nothing.
func (g *Gateway) systemPath() (string, bool) {
	if g.opts.DecideOnly {
		return "", false
	}
	if g.sysPath == nil {
		p, dropped := g.findSystemPath()
		g.sysPath = &systemPathResult{p, dropped}
	}
	return g.sysPath.path, g.sysPath.dropped
}

func (g *Gateway) findSystemPath() (string, bool) {
	root := g.Root()
	list := filepath.SplitList(os.Getenv("PATH"))
	kept := list[:0:0]
	for _, dir := range list {
		if !filepath.IsAbs(dir) {
			continue
		}
		if _, in := relInside(root, filepath.Clean(dir)); in || filepath.Clean(dir) == root {
			continue
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			if _, in := relInside(root, real); in || real == root {
				continue
			}
		}
		kept = append(kept, dir)
	}
	if len(kept) == len(list) {
		return "", false
	}
	return strings.Join(kept, string(filepath.ListSeparator)), true
}
