package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gofio/gofio/jobfile"
)

// bashCompletion asks "gofio __complete" for the candidates of the word
// under the cursor. bash splits words at '=' and ':' (COMP_WORDBREAKS), so
// the script takes the word from COMP_LINE and strips what bash already
// considers typed from each candidate.
const bashCompletion = `# bash completion for gofio (gofio completion bash)
# Load it with: source <(gofio completion bash)
# or install it: gofio completion bash > /etc/bash_completion.d/gofio
_gofio_complete() {
	local line=${COMP_LINE:0:COMP_POINT}
	local cur=${line##*[[:space:]]}
	local -a words
	read -r -a words <<<"${line}"
	if [[ -z ${cur} ]]; then
		words+=("")
	fi
	local IFS=$'\n'
	local -a cands
	cands=($(command gofio __complete -- "${words[@]:1}" 2>/dev/null))
	local pre=${cur%"${cur##*[=:]}"}
	COMPREPLY=()
	local c
	for c in "${cands[@]}"; do
		COMPREPLY+=("${c#"${pre}"}")
	done
	if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]]; then
		compopt -o nospace 2>/dev/null
	fi
	return 0
}
complete -o default -o bashdefault -F _gofio_complete gofio
`

// zshCompletion asks "gofio __complete" for the candidates; zsh keeps
// "--opt=value" as one word, so they are added as they are.
const zshCompletion = `#compdef gofio
# zsh completion for gofio (gofio completion zsh)
# Load it with: source <(gofio completion zsh)
# or install it as _gofio in a directory on $fpath.
_gofio() {
	local -a cands valued plain
	cands=("${(@f)$(command gofio __complete -- "${(@)words[2,CURRENT]}" 2>/dev/null)}")
	if [[ -z ${cands[1]} ]]; then
		_files
		return
	fi
	valued=(${(M)cands:#*=})
	plain=(${cands:#*=})
	(( ${#valued} )) && compadd -S '' -- "${valued[@]}"
	(( ${#plain} )) && compadd -- "${plain[@]}"
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
	_gofio "$@"
else
	compdef _gofio gofio
fi
`

// writeCompletion prints the completion script for shell.
func writeCompletion(w io.Writer, shell string) error {
	switch shell {
	case "bash":
		_, err := io.WriteString(w, bashCompletion)
		return err
	case "zsh":
		_, err := io.WriteString(w, zshCompletion)
		return err
	case "fish":
		s, err := fishCompletion()
		if err != nil {
			return err
		}
		_, err = io.WriteString(w, s)
		return err
	}
	return fmt.Errorf("completion: unknown shell %q (valid: bash, zsh, fish)", shell)
}

// fishCompletion is urfave/cli's fish script for an app that carries
// gofio's flags, its subcommands and every fio job option as a flag (with
// the option's help as description), plus the option names as values of
// --cmdhelp.
func fishCompletion() (string, error) {
	app := referenceApp(true)
	s, err := app.ToFishCompletion()
	if err != nil {
		return "", fmt.Errorf("completion fish: %w", err)
	}
	var names []string
	seen := map[string]bool{}
	for _, o := range jobfile.AllOptions() {
		if !seen[o.Name] {
			seen[o.Name] = true
			names = append(names, o.Name)
		}
	}
	s += fmt.Sprintf("complete -c gofio -l cmdhelp -x -a '%s'\n", "all "+strings.Join(names, " "))
	return s, nil
}

// referenceApp is gofio's app as its man page and fish completion describe
// it: the flags, the subcommands and, with jobOptions, every fio job option
// as a flag.
func referenceApp(jobOptions bool) *cli.App {
	st := &State{Stdout: io.Discard, Stderr: io.Discard}
	app := newApp(st, nil)
	if jobOptions {
		for _, o := range jobfile.OptionTable() {
			if o.Engine != "" {
				continue // engine options follow ioengine=; --enghelp lists them
			}
			if o.Type == jobfile.TypeFlag && o.Name != "name" {
				app.Flags = append(app.Flags, &cli.BoolFlag{Name: o.Name, Usage: o.Help})
			} else {
				app.Flags = append(app.Flags, &cli.StringFlag{Name: o.Name, Usage: o.Help})
			}
		}
	}
	return app
}

// manDescription opens the man page.
const manDescription = `gofio reads fio job files and fio command lines as fio 3.33 does and runs
the jobs on io_uring (and fio's other Linux engines), printing fio's normal,
JSON, json+ and terse output. Every fio job option is accepted on the command
line as --option=value, before or after the job files; gofio --cmdhelp=OPT
describes one, gofio --cmdhelp lists them all, and gofio --enghelp=io_uring
lists the engine's options.

Subcommands are recognised only as the first argument: gofio version,
gofio completion bash|zsh|fish, gofio man. A job file named like a
subcommand is given as ./name.

Exit status: 0 on success, 1 for bad input (nothing is written), the number
of failed jobs (at most 100), 101 when --fail-if-slower trips, 130 after
SIGINT or SIGTERM.`

// manPage renders gofio(1) with urfave/cli's ToMan.
func manPage(*State) (string, error) {
	app := referenceApp(false)
	app.Description = manDescription
	page, err := app.ToManWithSection(1)
	if err != nil {
		return "", fmt.Errorf("man: %w", err)
	}
	return page, nil
}
