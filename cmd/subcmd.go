package cmd

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gofio/gofio/compare"
	"github.com/gofio/gofio/jobfile"
	"github.com/gofio/gofio/report"
)

// gofio's subcommands. A subcommand is recognised only as the first
// argument, so fio command lines keep working; a job file that happens to
// be called "merge" is given as ./merge.
const completeCmd = "__complete" // the shell scripts' hidden helper

// diffCmd is parsed with gofio's own flags (cli.go: splitArgv sets it
// apart), though the command table lists it.
const diffCmd = "diff"

// isSubcommand reports whether name, the first argument, selects a
// subcommand of the command table (diff aside).
func isSubcommand(name string) bool {
	for _, c := range (&State{}).subcommands() {
		if c.Name == name && c.Name != diffCmd {
			return true
		}
	}
	return false
}

// commandNames are the command table's visible commands, for completion.
func commandNames() []string {
	var names []string
	for _, c := range (&State{}).subcommands() {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	return names
}

// subcommands returns gofio's subcommands for urfave/cli.
func (st *State) subcommands() []*cli.Command {
	return []*cli.Command{
		{
			Name:   "version",
			Usage:  "print the version, commit, Go release, kernel and what its io_uring supports",
			Action: func(*cli.Context) error { return writeVersion(st.Stdout, st.Uring, true) },
		},
		{
			Name:      "completion",
			Usage:     "print the shell completion script for bash, zsh or fish",
			ArgsUsage: "bash|zsh|fish",
			Action: func(c *cli.Context) error {
				if c.NArg() != 1 {
					return errors.New("completion: want one shell: bash, zsh or fish")
				}
				return writeCompletion(st.Stdout, c.Args().First())
			},
		},
		{
			Name:  "man",
			Usage: "print the man page (roff; man -l - reads it)",
			Action: func(*cli.Context) error {
				page, err := manPage(st)
				if err != nil {
					return err
				}
				_, err = fmt.Fprint(st.Stdout, page)
				return err
			},
		},
		{
			Name:      "merge",
			Usage:     "merge hosts' JSON results of one fleet run into fio's client-mode shape",
			ArgsUsage: "-o all.json host1.json host2.json ...",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the merged JSON to `FILE` (the normal text goes to stdout)"},
				&cli.StringFlag{Name: "output-format", Value: "normal", Usage: "what stdout gets without -o: " + orList(formatNames(true))},
				&cli.BoolFlag{Name: "force", Usage: "merge results of different run ids, jobs or duplicate hosts"},
			},
			Action: func(c *cli.Context) error {
				return st.merge(c.Args().Slice(), c.String("output"), c.String("output-format"), c.Bool("force"))
			},
		},
		{
			// gofio diff is parsed with gofio's own flags (cli.go: splitArgv
			// sets it apart), not as a subcommand; this entry puts it in
			// --help, the man page and completion, and runs it the same way.
			Name:            diffCmd,
			Usage:           "compare two saved runs point by point, with the statistics, reports and gate of --compare (docs/ci.md)",
			ArgsUsage:       diffUsage,
			SkipFlagParsing: true,
			Action: func(c *cli.Context) error {
				return exitWith(st.command(c.Context, append([]string{"gofio", diffCmd}, c.Args().Slice()...)))
			},
		},
		st.driftCommand(),
		st.historyCommand(),
		{
			Name:            completeCmd,
			Hidden:          true,
			SkipFlagParsing: true,
			Usage:           "print completion candidates for the words after gofio (the last one is being completed)",
			Action: func(c *cli.Context) error {
				words := c.Args().Slice()
				if len(words) > 0 && words[0] == "--" {
					words = words[1:]
				}
				for _, s := range completions(words) {
					fmt.Fprintln(st.Stdout, s)
				}
				return nil
			},
		},
	}
}

// subcommand runs argv whose first argument is a subcommand.
func (st *State) subcommand(ctx context.Context, args []string) int {
	app := newApp(st, nil)
	if err := app.RunContext(ctx, append([]string{"gofio"}, args[1:]...)); err != nil {
		var ec cli.ExitCoder
		if errors.As(err, &ec) && ec.Error() == "" {
			return ec.ExitCode()
		}
		return st.fail(err)
	}
	return ExitOK
}

