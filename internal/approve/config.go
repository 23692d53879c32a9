package approve

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/clada/clada/internal/suggest"
)

// ConfigFile is the name of the configuration file in .clada.
const ConfigFile = "config.toml"

// Defaults and limits of the configuration. Keep in step with the
// docs/config.md's config.toml section.
const (
	DefaultApprovalTimeout = 60 * time.Second
	MinApprovalTimeout     = 10 * time.Second
	MaxApprovalTimeout     = 120 * time.Second
	MinTimeout             = 1 * time.Second
	MaxTimeout             = 24 * time.Hour
	MinMaxOutput           = 1 << 10 // 1 KiB
	MaxMaxOutput           = 1 << 30 // 1 GiB: output is saved to disk, and this bounds the disk
	MinReportBudget        = 256     // bytes of a block's output a report shows
	MaxReportBudget        = 1 << 20
	MaxReportLines         = 100_000
	// ReportBytesPerLine sets a report budget's lines when only its size
	// is given: 10 KiB gives 256 lines.
	ReportBytesPerLine = 40

	// clada mcp: how long a run waits before its command goes on as a
	// background job, and the limits of a command run that way.
	DefaultBackgroundAfter = 30 * time.Second
	MinBackgroundAfter     = 1 * time.Second
	MaxBackgroundAfter     = 1 * time.Hour
	DefaultJobTimeout      = 30 * time.Minute
	DefaultJobMaxOutput    = 100_000_000 // 100 MB

	// The runner's defaults for a command (runner.DefaultTimeout and
	// runner.DefaultMaxOutput), which an untrusted config.toml may only
	// lower (a test keeps them in step).
	DefaultCommandTimeout   = 60 * time.Second
	DefaultCommandMaxOutput = 10_000_000
)

// Config is .clada/config.toml. Use [DefaultConfig] or [LoadConfig]
// rather than a zero Config: a zero Config has HardBlocks off.
type Config struct {
	Timeout         time.Duration // per command; 0 means the runner's default (60 s)
	MaxOutput       int64         // bytes of stdout and stderr together; 0 means the runner's default (10 MB)
	ApprovalTimeout time.Duration // how long a question waits; 0 means DefaultApprovalTimeout
	Untrusted       bool          // ask even for commands that a spec allows
	HardBlocks      bool          // the built-in hard blocks (sudo, dd, rm -rf /…); on by default
	// BackgroundAfter is how long a run of `clada mcp` waits for its
	// command before it goes on as a background job; 0 means
	// DefaultBackgroundAfter.
	BackgroundAfter time.Duration
	// JobTimeout and JobMaxOutput bound a command that `clada mcp` runs
	// (it may become a background job) in place of Timeout and
	// MaxOutput; 0 means DefaultJobTimeout and DefaultJobMaxOutput.
	JobTimeout   time.Duration
	JobMaxOutput int64
	// ReportBudget is report_budget: how much of each block's output the
	// report shows; zero fields mean the report's default.
	ReportBudget Budget
	// Secrets are secrets: file name patterns added to the built-in list
	// of files whose reading is asked (gateway.DefaultSecrets); nil adds
	// none. The built-in ones cannot be removed.
	Secrets []string
	// Sandbox is sandbox: "auto" (confine where the machine can, the
	// default when ""), "required" (refuse to run unconfined) or "off".
	Sandbox string
	// Compose is compose: nil (unset) accepts compositions (pipelines,
	// `&&`, `cd`, redirections …) in clada hook, exec, check and the MCP
	// tools but not in RUN blocks, whose format promises one command;
	// true accepts them in RUN blocks too; false refuses them everywhere.
	Compose *bool
	// Hosts is hosts: host names (or "*.example.com" patterns) that
	// commands may reach through clada's proxy (see docs/rules.md,
	// network); each trusted file's list adds to the ones below it.
	Hosts []string
	// Network is network: "proxy" (the default when "") holds a command
	// the network is granted to to its hosts through clada's proxy;
	// "open" gives it the whole network, as before the proxy.
	Network string
	// Dirs is dirs: directories outside the project that commands may
	// read (and write, with access = "write") as if they were inside it.
	// Each trusted file's list adds to the ones below it.
	Dirs []DirGrant
	// TrustAll is trust_all, read only from the managed scope: false
	// forbids --trust-all on this machine; nil leaves it to the person.
	TrustAll *bool
	Path     string // the file the values came from, "" when there is none
	// Keys are the keys the file set, in its order (what [MergeConfig]
	// takes from it).
	Keys []string
	// Origins is, after [MergeConfig], the file each set key came from
	// (key → path), for clada config.
	Origins map[string]string
}

