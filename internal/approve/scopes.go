package approve

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Scope says where a configuration or pattern file comes from. clada reads
// four, and merges them as the anchors do (git config, Claude Code's
// settings): a block in any scope beats an allow in any scope; for values,
// personal over project over user; managed over everything, and what it
// requires nobody below can lift.
type Scope string

const (
	// ScopeManaged is the administrator's directory ([ManagedDir]).
	ScopeManaged Scope = "managed"
	// ScopeUser is the person's own, for every project ([UserDir]).
	ScopeUser Scope = "user"
	// ScopeProject is .clada/ in the project, committed by the team.
	ScopeProject Scope = "project"
	// ScopePersonal is the person's own files beside the project's
	// (.clada/config.local.toml, .clada/commands.local.toml), never
	// committed (the .gitignore clada init writes names them).
	ScopePersonal Scope = "personal"
)

// The personal scope's files in .clada.
const (
	PersonalConfigFile   = "config.local.toml"
	PersonalCommandsFile = "commands.local.toml"
)

// managedDirOverride replaces ManagedDir's answer in tests only
// (SetManagedDirForTest): no environment variable can move the managed
// directory, or a person (or a command) could step around it.
var managedDirOverride string

// SetManagedDirForTest makes [ManagedDir] return dir; for tests.
func SetManagedDirForTest(dir string) { managedDirOverride = dir }

// ManagedDir is the directory an administrator controls: /etc/clada on
// Linux and the BSDs, /Library/Application Support/clada on macOS,
// %ProgramData%\clada on Windows. It holds config.toml, commands.toml and
// specs.toml like .clada/.
func ManagedDir() string {
	if managedDirOverride != "" {
		return managedDirOverride
	}
	switch runtime.GOOS {
	case "windows":
		if d := os.Getenv("ProgramData"); d != "" {
			return filepath.Join(d, "clada")
		}
		return `C:\ProgramData\clada`
	case "darwin":
		return "/Library/Application Support/clada"
	}
	return "/etc/clada"
}

// UserDir is the person's configuration directory for clada:
// $XDG_CONFIG_HOME/clada or ~/.config/clada on Linux and the BSDs,
// ~/Library/Application Support/clada on macOS, %AppData%\clada on
// Windows (os.UserConfigDir). "" when there is none.
func UserDir() string {
	d, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "clada")
}

// ConfigLayer is one scope's config.toml as read, for [MergeConfig].
type ConfigLayer struct {
	Scope   Scope
	Config  Config // as parsed; Keys are the keys the file set
	Trusted bool   // user and managed files always are
}

// LoadConfigLayer reads the config file at path for scope; a missing
// file is a layer that sets nothing. trust (nil: trusted) decides for the
// project and personal scopes; the user's and the administrator's files
// are always trusted (only their owners can write them, and the sandbox
// never lets a command write outside the project).
func LoadConfigLayer(path string, scope Scope, t *TrustCheck) (ConfigLayer, error) {
	l := ConfigLayer{Scope: scope, Config: DefaultConfig(), Trusted: true}
	if path == "" {
		return l, nil
	}
	data, err := readLimited(path)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, err
	}
	if l.Config, err = parseConfig(path, data, scope); err != nil {
		return l, err
	}
	if scope == ScopeProject || scope == ScopePersonal {
		l.Trusted = t.Trusts(filepath.Base(path), data)
	}
	return l, nil
}

// MergeConfig merges the layers in the order given (user, project,
// personal, then managed): each key a trusted layer sets replaces the
// value below it (secrets add up); a key an untrusted layer sets applies
// only when it is stricter than the value below it (a shorter limit, untrusted = true, hard_blocks = true, more secrets, sandbox = "required", compose = false),
// and withheld lists the files whose other keys were left out. The
// managed layer's keys replace everything. The result's Origins say which
// file each key came from; Path is the project's file.
func MergeConfig(layers ...ConfigLayer) (cfg Config, withheld []string) {
	cfg = DefaultConfig()
	cfg.Origins = map[string]string{}
	for _, l := range layers {
		if l.Scope == ScopeProject {
			cfg.Path = l.Config.Path
		}
		held := false
		for _, key := range l.Config.Keys {
			if !l.Trusted && !stricter(key, cfg, l.Config) {
				held = true
				continue
			}
			copyKey(&cfg, key, l.Config)
			cfg.Origins[key] = l.Config.Path
		}
		if held {
			withheld = append(withheld, l.Config.Path)
		}
	}
	return cfg, withheld
}

// stricter reports whether next's value of key makes clada stricter than
// cur's.
func stricter(key string, cur, next Config) bool {
	less := func(n, c, def int64) bool { return n > 0 && n < cmpDefault(c, def) }
	switch key {
	case "timeout":
		return less(int64(next.Timeout), int64(cur.Timeout), int64(DefaultCommandTimeout))
	case "max_output":
		return less(next.MaxOutput, cur.MaxOutput, DefaultCommandMaxOutput)
	case "job_timeout":
		return less(int64(next.JobTimeout), int64(cur.JobTimeout), int64(DefaultJobTimeout))
	case "job_max_output":
		return less(next.JobMaxOutput, cur.JobMaxOutput, DefaultJobMaxOutput)
	case "untrusted":
		return next.Untrusted
	case "hard_blocks":
		return next.HardBlocks
	case "secrets":
		return true
	case "sandbox":
		return next.Sandbox == "required"
	case "compose":
		return next.Compose != nil && !*next.Compose
	case "network":
		return next.Network == "proxy"
	}
	return false
}

