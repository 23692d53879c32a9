package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// Mode is the sandbox setting: `sandbox` in .clada/config.toml, or the
// --sandbox flag.
type Mode string

// The modes.
const (
	// ModeAuto confines every command where the machine can, and runs
	// it unconfined, saying so, where it cannot. The default.
	ModeAuto Mode = "auto"
	// ModeRequired refuses to run a command it cannot confine.
	ModeRequired Mode = "required"
	// ModeOff runs every command unconfined.
	ModeOff Mode = "off"
)

// ParseMode checks a mode as written in config.toml or on the command
// line; "" is ModeAuto.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.TrimSpace(s)); m {
	case ModeAuto, ModeRequired, ModeOff:
		return m, nil
	case "":
		return ModeAuto, nil
	}
	return "", fmt.Errorf("unknown sandbox mode %q: use auto, required or off", s)
}

// ErrUnconfined is returned by [Sandbox.Start] in [ModeRequired] when the
// command cannot be confined; nothing was started.
var ErrUnconfined = errors.New("the sandbox is required and this machine cannot confine commands")

// Options configure [New]. The zero value confines where it can (auto),
// for the current directory as root, with $HOME's credential stores
// unreadable.
type Options struct {
	// Mode is auto, required or off; "" means auto.
	Mode Mode
	// Root is the project root: commands may write there, except in
	// .git/ and .clada/. "" means the current directory.
	Root string
	// Home is the user's home directory, whose credential stores
	// ([CredentialStores]) commands may not read; "" means $HOME.
	Home string
	// WriteDirs are directories outside the root that the person granted
	// for writing (dirs in config.toml): commands may write there, except
	// in their .git/ and .clada/ and the credential stores. Absolute and
	// symlink-free; one that holds the root is ignored.
	WriteDirs []string
}

// Sandbox confines the commands of one project. It is safe for
// concurrent use.
type Sandbox struct {
	mode    Mode
	root    string   // absolute, symlinks resolved
	home    string   // absolute, symlinks resolved; "" when unknown
	creds   []string // credentialPaths(home), resolved once: every command needs them
	dirs    []string // Options.WriteDirs that do not hold the root
	support Support
	plat    platform
}