// ComposeCommands reports whether a command line given to clada hook,
// exec, check or the MCP tools may be a composition.
func (c Config) ComposeCommands() bool { return c.Compose == nil || *c.Compose }

// ComposeRunBlocks reports whether a RUN block's body may be a
// composition.
func (c Config) ComposeRunBlocks() bool { return c.Compose != nil && *c.Compose }

// Budget is a report budget: bytes and lines of a block's output.
type Budget struct {
	Bytes, Lines int
}

// DefaultConfig returns the configuration used when there is no
// config.toml: runner defaults, a 60 s approval timeout, hard blocks on.
func DefaultConfig() Config {
	return Config{ApprovalTimeout: DefaultApprovalTimeout, HardBlocks: true}
}

// LoadConfig reads root/.clada/config.toml on top of [DefaultConfig]; a
// missing file gives the defaults. Durations are strings such as "30s" or
// "2m", or integers counting seconds. max_output is an integer number of
// bytes or a string with a unit: B, KB, MB, GB (powers of 1000) or KiB,
// MiB, GiB (powers of 1024), e.g. "10MB". An unknown key, a wrong type or
// a value out of range is a [*FileError] naming key and line.
func LoadConfig(root string) (Config, error) {
	path := filepath.Join(root, DirName, ConfigFile)
	data, err := readLimited(path)
	if errors.Is(err, fs.ErrNotExist) {
		return DefaultConfig(), nil
	}
	if err != nil {
		return Config{}, err
	}
	return parseConfig(path, data, ScopeProject)
}

// Loosened lists, as "key = value", what c sets that an untrusted file
// may not ([MergeConfig] leaves it out): what trusting the file would
// change.
func Loosened(c Config) []string {
	var out []string
	for _, key := range c.Keys {
		if !stricter(key, DefaultConfig(), c) {
			out = append(out, key+" = "+c.ShowValue(key))
		}
	}
	return out
}

// ParseConfig reads data, the content of the config file at path, on top
// of [DefaultConfig], as [LoadConfig] reads the file.
func ParseConfig(path string, data []byte) (Config, error) {
	return parseConfig(path, data, ScopeProject)
}

// parseConfig reads data, the content of the config file at path in
// scope, on top of [DefaultConfig].
func parseConfig(path string, data []byte, scope Scope) (Config, error) {
	cfg := DefaultConfig()
	var top map[string]toml.Primitive
	md, err := toml.Decode(string(data), &top)
	if err != nil {
		return Config{}, tomlFileError(path, "", err)
	}
	for _, key := range md.Keys() {
		if len(key) != 1 {
			continue
		}
		name := key[0]
		var v configValue
		switch name {
		case "timeout":
			v = durationValue{&cfg.Timeout, MinTimeout, MaxTimeout}
		case "approval_timeout":
			v = durationValue{&cfg.ApprovalTimeout, MinApprovalTimeout, MaxApprovalTimeout}
		case "max_output":
			v = sizeValue{&cfg.MaxOutput}
		case "untrusted":
			v = boolValue{&cfg.Untrusted}
		case "hard_blocks":
			v = boolValue{&cfg.HardBlocks}
		case "background_after":
			v = durationValue{&cfg.BackgroundAfter, MinBackgroundAfter, MaxBackgroundAfter}
		case "job_timeout":
			v = durationValue{&cfg.JobTimeout, MinTimeout, MaxTimeout}
		case "job_max_output":
			v = sizeValue{&cfg.JobMaxOutput}
		case "report_budget":
			v = budgetValue{&cfg.ReportBudget}
		case "secrets":
			v = patternsValue{&cfg.Secrets}
		case "sandbox":
			v = choiceValue{&cfg.Sandbox, []string{"auto", "required", "off"}}
		case "compose":
			cfg.Compose = new(bool)
			v = boolValue{cfg.Compose}
		case "dirs":
			v = dirsValue{&cfg.Dirs, path, scope}
		case "hosts":
			v = hostsValue{&cfg.Hosts}
		case "network":
			v = choiceValue{&cfg.Network, []string{"proxy", "open"}}
		case "trust_all":
			if scope != ScopeManaged {
				return Config{}, keyError(path, &md, top[name], name, errors.New(
					"trust_all is read only from the managed configuration (an administrator's); a person simply does not pass --trust-all"))
			}
			cfg.TrustAll = new(bool)
			v = boolValue{cfg.TrustAll}
		default:
			known := "config.toml knows timeout, max_output, approval_timeout, untrusted, hard_blocks, report_budget, " +
				"secrets, sandbox, compose, dirs, hosts, network, background_after, job_timeout and job_max_output"
			if near := suggest.Closest(name, ConfigKeys); near != "" {
				known = "did you mean " + near + "? " + known
			}
			return Config{}, keyError(path, &md, top[name], name, errors.New("unknown key: "+known))
		}
		if err := md.PrimitiveDecode(top[name], v); err != nil {
			return Config{}, tomlFileError(path, name, err)
		}
		cfg.Keys = append(cfg.Keys, name)
	}
	cfg.Path = path
	return cfg, nil
}

