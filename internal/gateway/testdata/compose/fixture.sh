#!/usr/bin/env bash
# Builds the fixture of TestComposeDifferential in $1 (an existing
# directory): a few text files at the top, two dotfiles, sub/ with
# sub/deep/, and an empty directory. Contents are fixed; no git.
set -eu
cd "$1"
printf 'alpha\nbeta\ngamma\n' > a.txt
printf 'one\ntwo\nthree\nfour\n' > b.txt
printf 'pear\napple\npear\nfig\napple\npear\n' > words.txt
printf '3\n10\n1\n22\n' > nums.txt
printf 'name,n\nx,1\ny,2\n' > data.csv
printf '# Title\ntext\n' > README.md
printf '# Notes\n- first item\n- second item\nTODO: write more\n' > notes.md
printf 'secret-ish\n' > .hidden
printf 'set x=1\n' > .hrc
printf 'has spaces\n' > 'spaced name.txt'
mkdir -p sub/deep empty
printf 'sub a\n' > sub/a.txt
printf 'sub b\n' > sub/b.txt
printf 'log line\nerror: x\n' > sub/c.log
printf 'deep\n' > sub/deep/x.txt
