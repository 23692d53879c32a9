package specs

import (
	"strings"
	"testing"
)

func TestSelfInvocation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		deny bool
		word string
	}{
		{in: "clada allow 'rm -rf x'", deny: true, word: "allow"},
		{in: "clada block x", deny: true, word: "block"},
		{in: "clada forget x", deny: true, word: "forget"},
		{in: "/usr/local/bin/clada allow x", deny: true, word: "allow"},
		{in: "CLADA.EXE allow x", deny: true, word: "allow"},
		{in: "env clada allow x", deny: true, word: "allow"},
		{in: "timeout 5 clada forget x", deny: true, word: "forget"},
		{in: "sh -c 'clada allow x'", deny: true, word: "allow"},
		{in: "clada run --trust-all reply.csl", deny: true, word: "run"},
		{in: "clada run reply.csl", deny: true, word: "run"},
		{in: "clada run --root ../other reply.csl", deny: true, word: "run"},
		{in: "clada --root x allow y", deny: true, word: "--root"},
		{in: "clada mcp", deny: true, word: "mcp"},
		{in: "clada run --dry-run reply.csl"},
		{in: "clada run reply.csl --dry-run"},
		{in: "clada check 'rm x'"},
		{in: "clada list"},
		{in: "clada specs ls"},
		{in: "clada --version"},
		{in: "clada --help"},
		{in: "clada"},
		{in: "cladal allow x", word: ""},
		{in: "echo clada allow x"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			argv, err := splitExample(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			d := SelfInvocation(argv)
			if (d != nil) != tt.deny {
				t.Fatalf("SelfInvocation(%q) = %v, want deny %v", tt.in, d, tt.deny)
			}
			if d == nil {
				return
			}
			if d.Rule != RuleClada || d.Arg != tt.word || !strings.Contains(d.Advice, "clada check") {
				t.Errorf("SelfInvocation(%q) = %+v", tt.in, d)
			}
		})
	}
}