// New probes what the machine supports (once per process) and returns a
// Sandbox for the project at opts.Root.
func New(opts Options) (*Sandbox, error) {
	mode, err := ParseMode(string(opts.Mode))
	if err != nil {
		return nil, err
	}
	root := opts.Root
	if root == "" {
		root = "."
	}
	if root, err = filepath.Abs(root); err != nil {
		return nil, err
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	home := opts.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home != "" {
		if h, err := filepath.Abs(home); err == nil {
			home = h
		}
		if h, err := filepath.EvalSymlinks(home); err == nil {
			home = h
		}
	}
	s := &Sandbox{mode: mode, root: root, home: home, creds: credentialPaths(home), support: probe()}
	for _, d := range opts.WriteDirs {
		if filepath.IsAbs(d) && !holds(d, root) {
			s.dirs = append(s.dirs, filepath.Clean(d))
		}
	}
	return s, nil
}

// Close releases what the Sandbox keeps for the commands it starts (the
// Landlock ruleset of its read layer).
func (s *Sandbox) Close() error { return s.plat.close() }

// Mode returns the sandbox mode.
func (s *Sandbox) Mode() Mode { return s.mode }

// Root returns the resolved project root.
func (s *Sandbox) Root() string { return s.root }

// Support says what this machine offers for confining commands.
type Support struct {
	// OS and Arch are runtime.GOOS and runtime.GOARCH.
	OS, Arch string
	// Landlock is the Landlock ABI version of the kernel, 0 when none
	// (Linux).
	Landlock int
	// Seccomp reports that clada installs its seccomp filter (Linux on
	// amd64 and arm64).
	Seccomp bool
	// Namespaces reports that .git and .clada are bind-mounted
	// read-only in a mount namespace of each command (Linux, where
	// clada runs in a user namespace of its own: see [Main]).
	Namespaces bool
	// NamespaceReason says why Namespaces is false; "" when it is true
	// or does not apply.
	NamespaceReason string
	// NetNamespace reports that a command held to clada's proxy runs in
	// a network namespace of its own, where nothing but the proxy
	// exists ([Command.ProxyServe]): Linux, where clada runs in its
	// user namespace. Should making one fail at a command, that command
	// and the later ones are held by Landlock's port rule alone, and
	// their reports say so.
	NetNamespace bool
	// Profile reports that commands run under sandbox-exec (macOS).
	Profile bool
	// Reason says why commands cannot be confined; "" when they can.
	Reason string
}

// Confines reports whether commands can be confined here.
func (s Support) Confines() bool { return s.Reason == "" }

// FiltersNetwork reports whether a command can be held to clada's proxy
// ([Command.Proxy]): Linux with a network namespace per command
// (NetNamespace) or Landlock's TCP rules (ABI 4), or macOS's profile.
// Elsewhere a command given the proxy gets the whole network, and its
// report says so. Before ABI 4, should making the namespace fail at a
// command, that command gets no network at all (where seccomp closes
// it), and its report says so.
func (s Support) FiltersNetwork() bool {
	return s.Confines() && (s.Landlock >= 4 || s.Profile || s.NetNamespace)
}

// Support returns what the machine offers, as probed by [New].
func (s *Sandbox) Support() Support { return s.support }

// Command is what one command may do besides reading files: the
// writable places and the network. Its zero value grants only the project
// root (and /dev/null), with no network.
type Command struct {
	// TmpDir is the command's private TMPDIR, writable; "" for none.
	TmpDir string
	// Network grants the network (TCP/UDP sockets of any family).
	Network bool
	// Proxy, when Network is false, is the port of clada's proxy on
	// 127.0.0.1: the command may open TCP connections to that port and
	// nothing else on the network ([Support.FiltersNetwork] says where
	// that holds); 0 for none. Landlock knows ports, not addresses: by
	// its rule alone, the command could also reach another machine, or
	// another loopback address, on that port number (see ProxyServe).
	Proxy int
	// ProxyServe, with Proxy, puts the command in a network namespace of
	// its own where [Support.NetNamespace] holds: its only interface is
	// a loopback, and on it a TCP listener on 127.0.0.1:Proxy, made in
	// that namespace before the command starts, which Start hands to
	// ProxyServe (the callee serves clada's proxy on it and closes it;
	// a socket stays in the namespace it was made in, but any thread of
	// clada may accept on it). The command then reaches the proxy and
	// nothing else: no other address or machine, not the host's
	// loopback services, its IPv6 ::1, or its abstract Unix sockets.
	// Landlock's port rule and the seccomp filter still apply. When
	// ProxyServe is nil, or the machine has no such namespaces, the
	// command shares clada's network and reaches the proxy on its
	// 127.0.0.1:Proxy, held by Landlock's port rule. An error from
	// ProxyServe fails Start, with nothing started.
	ProxyServe func(listener *os.File) error
	// Caches are more directories the command may write (build caches a
	// spec declares), absolute; missing ones are skipped.
	Caches []string
	// Files are more files the command may write, such as its pty.
	Files []string
	// Repository lets the command write the git repository (an approved
	// git commit, fetch or checkout): .git, or the directories a
	// "gitdir:" file names. Its config and hooks stay read-only where
	// mount namespaces work; elsewhere the integrity check restores them.
	Repository bool
}

// Outcome says how one command was started.
type Outcome struct {
	// Confined reports that the kernel confines the command.
	Confined bool
	// Namespace reports that .git and .clada are read-only mounts for
	// the command (Linux); when false on Linux, the command cannot
	// create or remove entries at the top of the project.
	Namespace bool
	// Network reports that the command has the network: it was granted,
	// or the command is unconfined.
	Network bool
	// NetNamespace reports that the command runs in a network namespace
	// of its own in which only clada's proxy can be reached (see
	// [Command.ProxyServe]).
	NetNamespace bool
	// Proxied reports that the command reaches the network through
	// clada's proxy only (in its network namespace, or by Landlock's
	// port rule).
	Proxied bool
	// Text is how the report says it: "confined: landlock v7 + seccomp,
	// network off" or "unconfined: kernel has no Landlock".
	Text string
}

// Unconfined is the [Outcome] of a command started without confinement
// for the given reason.
func Unconfined(reason string) Outcome {
	return Outcome{Network: true, Text: "unconfined: " + reason}
}

// Start starts cmd (built by exec.Command, not yet started) confined to
// what c grants: it may read everything but the credential stores under
// the home directory, write only in the root (never in .git/ or
// .clada/), c.TmpDir, c.Caches, c.Files and /dev/null, and use the
// network only when c.Network is set. Everything else about cmd (its
// process group, environment, standard streams, Cancel and WaitDelay)
// is left as it is. It returns how the command was started.
//
// In ModeOff, or in ModeAuto where the machine cannot confine commands,
// Start starts cmd unconfined and the Outcome says why. In
// ModeRequired it then returns an error wrapping [ErrUnconfined] and
// starts nothing.
func (s *Sandbox) Start(cmd *exec.Cmd, c Command) (Outcome, error) {
	if s.mode == ModeOff {
		return Unconfined("sandbox = off"), cmd.Start()
	}
	if !s.support.Confines() {
		o := Unconfined(s.support.Reason)
		if s.mode == ModeRequired {
			return o, fmt.Errorf("%w: %s", ErrUnconfined, s.support.Reason)
		}
		return o, cmd.Start()
	}
	return s.start(cmd, c)
}

// Expect says how a command with grants c would be started now, without
// starting anything: what a person approving it is told.
func (s *Sandbox) Expect(c Command) Outcome {
	switch {
	case s.mode == ModeOff:
		return Unconfined("sandbox = off")
	case !s.support.Confines():
		return Unconfined(s.support.Reason)
	}
	return s.outcome(c, s.support.Namespaces, s.netNamespaceFor(c))
}

// Phrase says in a few words how a command with grants c would run, for
// the question a person answers: "sandboxed, no network", "sandboxed,
// with network" or "unconfined".
func (s *Sandbox) Phrase(c Command) string {
	o := s.Expect(c)
	switch {
	case !o.Confined:
		return "unconfined"
	case o.Network:
		return "sandboxed, with network"
	}
	return "sandboxed, no network"
}

// Describe says in one line how commands run here in this mode, as
// `clada sandbox` prints it: the Outcome text of a command without the
// network.
func (s *Sandbox) Describe() string {
	switch {
	case s.mode == ModeOff:
		return Unconfined("sandbox = off").Text
	case !s.support.Confines() && s.mode == ModeRequired:
		return "refused: sandbox = required, and " + s.support.Reason
	case !s.support.Confines():
		return Unconfined(s.support.Reason).Text
	}
	return s.outcome(Command{}, s.support.Namespaces, false).Text
}

// CredentialStores are the files and directories under the home
// directory that hold credentials; a confined command cannot read them
// (nor write them). Keep sorted; README.md lists them too.
var CredentialStores = []string{
	".authinfo",
	".authinfo.gpg",
	".aws",
	".azure",
	".cargo/credentials",
	".cargo/credentials.toml",
	".config/gcloud",
	".config/gh",
	".config/hub",
	".docker/config.json",
	".git-credentials",
	".gnupg",
	".kube",
	".local/share/keyrings",
	".netrc",
	".password-store",
	".pypirc",
	".ssh",
}

// holds reports whether p is dir or lies beneath it.
func holds(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// CredentialPaths returns the credential stores under home (resolved
// first, as New resolves it), as written and, where one is a link, where
// it leads: what no confined command may read, and what the gate refuses
// to let anyone grant or read outside the project.
func CredentialPaths(home string) []string {
	if h, err := filepath.EvalSymlinks(home); err == nil {
		home = h
	}
	return credentialPaths(home)
}

// credentialPaths returns the credential stores under home, each as
// written and, when it is a symbolic link, as resolved, so a link to
// keys kept elsewhere hides them where they really are.
func credentialPaths(home string) []string {
	if home == "" {
		return nil
	}
	var out []string
	for _, c := range CredentialStores {
		p := filepath.Join(home, filepath.FromSlash(c))
		out = append(out, p)
		if r, err := filepath.EvalSymlinks(p); err == nil && r != p {
			out = append(out, r)
		}
	}
	return out
}

// gitDirs returns the repository's directories for root: its git
// directory and common directory (both root/.git for an ordinary
// repository; for a worktree or submodule, the directory its "gitdir:"
// file names and the one that directory's commondir file names). Both
// are "" when root/.git is neither.
func gitDirs(root string) (gitDir, commonDir string) {
	dot := filepath.Join(root, ".git")
	fi, err := os.Lstat(dot)
	switch {
	case err != nil:
		return "", ""
	case fi.IsDir():
		return dot, dot
	case !fi.Mode().IsRegular():
		return "", ""
	}
	data, err := os.ReadFile(dot)
	if err != nil {
		return "", ""
	}
	line, _, _ := strings.Cut(string(data), "\n")
	dir, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return "", ""
	}
	gitDir = resolveFrom(root, strings.TrimSpace(dir))
	commonDir = gitDir
	if c, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		commonDir = resolveFrom(gitDir, strings.TrimSpace(string(c)))
	}
	return gitDir, commonDir
}

// resolveFrom makes p absolute against base and resolves its symbolic
// links where it exists.
func resolveFrom(base, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

var probeOnce = sync.OnceValue(func() Support {
	s := Support{OS: runtime.GOOS, Arch: runtime.GOARCH}
	probePlatform(&s)
	return s
})

func probe() Support { return probeOnce() }
