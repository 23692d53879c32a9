package approve

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestLoadConfigMissing(t *testing.T) {
	t.Parallel()
	got, err := LoadConfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	want := Config{ApprovalTimeout: 60 * time.Second, HardBlocks: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, DefaultConfig()); diff != "" {
		t.Errorf("DefaultConfig (-want +got):\n%s", diff)
	}
}

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		want    Config // Path is filled in
	}{
		{name: "empty", content: "# nothing\n", want: DefaultConfig()},
		{name: "all keys", content: `
timeout = "2m"
max_output = "10MB"
approval_timeout = "30s"
untrusted = true
hard_blocks = false
`, want: Config{Timeout: 2 * time.Minute, MaxOutput: 10_000_000, ApprovalTimeout: 30 * time.Second, Untrusted: true}},
		{name: "integer seconds and bytes", content: "timeout = 90\napproval_timeout = 120\nmax_output = 4096\n",
			want: Config{Timeout: 90 * time.Second, MaxOutput: 4096, ApprovalTimeout: 120 * time.Second, HardBlocks: true}},
		{name: "seconds as a string, as --timeout 90 takes them", content: "timeout = \"90\"\napproval_timeout = \" 30 \"\n",
			want: Config{Timeout: 90 * time.Second, ApprovalTimeout: 30 * time.Second, HardBlocks: true}},
		{name: "binary units", content: `max_output = "512KiB"`, want: Config{MaxOutput: 512 << 10, ApprovalTimeout: time.Minute, HardBlocks: true}},
		{name: "unit case and blank", content: `max_output = "2 mib"`, want: Config{MaxOutput: 2 << 20, ApprovalTimeout: time.Minute, HardBlocks: true}},
		{name: "gigabyte", content: `max_output = "1GB"`, want: Config{MaxOutput: 1e9, ApprovalTimeout: time.Minute, HardBlocks: true}},
		{name: "bytes suffix", content: `max_output = "2048B"`, want: Config{MaxOutput: 2048, ApprovalTimeout: time.Minute, HardBlocks: true}},
		{name: "approval bounds low", content: `approval_timeout = "10s"`, want: Config{ApprovalTimeout: 10 * time.Second, HardBlocks: true}},
		{name: "approval bounds high", content: `approval_timeout = "2m"`, want: Config{ApprovalTimeout: 2 * time.Minute, HardBlocks: true}},
		{name: "clada mcp jobs", content: "background_after = \"5s\"\njob_timeout = \"2h\"\njob_max_output = \"1GiB\"\n",
			want: Config{ApprovalTimeout: time.Minute, HardBlocks: true, BackgroundAfter: 5 * time.Second, JobTimeout: 2 * time.Hour, JobMaxOutput: 1 << 30}},
		{name: "report budget size", content: `report_budget = "20KiB"`,
			want: Config{ReportBudget: Budget{Bytes: 20 << 10, Lines: 512}, ApprovalTimeout: time.Minute, HardBlocks: true}},
		{name: "report budget size and lines", content: `report_budget = "32KiB, 800"`,
			want: Config{ReportBudget: Budget{Bytes: 32 << 10, Lines: 800}, ApprovalTimeout: time.Minute, HardBlocks: true}},
		{name: "secrets", content: `secrets = ["*.p12", "config/credentials.yml"]`,
			want: Config{Secrets: []string{"*.p12", "config/credentials.yml"}, ApprovalTimeout: time.Minute, HardBlocks: true}},
		{name: "sandbox required", content: `sandbox = "required"`,
			want: Config{Sandbox: "required", ApprovalTimeout: time.Minute, HardBlocks: true}},
		{name: "sandbox off", content: `sandbox = "off"`,
			want: Config{Sandbox: "off", ApprovalTimeout: time.Minute, HardBlocks: true}},
		{name: "report budget bytes", content: `report_budget = 4096`,
			want: Config{ReportBudget: Budget{Bytes: 4096, Lines: 102}, ApprovalTimeout: time.Minute, HardBlocks: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			tt.want.Path = writeFile(t, root, ConfigFile, tt.content)
			got, err := LoadConfig(root)
			if err != nil {
				t.Fatal(err)
			}
			// Keys (which keys the file set) are MergeConfig's,
			// tested there.
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Config{}, "Keys")); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		content  string
		wantLine int
		wantKey  string
		wantText []string // the message names value and allowed range
	}{
		{name: "syntax", content: "timeout = \"30s\"\nuntrusted = tru\n", wantLine: 2},
		{name: "unknown key", content: "timeout = \"30s\"\n\napproval-timeout = \"30s\"\n", wantLine: 3, wantKey: "approval-timeout", wantText: []string{"unknown key"}},
		{name: "wrong case key", content: "Timeout = \"30s\"\n", wantLine: 1, wantKey: "Timeout"},
		{name: "table", content: "untrusted = true\n[timeout]\nx = 1\n", wantLine: 2, wantKey: "timeout"},
		{name: "approval too short", content: "\napproval_timeout = \"5s\"\n", wantLine: 2, wantKey: "approval_timeout",
			wantText: []string{`"5s"`, "10s to 120s"}},
		{name: "approval too long", content: "approval_timeout = 121\n", wantLine: 1, wantKey: "approval_timeout",
			wantText: []string{"121", "10s to 120s"}},
		{name: "approval zero", content: "approval_timeout = 0\n", wantLine: 1, wantKey: "approval_timeout"},
		{name: "timeout negative", content: "timeout = \"-1s\"\n", wantLine: 1, wantKey: "timeout", wantText: []string{"1s to 24h"}},
		{name: "timeout zero", content: "timeout = 0\n", wantLine: 1, wantKey: "timeout"},
		{name: "timeout not a duration", content: "timeout = \"soon\"\n", wantLine: 1, wantKey: "timeout", wantText: []string{"soon"}},
		{name: "timeout float", content: "timeout = 1.5\n", wantLine: 1, wantKey: "timeout", wantText: []string{"float"}},
		{name: "max_output bad unit", content: "max_output = \"10XB\"\n", wantLine: 1, wantKey: "max_output", wantText: []string{"10XB"}},
		{name: "max_output too big", content: "max_output = \"2GiB\"\n", wantLine: 1, wantKey: "max_output", wantText: []string{`"2GiB"`, "1KiB to 1GiB"}},
		{name: "max_output too small", content: "max_output = 10\n", wantLine: 1, wantKey: "max_output"},
		{name: "max_output overflow", content: "max_output = \"99999999999999999GB\"\n", wantLine: 1, wantKey: "max_output"},
		{name: "background_after zero", content: "background_after = 0\n", wantLine: 1, wantKey: "background_after", wantText: []string{"1s to 1h"}},
		{name: "background_after too long", content: "background_after = \"2h\"\n", wantLine: 1, wantKey: "background_after", wantText: []string{`"2h"`, "1s to 1h"}},
		{name: "job_timeout too long", content: "job_timeout = \"25h\"\n", wantLine: 1, wantKey: "job_timeout", wantText: []string{"1s to 24h"}},
		{name: "job_max_output too big", content: "job_max_output = \"2GiB\"\n", wantLine: 1, wantKey: "job_max_output", wantText: []string{"1KiB to 1GiB"}},
		{name: "report budget too small", content: "report_budget = \"100B\"\n", wantLine: 1, wantKey: "report_budget", wantText: []string{"256B to 1MiB"}},
		{name: "report budget too large", content: "report_budget = \"2MiB\"\n", wantLine: 1, wantKey: "report_budget", wantText: []string{"256B to 1MiB"}},
		{name: "report budget bad lines", content: "report_budget = \"10KiB,0\"\n", wantLine: 1, wantKey: "report_budget", wantText: []string{"1 to 100000"}},
		{name: "report budget lines word", content: "report_budget = \"10KiB,many\"\n", wantLine: 1, wantKey: "report_budget", wantText: []string{"many"}},
		{name: "report budget not a size", content: "report_budget = \"big\"\n", wantLine: 1, wantKey: "report_budget", wantText: []string{"10KiB,256"}},
		{name: "report budget table", content: "report_budget = true\n", wantLine: 1, wantKey: "report_budget", wantText: []string{"bool"}},
		{name: "sandbox unknown mode", content: "sandbox = \"strict\"\n", wantLine: 1, wantKey: "sandbox", wantText: []string{`"strict" is not one of`, "auto", "required", "off"}},
		{name: "sandbox not a string", content: "sandbox = false\n", wantLine: 1, wantKey: "sandbox", wantText: []string{"want one of"}},
		{name: "secrets not a list", content: "secrets = \"*.p12\"\n", wantLine: 1, wantKey: "secrets", wantText: []string{"list of file name patterns"}},
		{name: "secrets bad pattern", content: "secrets = [\"[x\"]\n", wantLine: 1, wantKey: "secrets", wantText: []string{`"[x"`}},
		{name: "secrets absolute", content: "secrets = [\"/etc/x\"]\n", wantLine: 1, wantKey: "secrets", wantText: []string{"relative to the project"}},
		{name: "secrets number", content: "secrets = [1]\n", wantLine: 1, wantKey: "secrets", wantText: []string{"element 1"}},
		{name: "bool as string", content: "untrusted = \"yes\"\n", wantLine: 1, wantKey: "untrusted", wantText: []string{"true or false"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			path := writeFile(t, root, ConfigFile, tt.content)
			_, err := LoadConfig(root)
			t.Log(err)
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error = %v, want a *FileError", err)
			}
			if fe.Path != path || fe.Line != tt.wantLine || fe.Key != tt.wantKey {
				t.Errorf("got %s:%d key %q, want %s:%d key %q (%v)", fe.Path, fe.Line, fe.Key, path, tt.wantLine, tt.wantKey, err)
			}
			for _, w := range tt.wantText {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q does not mention %q", err, w)
				}
			}
			if got, _ := os.ReadFile(path); string(got) != tt.content {
				t.Errorf("config.toml changed: %q", got)
			}
		})
	}
}