// configValue is a config.toml value; UnmarshalTOML checks type and range
// so that the decoder reports the key's line with the error.
type configValue interface{ UnmarshalTOML(any) error }

type durationValue struct {
	dst      *time.Duration
	min, max time.Duration
}

func (d durationValue) UnmarshalTOML(v any) error {
	var got time.Duration
	switch v := v.(type) {
	case int64:
		if v < 0 || v > int64(d.max/time.Second) {
			return d.outOfRange(strconv.FormatInt(v, 10))
		}
		got = time.Duration(v) * time.Second
	case string:
		var err error
		got, err = ParseDuration(v)
		if err != nil {
			return fmt.Errorf("%q is not a duration: write e.g. \"30s\" or \"2m\", or a number of seconds", v)
		}
		if got < d.min || got > d.max {
			return d.outOfRange(strconv.Quote(v))
		}
	default:
		return fmt.Errorf("want a duration such as \"30s\" or a number of seconds, found %s", tomlTypeName(v))
	}
	if got < d.min {
		return d.outOfRange(fmt.Sprint(v))
	}
	*d.dst = got
	return nil
}

// ParseDuration reads a duration the way config.toml's durations and
// --timeout are written: a Go duration ("30s", "5m", "1h30m") or a whole
// number of seconds ("90"), surrounding spaces ignored. It checks no
// range; the caller does.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseUint(s, 10, 32); err == nil {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration: write e.g. 30s, 5m or 1h30m, or a number of seconds", s)
	}
	return d, nil
}

func (d durationValue) outOfRange(v string) error {
	return fmt.Errorf("%s is out of range: allowed %s to %s", v, FormatDuration(d.min), FormatDuration(d.max))
}

// FormatDuration writes a duration as a person writes it in config.toml:
// whole seconds up to two minutes as "10s", "120s", whole hours and
// minutes as "24h", "5m", anything else as time.Duration does; what
// [ParseDuration] reads back.
func FormatDuration(d time.Duration) string {
	switch {
	case d <= 2*time.Minute && d%time.Second == 0:
		return fmt.Sprintf("%ds", d/time.Second)
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}

type sizeValue struct{ dst *int64 }

func (s sizeValue) UnmarshalTOML(v any) error {
	var got int64
	switch v := v.(type) {
	case int64:
		got = v
	case string:
		n, err := ParseSize(v)
		if err != nil {
			return err
		}
		got = n
	default:
		return fmt.Errorf("want a size such as \"10MB\" or a number of bytes, found %s", tomlTypeName(v))
	}
	if got < MinMaxOutput || got > MaxMaxOutput {
		shown := fmt.Sprint(v)
		if str, ok := v.(string); ok {
			shown = strconv.Quote(str)
		}
		return fmt.Errorf("%s is out of range: allowed 1KiB to 1GiB", shown)
	}
	*s.dst = got
	return nil
}

// sizeUnits are the suffixes ParseSize accepts, matched case-insensitively.
// Longer suffixes come first so "KiB" is not read as "B".
var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9},
	{"b", 1},
}