func cmpDefault(v, def int64) int64 {
	if v == 0 {
		return def
	}
	return v
}

// copyKey sets key of dst to src's value (secrets, hosts and dirs: added).
func copyKey(dst *Config, key string, src Config) {
	switch key {
	case "timeout":
		dst.Timeout = src.Timeout
	case "max_output":
		dst.MaxOutput = src.MaxOutput
	case "approval_timeout":
		dst.ApprovalTimeout = src.ApprovalTimeout
	case "untrusted":
		dst.Untrusted = src.Untrusted
	case "hard_blocks":
		dst.HardBlocks = src.HardBlocks
	case "background_after":
		dst.BackgroundAfter = src.BackgroundAfter
	case "job_timeout":
		dst.JobTimeout = src.JobTimeout
	case "job_max_output":
		dst.JobMaxOutput = src.JobMaxOutput
	case "report_budget":
		dst.ReportBudget = src.ReportBudget
	case "secrets":
		dst.Secrets = addNew(dst.Secrets, src.Secrets)
	case "sandbox":
		dst.Sandbox = src.Sandbox
	case "compose":
		dst.Compose = src.Compose
	case "hosts":
		dst.Hosts = addNew(dst.Hosts, src.Hosts)
	case "network":
		dst.Network = src.Network
	case "dirs":
		dst.Dirs = addNew(dst.Dirs, src.Dirs)
	case "trust_all":
		dst.TrustAll = src.TrustAll
	}
}

// addNew appends to list the items of more it does not hold yet.
func addNew[T comparable](list, more []T) []T {
	for _, x := range more {
		if !slices.Contains(list, x) {
			list = append(list, x)
		}
	}
	return list
}

// ConfigKeys are config.toml's keys, in the order clada config shows them.
var ConfigKeys = []string{"timeout", "max_output", "approval_timeout", "untrusted", "hard_blocks", "sandbox", "compose",
	"secrets", "dirs", "network", "hosts", "report_budget", "background_after", "job_timeout", "job_max_output", "trust_all"}

// ShowValue writes c's value of key as clada config shows it: the
// effective value, defaults filled in.
func (c Config) ShowValue(key string) string {
	orDefault := func(v, def time.Duration) time.Duration {
		if v == 0 {
			return def
		}
		return v
	}
	orSize := func(v, def int64) int64 {
		if v == 0 {
			return def
		}
		return v
	}
	switch key {
	case "timeout":
		return strconv.Quote(FormatDuration(orDefault(c.Timeout, DefaultCommandTimeout)))
	case "max_output":
		return strconv.FormatInt(orSize(c.MaxOutput, DefaultCommandMaxOutput), 10)
	case "approval_timeout":
		return strconv.Quote(FormatDuration(orDefault(c.ApprovalTimeout, DefaultApprovalTimeout)))
	case "untrusted":
		return strconv.FormatBool(c.Untrusted)
	case "hard_blocks":
		return strconv.FormatBool(c.HardBlocks)
	case "sandbox":
		if c.Sandbox == "" {
			return `"auto"`
		}
		return strconv.Quote(c.Sandbox)
	case "compose":
		if c.Compose == nil {
			return "(unset: compositions everywhere but RUN blocks)"
		}
		return strconv.FormatBool(*c.Compose)
	case "secrets":
		q := make([]string, len(c.Secrets))
		for i, s := range c.Secrets {
			q[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(q, ", ") + "] (besides the built-in ones)"
	case "network":
		if c.Network == "" {
			return `"proxy"`
		}
		return strconv.Quote(c.Network)
	case "hosts":
		q := make([]string, len(c.Hosts))
		for i, h := range c.Hosts {
			q[i] = strconv.Quote(h)
		}
		return "[" + strings.Join(q, ", ") + "]"
	case "dirs":
		q := make([]string, len(c.Dirs))
		for i, d := range c.Dirs {
			q[i] = fmt.Sprintf("{ path = %s, access = %q }", strconv.Quote(d.Path), d.Access())
		}
		return "[" + strings.Join(q, ", ") + "]"
	case "report_budget":
		if c.ReportBudget == (Budget{}) {
			return "(default)"
		}
		return fmt.Sprintf("%d bytes, %d lines", c.ReportBudget.Bytes, c.ReportBudget.Lines)
	case "background_after":
		return strconv.Quote(FormatDuration(orDefault(c.BackgroundAfter, DefaultBackgroundAfter)))
	case "job_timeout":
		return strconv.Quote(FormatDuration(orDefault(c.JobTimeout, DefaultJobTimeout)))
	case "job_max_output":
		return strconv.FormatInt(orSize(c.JobMaxOutput, DefaultJobMaxOutput), 10)
	case "trust_all":
		if c.TrustAll == nil {
			return "(unset: --trust-all allowed)"
		}
		return strconv.FormatBool(*c.TrustAll)
	}
	return ""
}
