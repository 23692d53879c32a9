package specs

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"

	"github.com/clada/clada/internal/rules"
)

// The systems clada decides for: where it runs, or what `--os` names.
const (
	OSLinux   = "linux"
	OSDarwin  = "darwin"
	OSFreeBSD = "freebsd"
	OSWindows = "windows"
)

// Dialect is how the programs of a system parse their command lines.
type Dialect string

// Dialects.
const (
	// DialectGNU: GNU getopt_long, which permutes: options may follow
	// operands (ls . -la). Linux, and Windows (Git for Windows and MSYS2
	// ship GNU coreutils).
	DialectGNU Dialect = "gnu"
	// DialectBSD: macOS and the BSDs. Most of their programs use getopt,
	// which stops at the first operand: ls . --hide /etc lists the
	// files ".", "--hide" and "/etc". Some use getopt_long, which
	// permutes, and GNU coreutils may come first in PATH (Homebrew's
	// gnubin); so an option word after the first operand is refused
	// (rules.OptionAfterOperand), and each spec's bsd_flags and bsd_long
	// say which options differ there.
	DialectBSD Dialect = "bsd"
)

// HostOS is the system clada runs on, as --os names it: runtime.GOOS,
// with the other BSDs counted as freebsd.
func HostOS() string {
	switch runtime.GOOS {
	case "netbsd", "openbsd", "dragonfly":
		return OSFreeBSD
	}
	return runtime.GOOS
}

// ParseOS checks the value of --os; "" is [HostOS].
func ParseOS(s string) (string, error) {
	switch s {
	case "":
		return HostOS(), nil
	case OSLinux, OSDarwin, OSFreeBSD, OSWindows:
		return s, nil
	}
	return "", fmt.Errorf("unknown system %q (want darwin, freebsd, linux or windows)", s)
}

// DialectOf is the dialect of the programs of system os.
func DialectOf(os string) Dialect {
	switch os {
	case OSDarwin, OSFreeBSD, "netbsd", "openbsd", "dragonfly", "ios":
		return DialectBSD
	}
	return DialectGNU
}

// ForOS returns a Set with the same specs that decides for system os (see
// [ParseOS]): its programs' dialect. The new Set has its own program
// lookups.
func (s *Set) ForOS(os string) *Set {
	n := newSet(s.specs, s.base)
	n.dialect = DialectOf(os)
	return n
}

// Dialect returns the dialect the Set decides for.
func (s *Set) Dialect() Dialect { return s.dialect }

// bsdNone is the bsd_flags value of an option that macOS and the BSDs do
// not have.
const bsdNone = "none"

// bsdMap is the bsd_flags table: a value type, or "none".
type bsdMap map[string]string

func (t *bsdMap) UnmarshalTOML(d any) error {
	m, ok := d.(map[string]any)
	if !ok {
		return fmt.Errorf("want a table of value types or \"none\", not %s", tomlType(d))
	}
	out := make(map[string]string, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s, ok := m[k].(string)
		if !ok {
			return fmt.Errorf("%q: want a value type or \"none\", not %s", k, tomlType(m[k]))
		}
		if s != bsdNone {
			var vt ValueType
			if err := vt.UnmarshalText([]byte(s)); err != nil {
				return fmt.Errorf("%q: %v, or none", k, err)
			}
		}
		out[k] = s
	}
	*t = out
	return nil
}

// buildBSD derives from sp (complete) the spec used under the BSD
// dialect: bsd_flags retype or remove options, bsd_forbid forbids options
// whose BSD meaning runs, opens or writes what clada does not check (and
// may give a forbidden one the reason that holds there), bsd_long = false
// removes the long options bsd_flags does not list, and an option after
// the first operand is refused.
func (sp *spec) buildBSD(in fileSpec, bad func(f, format string, args ...any) *SpecError) *SpecError {
	b := *sp
	b.bsd = nil
	b.bsdOrder = true
	b.flags = make(map[string]ValueType, len(sp.flags))
	for k, v := range sp.flags {
		b.flags[k] = v
	}
	b.forbid = make(map[string]string, len(sp.forbid))
	for k, v := range sp.forbid {
		b.forbid[k] = v
	}
	long := in.BSDLong == nil || bool(*in.BSDLong)
	if !long {
		for k := range sp.flags {
			if _, listed := in.BSDFlags[k]; strings.HasPrefix(k, "--") && !listed {
				delete(b.flags, k)
				b.forbid[k] = "is not an option of " + sp.name + " on macOS and the BSDs, whose " + sp.name + " takes no long options; use the short option"
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(in.BSDFlags)) {
		if !strings.HasPrefix(k, "-") || len(k) < 2 || strings.Contains(k, "=") {
			return bad("bsd_flags", "flag %q must look like -x, -word or --word", k)
		}
		if _, ok := sp.forbid[k]; ok {
			return bad("bsd_flags", "%s is forbidden; it stays forbidden under the BSD dialect", k)
		}
		v := in.BSDFlags[k]
		if v == bsdNone {
			delete(b.flags, k)
			b.forbid[k] = "is not an option of " + sp.name + " on macOS and the BSDs"
			continue
		}
		b.flags[k] = ValueType(v)
	}
	for _, k := range slices.Sorted(maps.Keys(in.BSDForbid)) {
		if !strings.HasPrefix(k, "-") || len(k) < 2 || strings.Contains(k, "=") {
			return bad("bsd_forbid", "flag %q must look like -x, -word or --word", k)
		}
		if _, ok := in.BSDFlags[k]; ok {
			return bad("bsd_forbid", "%s is in bsd_flags too; give it one meaning under the BSD dialect", k)
		}
		if in.BSDForbid[k] == "" {
			return bad("bsd_forbid", "%s needs a reason", k)
		}
		delete(b.flags, k)
		b.forbid[k] = "on macOS and the BSDs, " + in.BSDForbid[k]
	}
	sp.bsd = &b
	sp.bsdForbid = in.BSDForbid
	sp.bsdFlags = in.BSDFlags
	sp.bsdLong = long
	return nil
}

// forDialect returns the spec to apply under dialect d. find's
// expression has its own parser and is the same everywhere.
func (sp *spec) forDialect(d Dialect) *spec {
	if d == DialectBSD && sp.bsd != nil {
		return sp.bsd
	}
	return sp
}

// optionAfterOperand refuses word a, an option after the operand first
// under the BSD dialect.
func (sp *spec) optionAfterOperand(a, first string) *rules.Denied {
	return &rules.Denied{
		Rule: rules.OptionAfterOperand,
		Word: a,
		Reason: fmt.Sprintf("%s comes after the operand %s: on macOS and the BSDs %s stops reading options at its first operand and takes %s as a file name, "+
			"while GNU %s (which may come first in PATH) reads it as an option, so clada cannot tell what it does", a, first, sp.name, a, sp.name),
		Advice: "put every option before the first operand (" + sp.name + " -x a.txt, not " + sp.name + " a.txt -x); name a file starting with - as ./" + strings.TrimLeft(a, "-") + " or after --",
	}
}
