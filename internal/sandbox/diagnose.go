package sandbox

import (
	"fmt"
	"runtime"
	"strings"
)

// Diagnose says, one fact per line, what this machine offers for
// confining commands and why, as `clada sandbox` prints it. On Linux it
// starts clada once in new namespaces to see whether per-command mounts
// work (the running process may not be in one).
func (s *Sandbox) Diagnose() []string {
	sup := s.support
	lines := []string{"system: " + sup.OS + "/" + sup.Arch}
	nsWorks := false
	switch sup.OS {
	case "linux":
		facts, nsReason := linuxFacts(sup)
		lines = append(lines, facts...)
		nsWorks = nsReason == ""
	case "darwin":
		if sup.Profile {
			lines = append(lines, "sandbox-exec: "+"present: each command runs under a generated profile (only macOS CI verifies it)")
		} else {
			lines = append(lines, "sandbox-exec: "+sup.Reason)
		}
	default:
		lines = append(lines, "confinement: none: "+sup.Reason)
	}
	how := s.Describe()
	if sup.OS == "linux" && s.mode != ModeOff && sup.Confines() && !sup.Namespaces && nsWorks {
		// This process is not in clada's namespace, but clada run,
		// exec and mcp start themselves in one.
		how = s.outcome(Command{}, true, false).Text
	}
	lines = append(lines, "commands run: "+how)
	return lines
}

// NamespacesWork reports whether clada, started in user and mount
// namespaces of its own, can give each command read-only .git and .clada
// mounts here (Linux); the reason when it cannot. It starts clada once
// to see.
func NamespacesWork() (bool, string) {
	if reason := probeNamespaces(); reason != "" {
		return false, reason
	}
	return runtime.GOOS == "linux", "no user namespaces on " + runtime.GOOS
}

// NetNamespacesWork reports whether clada, started in its namespaces, can
// give a command held to its proxy a network namespace of its own here
// (Linux; see [Command.ProxyServe]); the reason when it cannot. It starts
// clada once to see (the same start as NamespacesWork).
func NetNamespacesWork() (bool, string) {
	if reason := probeNetNamespaces(); reason != "" {
		return false, reason
	}
	return runtime.GOOS == "linux", "no network namespaces on " + runtime.GOOS
}

// linuxFacts are Diagnose's lines for Linux, and why clada cannot run in
// namespaces of its own here ("" when it can).
func linuxFacts(sup Support) ([]string, string) {
	if sup.Landlock == 0 {
		return []string{"landlock: " + sup.Reason}, "Landlock is missing"
	}
	var have []string
	have = append(have, "files")
	if sup.Landlock >= 4 {
		have = append(have, "TCP bind and connect")
	}
	if sup.Landlock >= 6 {
		have = append(have, "signals and abstract Unix sockets kept to the command's own processes")
	}
	if sup.Landlock >= 9 {
		have = append(have, "connecting to Unix sockets by path")
	}
	if sup.Landlock >= 10 {
		have = append(have, "UDP")
	}
	l := fmt.Sprintf("landlock: ABI %d: restricts %s", sup.Landlock, strings.Join(have, ", "))
	if sup.Landlock < 9 {
		l += "; connecting to Unix sockets by path (D-Bus, Docker, ssh-agent) is not restricted before ABI 9"
	}
	lines := []string{l}
	if sup.Seccomp {
		lines = append(lines, "seccomp: a filter refuses io_uring, setuid and setgid modes, and sockets other than AF_UNIX unless the command has the network")
	} else {
		lines = append(lines, "seccomp: no filter on this architecture or kernel; Landlock alone confines")
	}
	reason := probeNamespaces()
	switch {
	case sup.Namespaces || reason == "":
		lines = append(lines, "user namespaces: work: each command sees .git and .clada as read-only mounts and may create files at the top of the project")
	default:
		lines = append(lines, "user namespaces: not usable ("+reason+"): .git and .clada are kept read-only by granting each other top-level entry, so commands cannot create or remove entries at the top of the project")
	}
	if sup.Namespaces {
		reason = ""
	}
	switch netReason := probeNetNamespaces(); {
	case sup.NetNamespace || netReason == "":
		lines = append(lines, "network namespaces: work: a command held to clada's proxy runs in one of its own, where nothing but the proxy can be reached")
	case sup.Landlock >= 4:
		lines = append(lines, "network namespaces: not usable ("+netReason+"): Landlock's port rule holds a command to the proxy's port, so other hosts on that port number stay reachable")
	default:
		lines = append(lines, "network namespaces: not usable ("+netReason+"): nothing holds a command to clada's proxy (Landlock before ABI 4 has no TCP rules), so a command the network is granted to gets all of it")
	}
	return lines, reason
}
