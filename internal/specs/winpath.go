package specs

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/clada/clada/internal/rules"
)

// Windows path rules (docs/rules.md, "Windows paths"). They hold on
// Windows, and under `--os windows` wherever clada runs, so that CI on
// Linux refuses what Windows would read differently. They look only at
// the text of a path: nothing here touches the file system, so a UNC
// path is refused before anything could look it up over the network.

// ForWindows makes r apply the Windows path rules, or stop applying them
// (never on Windows itself, where they always hold). It returns r.
func (r *Resolver) ForWindows(on bool) *Resolver {
	r.windows = on || runtime.GOOS == "windows"
	return r
}

// Windows reports whether r applies the Windows path rules.
func (r *Resolver) Windows() bool { return r.windows }

// NetworkPath reports whether p is, on Windows, a UNC or device path
// (\\host\share, //host/share, \\?\…): looking it up is network traffic,
// which nothing may cause while deciding.
func NetworkPath(p string) bool {
	return strings.HasPrefix(strings.ReplaceAll(p, `\`, "/"), "//")
}

// windowsReserved are the device names Windows resolves in every
// directory, with any extension: cat CON waits for the console, and
// NUL.txt is the null device.
var windowsReserved = map[string]bool{
	"CON": true, "PRN": true, "AUX": true, "NUL": true, "CONIN$": true, "CONOUT$": true,
	"COM0": true, "COM1": true, "COM2": true, "COM3": true, "COM4": true, "COM5": true, "COM6": true, "COM7": true, "COM8": true, "COM9": true,
	"LPT0": true, "LPT1": true, "LPT2": true, "LPT3": true, "LPT4": true, "LPT5": true, "LPT6": true, "LPT7": true, "LPT8": true, "LPT9": true,
	"COM¹": true, "COM²": true, "COM³": true, "LPT¹": true, "LPT²": true, "LPT³": true,
}

// windowsPath checks p by the Windows rules and returns it with both
// separators as "/", or a *rules.Denied naming what Windows would do.
func windowsPath(p string) (string, *rules.Denied) {
	deny := func(reason, advice string) (string, *rules.Denied) {
		return "", &rules.Denied{Rule: rules.PathOutsideRoot, Word: p, Reason: reason, Advice: advice}
	}
	s := strings.ReplaceAll(p, `\`, "/")
	switch {
	case NetworkPath(p):
		return deny(p+" is a UNC or device path (\\\\host\\share, \\\\?\\, \\\\.\\), which Windows opens over the network or as a device; clada does not look it up",
			"use a path inside the project, relative to the block's directory")
	case len(s) >= 2 && s[1] == ':' && isLetter(s[0]):
		if len(s) == 2 || s[2] != '/' {
			return deny(p+" is relative to the current directory of drive "+s[:2]+", which clada cannot know",
				"use a path relative to the block's directory")
		}
	case strings.HasPrefix(s, "/"):
		if runtime.GOOS == "windows" {
			return deny(p+" is rooted on the current drive, outside the project root",
				"use a path relative to the block's directory")
		}
	}
	rest := s
	if len(s) >= 3 && s[1] == ':' {
		rest = s[3:]
	}
	for _, c := range strings.Split(rest, "/") {
		if c == "" || c == "." || c == ".." {
			continue
		}
		if i := strings.IndexAny(c, `:<>"|?*`); i >= 0 {
			if c[i] == ':' {
				return deny(fmt.Sprintf("%s names an alternate data stream (%s): on Windows a.txt:s is another file than a.txt, and .git::$INDEX_ALLOCATION is .git", p, c),
					"name the file without a colon")
			}
			return deny(fmt.Sprintf("%s holds %q, which no Windows file name may hold", p, c[i]), "name the file without <>\"|?*")
		}
		if t := strings.TrimRight(c, ". "); t != c {
			return deny(fmt.Sprintf("%s has a name ending in a dot or a space (%q): Windows drops them, so .git. is .git", p, c),
				"write the name without trailing dots or spaces")
		}
		base, _, _ := strings.Cut(c, ".")
		if windowsReserved[strings.ToUpper(strings.TrimRight(base, " "))] {
			return deny(fmt.Sprintf("%s names %s, a device on Windows in every directory (with any extension)", p, c),
				"choose another file name")
		}
		if dosShortName(c) {
			return deny(fmt.Sprintf("%s has a name of the 8.3 form (%s), which may be the short name of another file: GIT~1 can be .git", p, c),
				"write the file's long name")
		}
	}
	return s, nil
}

// dosShortName reports whether c has the form of an 8.3 short name with a
// numeric tail: 1 to 6 characters, ~, digits, and an extension of at
// most 3 characters (GIT~1, PROGRA~1.TXT).
func dosShortName(c string) bool {
	name, ext, _ := strings.Cut(c, ".")
	if len(ext) > 3 || strings.Contains(ext, ".") {
		return false
	}
	i := strings.LastIndexByte(name, '~')
	if i < 1 || i > 6 || i == len(name)-1 {
		return false
	}
	for _, d := range name[i+1:] {
		if d < '0' || d > '9' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// windowsLexical is p joined to base and cleaned lexically, as Windows
// applies ".." before it looks at any link: sub\..\..\x is x's parent's
// x, whatever sub is. p is already "/"-separated.
func windowsLexical(base, p string) string {
	return filepath.Join(base, filepath.FromSlash(p))
}

func hasDotDot(p string) bool {
	for _, c := range strings.Split(p, "/") {
		if c == ".." {
			return true
		}
	}
	return false
}
