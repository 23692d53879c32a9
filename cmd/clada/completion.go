package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"
)

// completeFlag is the argument urfave/cli reads, as the last one, as a
// request for completions instead of a command to run.
const completeFlag = "--generate-bash-completion"

// The completion scripts ask clada itself for the words that may come
// next (urfave/cli's --generate-bash-completion: commands, subcommands,
// and a command's flags after a "-"), passing the typed words as
// arguments, never through eval, so that TAB never runs what is on the
// line. After `clada exec` or a "--" nothing is completed but file names:
// those words are a command, and completing them would mean deciding,
// and maybe running, it.
const bashCompletion = `# clada completion for bash: eval "$(clada completion bash)" in ~/.bashrc
_clada_complete() {
  local cur=${COMP_WORDS[COMP_CWORD]} w
  local -a words=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
  for w in "${words[@]}"; do
    if [[ $w == -- || $w == exec ]]; then return 0; fi
  done
  [[ $cur == -* ]] && words+=("$cur")
  local opts
  opts=$(command clada "${words[@]}" --generate-bash-completion 2>/dev/null)
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  return 0
}
complete -o bashdefault -o default -F _clada_complete clada
`

const zshCompletion = `#compdef clada
# clada completion for zsh: eval "$(clada completion zsh)" in ~/.zshrc (after compinit)
_clada() {
  local -a opts args
  local cur=${words[CURRENT]}
  args=("${(@)words[2,CURRENT-1]}")
  if (( ${args[(Ie)--]} || ${args[(Ie)exec]} )); then _files; return; fi
  [[ $cur == -* ]] && args+=("$cur")
  opts=("${(@f)$(command clada "${args[@]}" --generate-bash-completion 2>/dev/null)}")
  if [[ -n ${opts[1]} ]]; then compadd -a opts; else _files; fi
}
compdef _clada clada
`

const fishCompletion = `# clada completion for fish: clada completion fish > ~/.config/fish/completions/clada.fish
function __clada_complete
    set -l args (commandline -opc)
    set -e args[1]
    if contains -- -- $args; or contains -- exec $args
        return
    end
    set -l cur (commandline -ct)
    if string match -q -- '-*' $cur
        set -a args $cur
    end
    command clada $args --generate-bash-completion 2>/dev/null
end
complete -c clada -f -a '(__clada_complete)'
`

// completionCommand is `clada completion bash|zsh|fish`.
func completionCommand(_ io.Reader, stdout, _ io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script for clada's commands, subcommands and flags: bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: "The script asks clada for the words that may come next. Load it from your shell's\n" +
			"start-up file." + examples(
			`eval "$(clada completion bash)"                          # in ~/.bashrc`,
			`eval "$(clada completion zsh)"                           # in ~/.zshrc, after compinit`,
			"clada completion fish > ~/.config/fish/completions/clada.fish"),
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return withHint(fmt.Errorf("name one shell"), "clada completion bash|zsh|fish")
			}
			switch c.Args().First() {
			case "bash":
				_, err := io.WriteString(stdout, bashCompletion)
				return err
			case "zsh":
				_, err := io.WriteString(stdout, zshCompletion)
				return err
			case "fish":
				_, err := io.WriteString(stdout, fishCompletion)
				return err
			}
			return withHint(fmt.Errorf("no completion for %q", c.Args().First()), "clada completion bash|zsh|fish")
		},
		BashComplete: func(c *cli.Context) {
			for _, s := range []string{"bash", "zsh", "fish"} {
				fmt.Fprintln(c.App.Writer, s)
			}
		},
	}
}
