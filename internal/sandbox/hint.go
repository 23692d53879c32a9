package sandbox

import (
	"strings"
)

// refusedMarks are what programs print when the kernel refuses a file or
// socket: strerror of EACCES, EPERM and EROFS (C, Python, Go, Node and
// Rust print these words, in some case), and the error names.
var refusedMarks = [][]byte{
	[]byte("permission denied"),
	[]byte("operation not permitted"),
	[]byte("read-only file system"),
	[]byte("eacces"),
	[]byte("eperm"),
	[]byte("erofs"),
}

// offlineMarks are what programs print when they cannot reach the
// network: with sockets refused, name resolution fails first.
var offlineMarks = [][]byte{
	[]byte("temporary failure in name resolution"),
	[]byte("could not resolve host"),
	[]byte("name or service not known"),
	[]byte("no such host"),
	[]byte("network is unreachable"),
	[]byte("getaddrinfo"),
	[]byte("eai_again"),
	[]byte("enotfound"),
	[]byte("failed to resolve"),
}

// Hint returns the line the report adds for a confined command that
// failed and printed what a refused access prints ("Permission denied",
// "Operation not permitted", "Read-only file system", or, without the
// network, a failed name lookup): the sandbox may be why, and the way
// out is a person's, never the model's. It returns "" when the command
// was not confined, did not fail, or printed none of those.
func Hint(o Outcome, failed bool, stdout, stderr []byte) string {
	if !o.Confined || !failed {
		return ""
	}
	network := !o.Network && (containsFold(stderr, offlineMarks) || containsFold(stdout, offlineMarks))
	if !network && !containsFold(stderr, refusedMarks) && !containsFold(stdout, refusedMarks) {
		return ""
	}
	what := "the sandbox may have refused it: commands may write only inside the project (never in .git/ or .clada/)" +
		" and their TMPDIR, may not read credential files such as ~/.ssh"
	offline := "have no network"
	if o.Proxied {
		offline = "reach the network only through clada's proxy (HTTP_PROXY, HTTPS_PROXY), and only the hosts granted to them"
	}
	if !o.Network {
		what += ", and " + offline
	}
	if network {
		what = "the sandbox may have refused it: the command has no network"
		if o.Proxied {
			what = "the sandbox may have refused it: the command reaches the network only through clada's proxy (HTTP_PROXY, HTTPS_PROXY), and only the hosts granted to it"
		}
	}
	if !o.Namespace && o.Text != "" && !network && isLinuxConfinement(o) {
		what += "; here (no user namespaces) nothing can be created or removed at the top of the project either"
	}
	return what + ". Do not try to work around it: if the command needs more, a person can run it unconfined with `clada run --sandbox off`"
}

// isLinuxConfinement tells Landlock confinement from sandbox-exec's.
func isLinuxConfinement(o Outcome) bool {
	return strings.HasPrefix(o.Text, "confined: landlock")
}

// containsFold reports whether b holds any of marks (lower-case ASCII),
// ignoring ASCII case, without copying b.
func containsFold(b []byte, marks [][]byte) bool {
	for _, m := range marks {
		if indexFold(b, m) >= 0 {
			return true
		}
	}
	return false
}

func indexFold(b, m []byte) int {
	if len(m) == 0 {
		return 0
	}
	first := m[0]
	for i := 0; i+len(m) <= len(b); i++ {
		if lower(b[i]) != first {
			continue
		}
		j := 1
		for j < len(m) && lower(b[i+j]) == m[j] {
			j++
		}
		if j == len(m) {
			return i
		}
	}
	return -1
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