// ParseSize reads a byte count the way max_output and --max-output are
// written: a number of bytes, or a number with B, KB, MB, GB (powers of
// 1000) or KiB, MiB, GiB (powers of 1024), case-insensitively.
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range sizeUnits {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(num), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is not a size: write e.g. \"10MB\", \"512KiB\" or a number of bytes", s)
	}
	return n * mult, nil
}

type budgetValue struct{ dst *Budget }

func (b budgetValue) UnmarshalTOML(v any) error {
	var s string
	switch v := v.(type) {
	case int64:
		s = strconv.FormatInt(v, 10)
	case string:
		s = v
	default:
		return fmt.Errorf("want a size such as \"10KiB\", or a size and a line count such as \"10KiB,256\", found %s", tomlTypeName(v))
	}
	got, err := ParseBudget(s)
	if err != nil {
		return err
	}
	*b.dst = got
	return nil
}

// ParseBudget reads a report budget the way report_budget and
// --report-budget are written: a size as [ParseSize] reads it, from 256
// bytes to 1 MiB, optionally followed by a comma and a number of lines,
// from 1 to 100,000 ("32KiB,800"). Without the lines, the budget has one
// line per 40 bytes (256 lines for 10 KiB).
func ParseBudget(s string) (Budget, error) {
	sizeText, linesText, hasLines := strings.Cut(s, ",")
	n, err := ParseSize(sizeText)
	if err != nil {
		return Budget{}, fmt.Errorf("%q is not a report budget: write a size such as \"10KiB\", or a size and a line count such as \"10KiB,256\"", s)
	}
	if n < MinReportBudget || n > MaxReportBudget {
		return Budget{}, fmt.Errorf("%q is out of range: a report budget is from 256B to 1MiB", s)
	}
	b := Budget{Bytes: int(n), Lines: max(int(n)/ReportBytesPerLine, 1)}
	if hasLines {
		l, err := strconv.Atoi(strings.TrimSpace(linesText))
		if err != nil || l < 1 || l > MaxReportLines {
			return Budget{}, fmt.Errorf("%q: the line count after the comma must be a number from 1 to 100000", s)
		}
		b.Lines = l
	}
	return b, nil
}

// patternsValue is a list of file name patterns (secrets): strings in
// path.Match syntax, lower case or not (they match without regard to case).
type patternsValue struct{ dst *[]string }

