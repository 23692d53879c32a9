#!/usr/bin/env bash
# fixture.sh DIR: creates a small, deterministic git project in DIR for
# bench/agentcmds/measure.sh. DIR must not exist or be empty.
set -euo pipefail

if [ $# -ne 1 ]; then
	echo "usage: fixture.sh DIR" >&2
	exit 2
fi
dir=$1
mkdir -p "$dir"
if [ -n "$(ls -A "$dir")" ]; then
	echo "fixture.sh: $dir is not empty" >&2
	exit 2
fi
cd "$dir"

mkdir -p pkg/util src web/src lib docs build tests

cat > go.mod <<'X'
module example.com/demo

go 1.22
X

cat > main.go <<'X'
package main

import (
	"fmt"

	"example.com/demo/pkg/util"
)

// TODO: read the greeting from a flag
func main() {
	fmt.Println(util.Greet("world"))
}
X

cat > main_test.go <<'X'
package main

import "testing"

func TestMain_runs(t *testing.T) {
	main()
}
X

cat > pkg/util/util.go <<'X'
package util

// Greet returns a greeting for name.
func Greet(name string) string {
	// TODO: handle an empty name
	return "hello, " + name
}
X

cat > pkg/util/util_test.go <<'X'
package util

import "testing"

func TestGreet(t *testing.T) {
	if got := Greet("x"); got != "hello, x" {
		t.Fatalf("Greet = %q", got)
	}
}
X

cat > src/__init__.py <<'X'
X

cat > src/app.py <<'X'
import os

from .utils import slugify


def main():
    # TODO: config file
    print(slugify(os.environ.get("NAME", "Hello World")))


if __name__ == "__main__":
    main()
X

cat > src/utils.py <<'X'
def slugify(text):
    return "-".join(text.lower().split())
X

cat > tests/test_utils.py <<'X'
from src.utils import slugify


def test_slugify():
    assert slugify("Hello World") == "hello-world"
X

cat > src/index.ts <<'X'
import { add } from "./math";

// TODO: remove debug output
console.log(add(1, 2));
X

cat > src/math.ts <<'X'
export function add(a: number, b: number): number {
  return a + b;
}
X

cat > web/package.json <<'X'
{
  "name": "web",
  "version": "0.1.0",
  "private": true,
  "scripts": {
    "build": "tsc -p .",
    "test": "vitest run",
    "lint": "eslint src"
  },
  "devDependencies": {
    "typescript": "^5.4.0",
    "vitest": "^1.6.0"
  }
}
X

cat > web/src/App.tsx <<'X'
export function App() {
  return <h1>demo</h1>;
}
X

cat > lib/demo.ex <<'X'
defmodule Demo do
  @moduledoc "Demo application."

  def hello, do: :world
end
X

cat > lib/router.ex <<'X'
defmodule Demo.Router do
  # TODO: add routes
  def routes, do: []
end
X

cat > README.md <<'X'
# demo

A small project used to measure clada's hook.

## Build

    make build

## Test

    make test
X

cat > docs/setup.md <<'X'
# Setup

Install Go 1.22 and Node 20.
X

cat > docs/api.md <<'X'
# API

`Greet(name)` returns a greeting.
X

printf 'build:\n\tgo build -o build/demo .\n\ntest:\n\tgo test ./...\n\nlint:\n\tgo vet ./...\n\n.PHONY: build test lint\n' > Makefile

cat > notes.txt <<'X'
- refactor util.Greet
- add web tests
X

cat > input.txt <<'X'
alpha
beta
gamma
X

cat > log.txt <<'X'
2024-01-01T00:00:00Z INFO started
2024-01-01T00:00:01Z ERROR connection refused
2024-01-01T00:00:02Z INFO retrying
X

cat > .gitignore <<'X'
build/
node_modules/
__pycache__/
*.log
X

printf 'demo binary placeholder\n' > build/demo.txt

export GIT_AUTHOR_DATE='2024-01-01T00:00:00Z' GIT_COMMITTER_DATE='2024-01-01T00:00:00Z'
export GIT_CONFIG_NOSYSTEM=1
git -c init.defaultBranch=main init -q .
git config user.name 'Bench Agent'
git config user.email 'bench@example.com'
git config commit.gpgsign false
git add -A
git commit -q -m 'Initial commit'
