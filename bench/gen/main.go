// Command gen writes the inputs of bench/run.sh into a directory: the
// demo project tree, the CSL documents and the bash reference script, and
// a sparse file. Everything is generated; nothing is downloaded.
//
//	go run ./bench/gen -dir /tmp/clada-bench -blocks 10000 -cats 100 -sparse 1GiB
//
// It writes, under DIR:
//
//	project/            the tree the documents' commands refer to (--root)
//	project/big.bin     a sparse file of -sparse bytes (no disk used)
//	doc.csl             -blocks RUN blocks of a realistic command mix
//	cat.csl, cat.sh     -cats RUN blocks of `cat small.txt`, and the same as a bash loop
//	huge.csl            one RUN block `cat big.bin`
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/clada/clada/bench"
)

func main() {
	dir := flag.String("dir", "", "output directory (required)")
	blocks := flag.Int("blocks", 10000, "RUN blocks in doc.csl")
	cats := flag.Int("cats", 100, "RUN blocks in cat.csl and commands in cat.sh")
	sparse := flag.Int64("sparse", 1<<30, "size of project/big.bin in bytes")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "gen: -dir is required")
		os.Exit(2)
	}
	if err := gen(*dir, *blocks, *cats, *sparse); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func gen(dir string, blocks, cats int, sparse int64) error {
	project := filepath.Join(dir, "project")
	if err := bench.Project(project); err != nil {
		return err
	}
	// A sparse file: Truncate extends it without writing a byte.
	f, err := os.Create(filepath.Join(project, "big.bin"))
	if err != nil {
		return err
	}
	if err := f.Truncate(sparse); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	files := map[string]string{
		"doc.csl":  bench.Document(blocks),
		"cat.csl":  bench.CatDocument(cats, "small.txt"),
		"cat.sh":   bench.CatScript(cats, "small.txt"),
		"huge.csl": "<---RUN--->\ncat big.bin\n<---END--->\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}
