package specs

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"

	"github.com/clada/clada/internal/gitrules"
	"github.com/clada/clada/internal/rules"
)

// checkGit decides git through gitrules: its Ask and Deny carry gitrules'
// rule codes; on Allow every path git will open is confined (read), and
// Exec and Env are what [Command] gives.
func (s *Set) checkGit(argv []string, dir string, r *Resolver) Verdict {
	args := argv[1:]
	gv := gitrules.Check(args)
	switch gv.Outcome {
	case gitrules.Allow:
	case gitrules.Ask:
		// An asked command may still not read or write outside the
		// root: git clone --reference /elsewhere, git format-patch -o ../x.
		v, bad := confineGit(gv, dir, r)
		if bad {
			return v
		}
		// Under the sandbox an approved git command that changes the
		// repository may write .git, and one that contacts other
		// machines gets the network.
		return Verdict{Outcome: Ask, Rule: rules.Rule(string(gv.Rule)), Arg: gv.Arg, Reason: gv.Reason, Advice: gv.Advice,
			Repository: true, Network: gitrules.ContactsNetwork(gv.Subcommand), Destroys: gitDestroys(gv, v.Paths)}
	default:
		return Verdict{Outcome: Deny, Rule: rules.Rule(string(gv.Rule)), Arg: gv.Arg, Reason: gv.Reason, Advice: gv.Advice}
	}
	confined, bad := confineGit(gv, dir, r)
	if bad {
		return confined
	}
	if file, from := s.gitConfig(r); file != "" {
		return gitIncludeAsk(r, file, from)
	}
	if gv.Textconv != "" {
		if drv := s.gitTextconv(r); drv != "" {
			return Verdict{Outcome: Ask, Rule: rules.Rule(string(rules.GitSubcommand)), Arg: gv.Textconv,
				Reason: fmt.Sprintf("git %s %s shows a diff with the textconv programs of git configuration, which git %s cannot turn off, and %s",
					gv.Subcommand, gv.Textconv, gv.Subcommand, drv),
				Advice: "see staged changes with git diff --cached and unstaged ones with git diff (clada runs them without textconv programs), or wait for the person"}
		}
	}
	if gv.Config != nil {
		if name, why := configCredential(gv.Config, dir, r, os.Getenv); name != "" {
			sub := "git " + gv.Subcommand
			return Verdict{Outcome: Ask, Rule: rules.Rule(string(rules.GitSubcommand)), Arg: name,
				Reason: fmt.Sprintf("%s would print %s, which may hold a credential: %s", sub, name, why),
				Advice: "the person at the terminal is asked; configuration without credentials is readable without asking"}
		}
	}
	prog, err := s.LookPath("git")
	missing := ""
	if err != nil {
		prog, missing = "git", MissingNote("git", err)
	}
	exec, env := Command(prog, argv, r.Root())
	reason := "git is allowed by clada's git rules"
	if gv.Subcommand != "" {
		reason = "git " + gv.Subcommand + " is allowed by clada's git rules"
	}
	return Verdict{Outcome: Allow, Rule: rules.Spec, Reason: reason, Exec: exec, Env: env, Missing: missing, Paths: confined.Paths,
		Destroys: gitDestroys(gv, confined.Paths)}
}

// gitDestroys lists what the paths git writes (gv.Writes, confined as the
// last len(gv.Writes) of paths) would replace: for git format-patch, every
// existing file in its output directory whose name it may write
// ([gitrules.PatchNames]: 0001-x.patch, 1, v2-0001-x.patch); for another
// command's output file (an asked git archive -o FILE), that file when it
// exists. A directory is only written into. The gateway asks when git
// cannot restore one of them.
func gitDestroys(gv gitrules.Verdict, paths []Path) []Destroyed {
	if len(gv.Writes) == 0 || len(paths) < len(gv.Writes) {
		return nil
	}
	var out []Destroyed
	for _, w := range paths[len(paths)-len(gv.Writes):] {
		fi, err := os.Stat(w.Resolved)
		if err != nil {
			continue // missing: git creates it
		}
		if !fi.IsDir() {
			if gv.Patches == nil {
				out = append(out, Destroyed{Arg: w.Arg, Path: w.Resolved})
			}
			continue
		}
		if gv.Patches == nil {
			continue
		}
		ents, err := os.ReadDir(w.Resolved)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.IsDir() || !gv.Patches.Match(e.Name()) {
				continue
			}
			out = append(out, Destroyed{Arg: filepath.Join(w.Arg, e.Name()), Path: filepath.Join(w.Resolved, e.Name())})
		}
	}
	return out
}

// confineGit confines the paths git reads (gv.Paths) and writes
// (gv.Writes), and returns them in v.Paths; bad is true with a deny
// verdict when one leaves the root or a written one is protected.
func confineGit(gv gitrules.Verdict, dir string, r *Resolver) (v Verdict, bad bool) {
	for _, p := range gv.Paths {
		res, err := r.Resolve(dir, p)
		if err != nil {
			return denyErr(err), true
		}
		v.Paths = append(v.Paths, Path{p, res})
	}
	for _, p := range gv.Writes {
		res, err := r.Confine(dir, p, true)
		if err != nil {
			return denyErr(err), true
		}
		if err := patchTargets(p, res, gv.Patches); err != nil {
			return denyErr(err), true
		}
		v.Paths = append(v.Paths, Path{p, res})
	}
	return v, false
}

// Command returns what runs for argv once program (argv[0] resolved to an
// absolute path) is decided to run, by a spec, the user's allowed patterns
// or the person. git is hardened whatever allowed it, so repository
// configuration never starts a program, and it is pinned to the project's
// own repository: GIT_DIR=root/.git and GIT_WORK_TREE=root. A repository
// the model could have built in a subdirectory (a copied .git, a gitfile,
// a bare layout with core.worktree or filter drivers in its config) is
// never used, and neither is one above the project (a monorepo, a dotfiles
// repository in the home directory); GIT_CEILING_DIRECTORIES at root's
// parent backs that up. .git under the root is protected, so its config
// is the person's. Every other program gets its arguments as written.
func Command(program string, argv []string, root string) (exec, env []string) {
	if argv[0] == "git" {
		hardened := gitrules.Harden(argv[1:])
		exec = make([]string, 0, 1+len(hardened))
		return append(append(exec, program), hardened...), gitEnv(root)
	}
	return append([]string{program}, argv[1:]...), nil
}

// gitEnvCache holds the environment of the last root, as a run has one
// root and a transcript may hold thousands of git commands.
var gitEnvCache atomic.Pointer[struct {
	root string
	env  []string
}]

// gitEnv is the extra environment git runs with under root. Callers must
// not modify the returned slice.
func gitEnv(root string) []string {
	if c := gitEnvCache.Load(); c != nil && c.root == root {
		return c.env
	}
	env := append(gitrules.Env(),
		"GIT_DIR="+filepath.Join(root, ".git"),
		"GIT_WORK_TREE="+root,
		"GIT_CEILING_DIRECTORIES="+filepath.Dir(root))
	env = slices.Clip(env)
	gitEnvCache.Store(&struct {
		root string
		env  []string
	}{root, env})
	return env
}
