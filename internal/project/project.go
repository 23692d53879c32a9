package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/clada/clada/internal/approve"
	"github.com/clada/clada/internal/gateway"
	"github.com/clada/clada/internal/sandbox"
	"github.com/clada/clada/internal/specs"
)

// Options say which project to open.
type Options struct {
	// Root is the project root given by the person (--root). "" finds it
	// from WorkDir with [FindRoot].
	Root string
	// WorkDir is where the person stands; "" is the process's working
	// directory. A block's dir attribute and the paths in commands are
	// relative to it when it lies inside the root.
	WorkDir string
	// Untrusted asks even for commands the specs allow (also
	// `untrusted = true` in config.toml).
	Untrusted bool
	// TrustProject trusts the project's own files in .clada without a
	// record (--trust-project: a CI workflow's author vouches for the
	// repository).
	TrustProject bool
	// OS is the system to decide for (`--os`; see specs.ParseOS): ""
	// is the one clada runs on. Only for decisions (check, dry run):
	// the caller refuses it with a real run.
	OS string
}

// Project is an opened project root. See the package documentation for
// what it shares and how it may be used concurrently.
type Project struct {
	// Root is the absolute project root, as found or given (not
	// symlink-resolved; the gateway resolves it).
	Root string
	// Base is the working directory relative to Root, slash-separated,
	// "" when it is the root or outside it.
	Base string
	// Discovered says how Root was found: "--root", ".clada/", "git" or
	// "working directory".
	Discovered string
	Config     approve.Config
	Specs      *specs.Set
	// Commands are the allowed and blocked patterns, kept in step with
	// commands.toml by [Project.Gateway].
	Commands *approve.Commands
	// Dirs are the directories of Config.Dirs, resolved: what the
	// gateway treats as inside the project and the sandbox grants. A
	// granted directory that does not exist is left out (DirsMissing).
	Dirs        []specs.GrantedDir
	DirsMissing []string
	untrusted   bool
	os          string // Options.OS, checked
	trust       *approve.TrustCheck
}

// Untrusted returns the project's files in .clada (names such as
// "commands.toml") whose content the person has not trusted, so that
// clada used only what they tighten; nil under Options.TrustProject. A
// file found untrusted later (changed while clada mcp runs) is added.
func (p *Project) Untrusted() []string { return p.trust.Untrusted() }

// UntrustedNote is the sentence clada says once per run when some of the
// project's files are untrusted, naming them and the command that trusts
// them; "" when all are trusted.
func (p *Project) UntrustedNote() string {
	files := p.Untrusted()
	if len(files) == 0 {
		return ""
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = approve.DirName + "/" + f
	}
	if len(names) == 1 {
		return fmt.Sprintf("%s is not trusted, so clada applies only what it tightens (blocked patterns, sandbox = \"required\", shorter limits); "+
			"review it, then run `clada trust` in %s to use it", names[0], p.Root)
	}
	return fmt.Sprintf("%s are not trusted, so clada applies only what they tighten (blocked patterns, sandbox = \"required\", shorter limits); "+
		"review them, then run `clada trust` in %s to use them", strings.Join(names, " and "), p.Root)
}