// TestParseDuration: config.toml and --timeout read durations with this
// one function.
func TestParseDuration(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"90", 90 * time.Second, true},
		{" 5m ", 5 * time.Minute, true},
		{"1h30m", 90 * time.Minute, true},
		{"0", 0, true},
		{"-1", 0, false},
		{"-1s", -time.Second, true},
		{"1.5", 0, false},
		{"soon", 0, false},
		{"", 0, false},
	} {
		got, err := ParseDuration(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

// TestDecodeStrings: every list of strings in clada's files (secrets,
// hosts, a pattern list) is read by decodeStrings, with the list's own
// check and the same wording for a wrong element.
func TestDecodeStrings(t *testing.T) {
	var secrets, hosts []string
	var list stringList
	tests := []struct {
		name string
		dec  func(any) error
		in   any
		want string // error; "" for none
	}{
		{"secrets not a list", patternsValue{&secrets}.UnmarshalTOML, "x", `want a list of file name patterns such as ["*.p12", "config/secrets.yml"], found a string`},
		{"secrets element", patternsValue{&secrets}.UnmarshalTOML, []any{"a", int64(1)}, "element 2: want a string, found an integer"},
		{"secrets absolute", patternsValue{&secrets}.UnmarshalTOML, []any{"/x"}, `element 1: "/x" is not a pattern relative to the project`},
		{"hosts star", hostsValue{&hosts}.UnmarshalTOML, []any{"*"}, `element 1: "*": a * only as the first label`},
		{"hosts normalised", hostsValue{&hosts}.UnmarshalTOML, []any{"Example.COM."}, ""},
		{"list element", list.UnmarshalTOML, []any{"a", true}, "entry 2: want a string, found a boolean"},
		{"list not a list", list.UnmarshalTOML, int64(3), "want an array of strings, found an integer"},
	}
	for _, tt := range tests {
		err := tt.dec(tt.in)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	if len(hosts) != 1 || hosts[0] != "example.com" {
		t.Errorf("hosts = %q, want [example.com]", hosts)
	}
}
