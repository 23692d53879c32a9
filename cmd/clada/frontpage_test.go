package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// repoFile is the path of a file of the repository, from cmd/clada.
func repoFile(name string) string { return filepath.Join("..", "..", filepath.FromSlash(name)) }

// docPages are the documentation pages, as paths from the repository's
// root: README.md, CONTRIBUTING.md and docs/*.md.
func docPages(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(repoFile("docs/*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	pages := []string{"README.md", "CONTRIBUTING.md"}
	for _, d := range docs {
		pages = append(pages, "docs/"+filepath.Base(d))
	}
	return pages
}

// readmeLimit is how many lines the README may have: a front page, with
// the manual in docs/ (issue 30).
const readmeLimit = 250

// readmeFirstCommands are the README's first lines, which .ci/run runs and
// a newcomer types first.
var readmeFirstCommands = []string{
	"go run ./cmd/clada run --dry-run testdata/examples/reply.csl",
	"go test ./...",
}

// codeBlocks returns the indented code blocks of a Markdown page under
// the heading that starts with heading ("" for the text before the first
// ## heading), each line without its indentation and without a trailing
// comment ("   # …").
func codeBlocks(t *testing.T, page, heading string) [][]string {
	t.Helper()
	data, err := os.ReadFile(repoFile(page))
	if err != nil {
		t.Fatal(err)
	}
	var blocks [][]string
	var cur []string
	in := heading == ""
	prevBlank := true
	comment := regexp.MustCompile(`\s+# .*$`)
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = heading != "" && strings.HasPrefix(line, "## "+heading)
		}
		if code, ok := strings.CutPrefix(line, "    "); ok && in && (prevBlank || cur != nil) {
			cur = append(cur, strings.TrimSpace(comment.ReplaceAllString(code, "")))
		} else if cur != nil && line == "" {
			blocks = append(blocks, cur)
			cur = nil
		}
		prevBlank = line == "" || cur != nil
	}
	if cur != nil {
		blocks = append(blocks, cur)
	}
	return blocks
}

// TestREADMEFrontPage: the README is a front page (issue 30): under 250
// lines; its first lines are the two commands a newcomer runs first, and
// .ci/run runs both; it links to every page of docs/ and to
// CONTRIBUTING.md, so nothing moved there is out of reach.
func TestREADMEFrontPage(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(repoFile("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	if n := strings.Count(readme, "\n"); n >= readmeLimit {
		t.Errorf("README.md has %d lines; a front page has fewer than %d: move reference material into docs/ and contributor material into CONTRIBUTING.md", n, readmeLimit)
	}
	blocks := codeBlocks(t, "README.md", "")
	if len(blocks) == 0 || !slices.Equal(blocks[0], readmeFirstCommands) {
		t.Errorf("README.md's first lines are %q, want the commands %q", blocks, readmeFirstCommands)
	}
	if !strings.HasPrefix(readme, "# clada\n\n    "+readmeFirstCommands[0]) {
		t.Errorf("README.md does not start with its title and then %q", readmeFirstCommands[0])
	}
	ci, err := os.ReadFile(repoFile(".ci/run"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range readmeFirstCommands {
		if !regexp.MustCompile(`(?m)^[^#\n]*` + regexp.QuoteMeta(c) + `\s*$`).Match(ci) {
			t.Errorf(".ci/run does not run the README's command %q", c)
		}
	}
	for _, page := range docPages(t) {
		if page != "README.md" && !strings.Contains(readme, "]("+page+")") {
			t.Errorf("README.md does not link to %s: add a row for it to the Documentation table of README.md", page)
		}
	}
}

// TestDocLinks: every relative link of README.md, CONTRIBUTING.md and
// docs/*.md names a file or directory of the repository and, with
// #anchor, a heading of that page, as GitHub makes anchors.
func TestDocLinks(t *testing.T) {
	t.Parallel()
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	anchors := map[string]map[string]bool{}
	anchorsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		data, err := os.ReadFile(repoFile(page))
		if err != nil {
			t.Fatal(err)
		}
		anchors[page] = headingAnchors(string(data))
		return anchors[page]
	}
	checked := 0
	for _, page := range docPages(t) {
		data, err := os.ReadFile(repoFile(page))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				dest := page
				if file != "" {
					dest = filepath.ToSlash(filepath.Join(filepath.Dir(page), file))
					if strings.HasPrefix(dest, "../") {
						t.Errorf("%s:%d: link %s leads out of the repository", page, i+1, target)
						continue
					}
					if _, err := os.Stat(repoFile(dest)); err != nil {
						t.Errorf("%s:%d: link %s: no file %s", page, i+1, target, dest)
						continue
					}
				}
				checked++
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(dest, ".md") {
					t.Errorf("%s:%d: link %s: an anchor into %s, which is no Markdown page", page, i+1, target, dest)
					continue
				}
				if !anchorsOf(dest)[anchor] {
					t.Errorf("%s:%d: link %s: %s has no heading with the anchor #%s", page, i+1, target, dest, anchor)
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d relative links found; is the pattern broken?", checked)
	}
}

// headingAnchors returns the anchors GitHub gives the headings of a
// Markdown page: the heading's text in lower case, without Markdown
// punctuation other than - and _, spaces turned into -, and -1, -2 …
// added to repeats. Headings inside fenced code are none.
func headingAnchors(doc string) map[string]bool {
	out := map[string]bool{}
	fence := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
			continue
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		base := slugify(text)
		a := base
		for n := 1; out[a]; n++ {
			a = base + "-" + strconv.Itoa(n)
		}
		out[a] = true
	}
	return out
}

func slugify(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestCodeNamesDocs: every docs/NAME.md that clada's code or its help
// names exists, and no code points to a section of the README by name
// (`README "…"`): the README is a front page, and the manual's sections
// live in docs/.
func TestCodeNamesDocs(t *testing.T) {
	t.Parallel()
	page := regexp.MustCompile(`docs/[a-z0-9_-]+\.md`)
	section := regexp.MustCompile(`README,? \\?"|README, [A-Z]`)
	found := 0
	for _, top := range []string{"cmd", "internal"} {
		err := filepath.WalkDir(repoFile(top), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" || d.Name() == "node_modules" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range page.FindAllString(string(data), -1) {
				found++
				if _, err := os.Stat(repoFile(m)); err != nil {
					t.Errorf("%s names %s, which does not exist", path, m)
				}
			}
			if loc := section.FindIndex(data); loc != nil {
				line := strings.Count(string(data[:loc[0]]), "\n") + 1
				t.Errorf("%s:%d points to a section of the README; name the docs/ page that holds it", path, line)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if found < 5 {
		t.Errorf("only %d names of docs pages found in the code; is the walk broken?", found)
	}
}