// Error is a failure to open a project, with advice for the person.
type Error struct {
	Err  error
	Hint string
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

func hint(err error, h string) error { return &Error{Err: err, Hint: h} }

// FindRoot returns the project root for a person standing in wd. Inside a
// git work tree (up to the nearest directory holding .git, a directory or
// a gitdir file) it is the outermost directory from wd up to that top
// that holds a .clada directory of its own (never a symbolic link), else
// the top itself. Outside one, it is the nearest directory upwards that
// holds a .clada directory, else wd itself. how says which (".clada/",
// "git" or "working directory"). wd must be absolute.
//
// Outermost inside a work tree: a command confined to the root can make
// sub/.clada below it, but nothing above it, and clada makes the root's
// .clada before the first command runs, so what a command wrote cannot
// move the root of a clada started in sub/ (a planted sub/.git can at
// most narrow it, and clada trusts no file in a .clada it did not write
// or the person trusted). Nested projects of one repository that each
// hold a .clada are one project, the outer one; pass --root for an
// inner one.
func FindRoot(wd string) (root, how string) {
	nearest, outer := "", ""
	for dir := wd; ; {
		if fi, err := os.Lstat(filepath.Join(dir, approve.DirName)); err == nil && fi.IsDir() {
			if nearest == "" {
				nearest = dir
			}
			outer = dir
		}
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			if outer != "" {
				return outer, ".clada/"
			}
			return dir, "git"
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if nearest != "" {
		return nearest, ".clada/"
	}
	return wd, "working directory"
}

// Locate returns the absolute project root: root when given (--root),
// else the one [FindRoot] finds from the working directory; how says
// which, as [Project.Discovered] does. The root must be a directory.
func Locate(root string) (abs, how string, err error) {
	wd, err := workDir("")
	if err != nil {
		return "", "", err
	}
	return locate(root, wd)
}

func locate(root, wd string) (abs, how string, err error) {
	if root != "" {
		if abs, err = filepath.Abs(root); err != nil {
			return "", "", err
		}
		how = "--root"
	} else {
		abs, how = FindRoot(wd)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", "", hint(fmt.Errorf("project root %s is not a directory", abs), "pass an existing directory with --root")
	}
	return abs, how, nil
}

func workDir(wd string) (string, error) {
	if wd == "" {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return "", fmt.Errorf("working directory: %w", err)
		}
	}
	return filepath.Abs(wd)
}

// Open finds the root and reads .clada/config.toml, commands.toml and
// specs.toml. A file that does not parse is an error naming it; nothing
// is ever rewritten.
func Open(o Options) (*Project, error) {
	wd, err := workDir(o.WorkDir)
	if err != nil {
		return nil, err
	}
	sys, err := specs.ParseOS(o.OS)
	if err != nil {
		return nil, hint(err, "--os darwin, freebsd, linux or windows")
	}
	p := &Project{untrusted: o.Untrusted, os: sys}
	if p.Root, p.Discovered, err = locate(o.Root, wd); err != nil {
		return nil, err
	}
	p.Base = base(p.Root, wd)
	if err := approve.CheckDir(p.Root); err != nil {
		return nil, hint(err, "a command may have made it: check what it points to, then remove it")
	}
	if err := ownDirsOutside(p.Root); err != nil {
		return nil, err
	}
	var t *approve.TrustCheck
	if !o.TrustProject {
		t = approve.NewTrustCheck(p.Root)
	}
	p.trust = t
	if err := p.loadScopes(t); err != nil {
		return nil, hint(err, "fix the file; clada never rewrites it")
	}
	var trusts func(string, []byte) bool
	var withhold func(string)
	if t != nil {
		trusts, withhold = t.Trusts, t.Withhold
	}
	userSpecs := ""
	if d := approve.UserDir(); d != "" {
		userSpecs = filepath.Join(d, approve.SpecsFile)
	}
	if p.Specs, err = specs.LoadScopes(userSpecs, p.Root, trusts, withhold); err != nil {
		return nil, hint(err, "fix .clada/specs.toml; `clada specs --check` checks it")
	}
	return p, nil
}

// ownDirsOutside refuses a root that holds clada's own state directory
// (the trust record), the user's configuration or the managed directory:
// a command confined to the root could write them, and trust itself, or
// the person's rules for every project.
func ownDirsOutside(root string) error {
	dirs := []string{approve.UserDir(), approve.ManagedDir()}
	if d, err := approve.StateDir(); err == nil {
		dirs = append(dirs, d)
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if _, inside := Inside(root, d); inside {
			return hint(fmt.Errorf("the project root %s holds %s, clada's own configuration or state, which a command in the project could then write", root, d),
				"use a narrower root: the project's directory (--root), not the home directory")
		}
	}
	return nil
}

// loadScopes reads config.toml and the pattern files of every scope (user,
// project, personal, managed; see approve.Scope) and merges them; t checks
// the trust of the project's and the personal files.
func (p *Project) loadScopes(t *approve.TrustCheck) error {
	dot := filepath.Join(p.Root, approve.DirName)
	type file struct {
		scope        approve.Scope
		config, cmds string
		trust        *approve.TrustCheck
	}
	files := []file{
		{scope: approve.ScopeUser},
		{approve.ScopeProject, filepath.Join(dot, approve.ConfigFile), "", t},
		{approve.ScopePersonal, filepath.Join(dot, approve.PersonalConfigFile), filepath.Join(dot, approve.PersonalCommandsFile), t},
		{approve.ScopeManaged, filepath.Join(approve.ManagedDir(), approve.ConfigFile), filepath.Join(approve.ManagedDir(), approve.CommandsFile), nil},
	}
	if d := approve.UserDir(); d != "" {
		files[0].config, files[0].cmds = filepath.Join(d, approve.ConfigFile), filepath.Join(d, approve.CommandsFile)
	}
	var layers []approve.ConfigLayer
	for _, f := range files {
		l, err := approve.LoadConfigLayer(f.config, f.scope, f.trust)
		if err != nil {
			return err
		}
		layers = append(layers, l)
	}
	var withheld []string
	p.Config, withheld = approve.MergeConfig(layers...)
	for _, path := range withheld {
		t.Withhold(filepath.Base(path))
	}
	if err := p.resolveDirs(); err != nil {
		return err
	}
	var err error
	if p.Commands, err = approve.LoadCommandsTrust(p.Root, gateway.ParsePattern, t); err != nil {
		return err
	}
	// Managed first, so that a refusal names the administrator's block.
	for _, i := range []int{3, 2, 0} {
		if files[i].cmds == "" {
			continue
		}
		l, err := approve.LoadCommandsFile(files[i].cmds, files[i].scope, gateway.ParsePattern, files[i].trust)
		if err != nil {
			return err
		}
		p.Commands.AddLayer(l)
	}
	return nil
}

// resolveDirs resolves Config.Dirs into Dirs. A directory that does not
// exist is left out and named in DirsMissing (a sibling checkout not
// cloned on this machine, a CI runner): clada then asks about reads there
// as about any read outside. Any other problem is an error naming the
// file, which loses nothing (the file is never rewritten). A write grant
// may not hold the project (its .git and .clada would be the grant's),
// the home directory, or a credential store; a grant inside the project
// adds nothing and is left out.
func (p *Project) resolveDirs() error {
	home, _ := os.UserHomeDir()
	root, err := filepath.EvalSymlinks(p.Root)
	if err != nil {
		root = p.Root
	}
	realHome := home
	if h, err := filepath.EvalSymlinks(home); err == nil {
		realHome = h
	}
	p.Dirs, p.DirsMissing = nil, nil
	for _, d := range p.Config.Dirs {
		base := filepath.Dir(filepath.Dir(d.From)) // the root, for a project's .clada/config.toml
		res, err := specs.ResolveGrantedDir(base, home, d.Path)
		if errors.Is(err, fs.ErrNotExist) {
			p.DirsMissing = append(p.DirsMissing, d.Path)
			continue
		}
		if err != nil {
			return hint(fmt.Errorf("%s: dirs: %w", d.From, err), "fix the entry; clada never rewrites the file")
		}
		if _, in := Inside(root, res); in {
			continue
		}
		if d.Write {
			why := ""
			switch _, holdsRoot := Inside(res, root); {
			case holdsRoot:
				why = "it holds the project, whose .git and .clada a command may never write"
			case home != "" && (res == realHome || res == filepath.Clean(home)):
				why = "it is your home directory, which holds your credentials and shell startup files"
			default:
				for _, store := range sandbox.CredentialPaths(home) {
					if _, in := Inside(store, res); in {
						why = "it is in the credential store " + store
					}
					if _, in := Inside(res, store); in {
						why = "it holds the credential store " + store
					}
				}
			}
			if why != "" {
				return hint(fmt.Errorf("%s: dirs: %s cannot be granted for writing: %s", d.From, d.Path, why),
					"grant a narrower directory, or access = \"read\"")
			}
		}
		p.Dirs = append(p.Dirs, specs.GrantedDir{Path: res, Write: d.Write})
	}
	return nil
}

// WriteDirs are the granted directories commands may write, for the
// sandbox.
func (p *Project) WriteDirs() []string {
	var out []string
	for _, d := range p.Dirs {
		if d.Write {
			out = append(out, d.Path)
		}
	}
	return out
}

// base is wd relative to root, slash-separated; "" when wd is the root
// or not inside it. Both are compared as written and, failing that, with
// symlinks resolved (a person may stand in /tmp while the root is
// /private/tmp).
func base(root, wd string) string {
	if rel, ok := Inside(root, wd); ok {
		return rel
	}
	r, err1 := filepath.EvalSymlinks(root)
	w, err2 := filepath.EvalSymlinks(wd)
	if err1 == nil && err2 == nil {
		if rel, ok := Inside(r, w); ok {
			return rel
		}
	}
	return ""
}

// Inside returns p relative to root, slash-separated ("" for root itself),
// and whether p is root or below it; both are compared as written.
func Inside(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	if rel == "." {
		return "", true
	}
	return filepath.ToSlash(rel), true
}

// Gateway returns a new gateway over the project, after re-reading
// commands.toml if another process changed it. It is cheap: the specs and
// approvals are shared; only the per-run caches are new.
func (p *Project) Gateway() (*gateway.Gateway, error) {
	return p.gateway(false)
}

// DecideGateway is Gateway for decisions that are only reported, never
// run: clada check, run --dry-run, clada hook (see
// gateway.Options.DecideOnly).
func (p *Project) DecideGateway() (*gateway.Gateway, error) {
	return p.gateway(true)
}

func (p *Project) gateway(decideOnly bool) (*gateway.Gateway, error) {
	if _, err := p.Commands.Refresh(); err != nil {
		return nil, hint(err, "fix the file; clada never rewrites it")
	}
	return gateway.New(gateway.Options{Root: p.Root, Base: p.Base, Specs: p.Specs, Commands: p.Commands,
		Untrusted: p.untrusted || p.Config.Untrusted, NoHardBlocks: !p.Config.HardBlocks, Secrets: p.Config.Secrets, OS: p.os,
		DecideOnly: decideOnly, Compose: p.Config.ComposeCommands(), ComposeRunBlocks: p.Config.ComposeRunBlocks(), Dirs: p.Dirs,
		Hosts: p.Config.Hosts, OpenNetwork: p.Config.Network == "open"})
}

// OS is the system the project's decisions are made for.
func (p *Project) OS() string { return p.os }

// Where says which root and how it was found (how as [Locate] returns
// it), for `clada list` and `clada allow`, e.g. "/src/app (found by .clada/)".
func Where(root, how string) string {
	switch how {
	case "--root":
		return root + " (--root)"
	case "working directory":
		return root + " (the working directory: no .clada/ or git work tree above it)"
	default:
		return fmt.Sprintf("%s (found by %s)", root, how)
	}
}