// completions returns the completion candidates for the words typed after
// "gofio"; the last word is the one being completed. It completes the
// subcommands as the first word, the shells after "completion", gofio's
// flags and every fio job and engine option after "-" or "--" (with "="
// when the option takes a value), and option names after --cmdhelp=. Anything else
// is left to the shell's file completion.
func completions(words []string) []string {
	cur := ""
	if len(words) > 0 {
		cur = words[len(words)-1]
	}
	var out []string
	add := func(c string) {
		if strings.HasPrefix(c, cur) {
			out = append(out, c)
		}
	}
	switch {
	case len(words) == 2 && words[0] == "completion":
		for _, sh := range []string{"bash", "zsh", "fish"} {
			add(sh)
		}
	case strings.HasPrefix(cur, "--cmdhelp="):
		add("--cmdhelp=all")
		for _, o := range jobfile.AllOptions() {
			add("--cmdhelp=" + o.Name)
		}
	case strings.HasPrefix(cur, "-"):
		if !strings.HasPrefix(cur, "--") {
			cur = "-" + cur // fio takes -name too; offer the long form
		}
		for _, f := range flagTable() {
			name := "--" + f.Names()[0]
			if f.arg() == argRequired {
				name += "="
			}
			add(name)
		}
		for _, o := range jobfile.AllOptions() {
			if o.Type == jobfile.TypeFlag && o.Name != "name" {
				add("--" + o.Name)
			} else {
				add("--" + o.Name + "=")
			}
		}
	case len(words) <= 1:
		for _, n := range commandNames() {
			add(n)
		}
	}
	sort.Strings(out)
	return dedupe(out)
}

func dedupe(sorted []string) []string {
	out := sorted[:0]
	for i, s := range sorted {
		if i == 0 || s != sorted[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// driftCommand is gofio drift: the drift between runs of one unchanged
// job, and the --drift a baseline diff needs.
func (st *State) driftCommand() *cli.Command {
	return &cli.Command{
		Name:      "drift",
		Usage:     "measure the drift between runs of one unchanged job made minutes apart: the --drift a baseline diff needs (docs/ci.md)",
		ArgsUsage: "[--gate-metric avg|p99|iops|STAGE] [--fail-if-slower PCT] [--detect PCT] RUN1.json RUN2.json ... (5 or more)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "gate-metric", Value: report.GateAvg, Usage: "the per-repeat figure the gate compares: avg, p99, iops or a kernel stage (enter, submit, queue, device, ktw, reap)"},
			&cli.Float64Flag{Name: "fail-if-slower", Value: 5, Usage: "the gate the allowance is for, `PCT`"},
			&cli.Float64Flag{Name: "detect", Value: compare.DriftDetectPct, Usage: "the slowdown in `PCT` the gate must still catch: no allowance of detect - fail-if-slower or more is proposed"},
		},
		Action: func(c *cli.Context) error {
			return exitWith(st.drift(c.Args().Slice(), c.String("gate-metric"), c.Float64("fail-if-slower"), c.Float64("detect")))
		},
	}
}

// exitWith is a subcommand's Action result for exit status code: nil for
// ExitOK, else the status with nothing more to print.
func exitWith(code int) error {
	if code != ExitOK {
		return cli.Exit("", code)
	}
	return nil
}

// historyCommand is gofio history: a saved run judged against the
// earlier runs of the same jobs on the same runner.
func (st *State) historyCommand() *cli.Command {
	return &cli.Command{
		Name:      "history",
		Usage:     "judge a saved run against the earlier runs of the same jobs on the same runner in DIR, and name the runs where each row moved (docs/ci.md)",
		ArgsUsage: "[--last N] [--fail-if-slower PCT] [--gate-metric avg|p99|iops] [--output-format text|json] DIR [NEW.json]",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "last", Value: compare.HistoryLast, Usage: "judge against at most `N` earlier runs (those since the row's last change point)"},
			&cli.Float64Flag{Name: "fail-if-slower", Value: -1, Usage: "exit 101 if a row is slower than its history by more than `PCT` beyond the runs' own spread"},
			&cli.StringFlag{Name: "gate-metric", Value: report.GateAvg, Usage: "the per-repeat figure judged: avg, p99 or iops"},
			&cli.StringFlag{Name: "output-format", Value: "text", Usage: "text or json"},
		},
		Action: func(c *cli.Context) error {
			if c.IsSet("fail-if-slower") && c.Float64("fail-if-slower") < 0 {
				return fmt.Errorf("history: --fail-if-slower %g: want a percentage of 0 or more", c.Float64("fail-if-slower"))
			}
			return exitWith(st.history(c.Args().Slice(), historyFlags{last: c.Int("last"), failIfSlower: c.Float64("fail-if-slower"),
				gateMetric: c.String("gate-metric"), format: c.String("output-format")}))
		},
	}
}