func (p patternsValue) UnmarshalTOML(v any) error {
	out, err := decodeStrings(v, `a list of file name patterns such as ["*.p12", "config/secrets.yml"]`, "element", func(s string) (string, error) {
		if s == "" || strings.HasPrefix(s, "/") || strings.Contains(s, `\`) {
			return "", fmt.Errorf("%q is not a pattern relative to the project (write it with /, without a leading /)", s)
		}
		if _, err := path.Match(s, ""); err != nil {
			return "", fmt.Errorf("%q: %v", s, err)
		}
		return s, nil
	})
	if err == nil {
		*p.dst = out
	}
	return err
}

// decodeStrings decodes a TOML list of strings, each checked and
// normalised by each (nil: taken as it is); an error names the element
// (from 1) as noun. want describes the value for a value that is not a
// list. Every list of strings in clada's files is read by it.
func decodeStrings(v any, want, noun string, each func(string) (string, error)) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want %s, found %s", want, tomlTypeName(v))
	}
	out := make([]string, 0, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s %d: want a string, found %s", noun, i+1, tomlTypeName(e))
		}
		if each != nil {
			var err error
			if s, err = each(s); err != nil {
				return nil, fmt.Errorf("%s %d: %w", noun, i+1, err)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// A DirGrant is one entry of dirs = [...] in config.toml: a directory
// outside the project granted for reading, or for reading and writing.
type DirGrant struct {
	// Path is as written: absolute, "~/…" (the home directory), or, in a
	// project's own files, relative to the project root.
	Path  string
	Write bool   // access = "write"; else "read"
	From  string // the config file it came from
}

// Access is the grant's access as config.toml writes it.
func (d DirGrant) Access() string {
	if d.Write {
		return "write"
	}
	return "read"
}

// dirsValue is dirs: a list of { path = "…", access = "read" | "write" }.
type dirsValue struct {
	dst   *[]DirGrant
	from  string
	scope Scope
}

func (d dirsValue) UnmarshalTOML(v any) error {
	const shape = `want a list such as [{ path = "../common-lib", access = "read" }]`
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("%s, found %s", shape, tomlTypeName(v))
	}
	out := make([]DirGrant, 0, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return fmt.Errorf("element %d: %s, found %s", i+1, shape, tomlTypeName(e))
		}
		g := DirGrant{From: d.from}
		for k, val := range m {
			str, ok := val.(string)
			if !ok {
				return fmt.Errorf("element %d: %s: want a string, found %s", i+1, k, tomlTypeName(val))
			}
			switch k {
			case "path":
				g.Path = str
			case "access":
				switch str {
				case "read":
				case "write":
					g.Write = true
				default:
					return fmt.Errorf("element %d: access %q is not \"read\" or \"write\"", i+1, str)
				}
			default:
				return fmt.Errorf("element %d: unknown key %q (an entry has path and access)", i+1, k)
			}
		}
		if _, ok := m["access"]; !ok {
			return fmt.Errorf("element %d: no access: write access = \"read\" or access = \"write\"", i+1)
		}
		switch {
		case g.Path == "":
			return fmt.Errorf("element %d: no path", i+1)
		case strings.ContainsRune(g.Path, 0):
			return fmt.Errorf("element %d: the path holds NUL", i+1)
		case (d.scope == ScopeUser || d.scope == ScopeManaged) && !filepath.IsAbs(g.Path) && g.Path != "~" && !strings.HasPrefix(g.Path, "~/"):
			return fmt.Errorf("element %d: %q: a path in this file must be absolute or start with ~/ (it is read for every project)", i+1, g.Path)
		}
		out = append(out, g)
	}
	*d.dst = out
	return nil
}

// hostsValue is hosts: host names such as "registry.example.com", or
// "*.example.com" for every name below example.com; IP addresses as
// written.
type hostsValue struct{ dst *[]string }

func (h hostsValue) UnmarshalTOML(v any) error {
	out, err := decodeStrings(v, `a list of host names such as ["registry.example.com", "*.example.com"]`, "element", func(s string) (string, error) {
		host := strings.TrimSuffix(strings.ToLower(s), ".")
		if err := checkHostPattern(host); err != nil {
			return "", fmt.Errorf("%q: %v", s, err)
		}
		return host, nil
	})
	if err == nil {
		*h.dst = out
	}
	return err
}

// checkHostPattern accepts a host name, an IP address, or "*." and a name
// of at least two labels (no "*" that would match every host of a
// top-level domain, or every host at all).
func checkHostPattern(h string) error {
	name := strings.TrimPrefix(h, "*.")
	switch {
	case name == "":
		return errors.New("empty")
	case strings.Contains(name, "*"):
		return errors.New("a * only as the first label, as in *.example.com")
	case strings.Contains(name, "://") || strings.ContainsAny(name, "/@ "):
		return errors.New("a host name, without a scheme, path, port or user")
	case name != h && !strings.Contains(name, "."):
		return errors.New("*. needs a name of two labels or more after it (*.example.com)")
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_' || c == ':') {
			return fmt.Errorf("%q is not a letter, digit, '.', '-', '_' or ':' (an IPv6 address)", c)
		}
	}
	return nil
}

// choiceValue is a string that must be one of a few words.
type choiceValue struct {
	dst     *string
	choices []string
}

func (c choiceValue) UnmarshalTOML(v any) error {
	got, ok := v.(string)
	if !ok {
		return fmt.Errorf("want one of %q, found %s", c.choices, tomlTypeName(v))
	}
	for _, ch := range c.choices {
		if got == ch {
			*c.dst = got
			return nil
		}
	}
	return fmt.Errorf("%q is not one of %q", got, c.choices)
}

type boolValue struct{ dst *bool }

func (b boolValue) UnmarshalTOML(v any) error {
	got, ok := v.(bool)
	if !ok {
		return fmt.Errorf("want true or false, found %s", tomlTypeName(v))
	}
	*b.dst = got
	return nil
}
