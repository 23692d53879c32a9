package specs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/clada/clada/internal/rules"
)

// maxCheckList bounds a checksum list clada reads (sha256sum -c LIST); a
// larger one is asked.
const maxCheckList = 256 << 10

// checkListed confines the files named in the checksum lists that
// sha256sum -c and the like read (check_lists): each is opened by the
// program, relative to its working directory, so each must be a read
// inside the project, as if it were an operand. ask is non-empty when
// clada cannot know the names: the list is standard input (no operand,
// or -), too large, or holds a line clada cannot read. A list that does
// not exist is left to the program, which fails.
func (sp *spec) checkListed(lists []string, dir string, r *Resolver) (touched []Path, ask string, err error) {
	if len(lists) == 0 {
		return nil, sp.name + " reads the checksum list from standard input, and the files it names are not known before it runs", nil
	}
	for _, l := range lists {
		if l == "-" {
			return nil, sp.name + " reads a checksum list from standard input, and the files it names are not known before it runs", nil
		}
		res, err := r.Resolve(dir, l)
		if err != nil {
			return nil, "", err
		}
		fi, serr := os.Stat(res)
		if serr != nil || !fi.Mode().IsRegular() {
			continue
		}
		if fi.Size() > maxCheckList {
			return nil, fmt.Sprintf("%s's checksum list %s is too large for clada to read the names in it", sp.name, l), nil
		}
		data, rerr := os.ReadFile(res)
		if rerr != nil {
			return nil, fmt.Sprintf("clada cannot read %s's checksum list %s: %v", sp.name, l, rerr), nil
		}
		for i, line := range bytes.FieldsFunc(data, func(c rune) bool { return c == '\n' || c == 0 }) {
			names, ok := listedNames(string(line))
			if !ok {
				return nil, fmt.Sprintf("%s's checksum list %s has a line clada cannot read (line %d)", sp.name, l, i+1), nil
			}
			for _, n := range names {
				res, err := r.Confine(dir, n, false)
				if err != nil {
					var de *rules.Denied
					if errors.As(err, &de) {
						d := *de
						d.Reason = fmt.Sprintf("%s -c opens the files its list names, and %s names %s: %s", sp.name, l, n, de.Reason)
						d.Advice = "check only files inside the project; " + de.Advice
						return nil, "", &d
					}
					return nil, "", err
				}
				touched = append(touched, Path{n, res})
			}
		}
	}
	return touched, "", nil
}

// listedNames returns every name a line of a checksum list may stand for,
// as GNU coreutils and Perl's shasum read it: "HASH  NAME", "HASH *NAME",
// "HASH NAME", "HASH ^NAME" (shasum -U), the BSD form "ALGO (NAME) =
// HASH", and a leading backslash that escapes \\, \n and \r in NAME. The
// readings overlap on purpose: each candidate is confined, so a reading
// clada gets wrong cannot hide a file the program opens. ok is false for
// a line that is neither (blank lines and # comments give no name).
func listedNames(line string) ([]string, bool) {
	line = strings.TrimSuffix(line, "\r")
	s := strings.TrimLeft(line, " \t")
	if s == "" || strings.HasPrefix(s, "#") {
		return nil, true
	}
	escaped := strings.HasPrefix(s, `\`)
	if escaped {
		s = s[1:]
	}
	var raw []string
	if open := strings.Index(s, " ("); open > 0 && !strings.ContainsAny(s[:open], " \t") {
		if end := strings.LastIndex(s, ") = "); end > open {
			raw = append(raw, s[open+2:end])
		}
		if end := strings.LastIndex(s, ")= "); end > open {
			raw = append(raw, s[open+2:end])
		}
	}
	if sep := strings.IndexAny(s, " \t"); sep > 0 && sep+1 < len(s) {
		rest := s[sep+1:]
		raw = append(raw, rest)
		if c := rest[0]; c == ' ' || c == '*' || c == '^' || c == '?' {
			if len(rest) > 1 {
				raw = append(raw, rest[1:])
			}
		}
	}
	if len(raw) == 0 {
		return nil, false
	}
	var names []string
	for _, n := range raw {
		names = append(names, n)
		if escaped || strings.Contains(n, `\`) {
			names = append(names, strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\r`, "\r").Replace(n))
		}
	}
	return names, true
}
