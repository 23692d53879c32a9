package sandbox

import (
	"strings"
	"testing"
)

func TestHint(t *testing.T) {
	t.Parallel()
	ns := Outcome{Confined: true, Namespace: true, Text: "confined: landlock v7 + seccomp + mount namespace, network off"}
	flat := Outcome{Confined: true, Text: "confined: landlock v7 + seccomp, network off"}
	proxied := Outcome{Confined: true, Namespace: true, NetNamespace: true, Proxied: true,
		Text: "confined: landlock v7 + seccomp + mount namespace, network through clada's proxy only (network namespace)"}
	online := Outcome{Confined: true, Namespace: true, Network: true, Text: "confined: landlock v7 + seccomp + mount namespace, network on"}
	tests := []struct {
		name           string
		o              Outcome
		failed         bool
		stdout, stderr string
		want           []string // parts of the hint; nil: no hint
	}{
		{name: "python PermissionError", o: ns, failed: true,
			stderr: "PermissionError: [Errno 13] Permission denied: '/etc/x'",
			want:   []string{"the sandbox may have refused it", "clada run --sandbox off", "Do not try to work around it"}},
		{name: "EPERM in upper case on stdout", o: ns, failed: true, stdout: "touch: OPERATION NOT PERMITTED",
			want: []string{"the sandbox may have refused it"}},
		{name: "read-only .git", o: ns, failed: true, stderr: "fatal: Unable to create '.git/index.lock': Read-only file system",
			want: []string{"never in .git/ or .clada/"}},
		{name: "no namespaces: top level", o: flat, failed: true, stderr: "open x: permission denied",
			want: []string{"nothing can be created or removed at the top of the project"}},
		{name: "name resolution without the network", o: ns, failed: true,
			stderr: "curl: (6) Could not resolve host: example.com", want: []string{"the command has no network"}},
		{name: "name resolution through the proxy", o: proxied, failed: true,
			stderr: "dial tcp: lookup example.com: network is unreachable",
			want:   []string{"the command reaches the network only through clada's proxy (HTTP_PROXY, HTTPS_PROXY), and only the hosts granted to it"}},
		{name: "refused file, through the proxy", o: proxied, failed: true, stderr: "open x: permission denied",
			want: []string{"and reach the network only through clada's proxy"}},
		{name: "name resolution with the network", o: online, failed: true,
			stderr: "curl: (6) Could not resolve host: example.com"},
		{name: "succeeded", o: ns, failed: false, stderr: "warning: permission denied on cache, continuing"},
		{name: "unconfined", o: Unconfined("sandbox = off"), failed: true, stderr: "Permission denied"},
		{name: "other failure", o: ns, failed: true, stderr: "FAIL: TestSomething"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Hint(tt.o, tt.failed, []byte(tt.stdout), []byte(tt.stderr))
			if tt.want == nil {
				if got != "" {
					t.Errorf("hint %q, want none", got)
				}
				return
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("hint %q does not contain %q", got, w)
				}
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Mode{"auto": ModeAuto, "": ModeAuto, " required ": ModeRequired, "off": ModeOff} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"on", "Auto", "none", "true"} {
		if _, err := ParseMode(in); err == nil {
			t.Errorf("ParseMode(%q) accepted", in)
		}
	}
}
