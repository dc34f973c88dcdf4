package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gofio/gofio/jobfile"
)

// Version is gofio's version, printed by --version as fio prints fio-3.33.
const Version = "0.1.0"

// outputFormats are the values --output-format accepts (comma lists allowed).
var outputFormats = map[string]bool{"normal": true, "json": true, "json+": true, "terse": true, "compare": true}

// run is the whole gofio command: it parses argv, then shows help, checks
// or prints the jobs, or runs them. It returns the process exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runState(ctx, newState(stdin, stdout, stderr), args)
}

// runState is run with an explicit State, so tests can run a whole command
// in-process.
func runState(ctx context.Context, st *State, args []string) int {
	fail := func(err error) int {
		fmt.Fprintf(st.Stderr, "gofio: %v\n", err)
		return ExitBadInput
	}
	sp, err := splitArgv(args)
	if err != nil {
		return fail(err)
	}
	code := ExitOK
	app := newApp(st, func(c *cli.Context, cfg *Config) error {
		code = act(ctx, st, c, cfg, sp)
		return nil
	})
	if err := app.RunContext(ctx, append([]string{"gofio"}, sp.flags...)); err != nil {
		// The action reports its own errors and exits with an empty message.
		var ec cli.ExitCoder
		if errors.As(err, &ec) && ec.Error() == "" {
			return ec.ExitCode()
		}
		return fail(err)
	}
	return code
}

// newApp builds the urfave/cli app for gofio's own flags. The job options
// and job files never reach it: splitArgv takes them out first.
func newApp(st *State, action func(*cli.Context, *Config) error) *cli.App {
	return &cli.App{
		Name:                      "gofio",
		Usage:                     "a fio-compatible storage load generator built on io_uring",
		UsageText:                 "gofio [options] [job options] <job file(s)>\n   gofio --name=JOB --ioengine=io_uring --rw=randread ... (jobs on the command line, as with fio)",
		Version:                   Version,
		HideHelp:                  true,
		HideVersion:               true,
		DisableSliceFlagSeparator: true,
		Writer:                    st.Stdout,
		ErrWriter:                 st.Stderr,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "output-format", Usage: "normal, json, json+, terse or compare; a comma list prints several"},
			&cli.StringFlag{Name: "output", Usage: "write the report to `FILE` instead of stdout"},
			&cli.BoolFlag{Name: "parse-only", Usage: "check the job files and exit"},
			&cli.BoolFlag{Name: "showcmd", Usage: "print each job file as an fio command line and exit"},
			&cli.StringSliceFlag{Name: "section", Usage: "run only the job section `NAME` (repeatable)"},
			&cli.StringFlag{Name: "cmdhelp", Usage: "print help for job option `OPT` (or all)"},
			&cli.StringFlag{Name: "enghelp", Usage: "list engines, or the options of `ENGINE[,OPT]`"},
			&cli.StringFlag{Name: "eta", Value: "auto", Usage: "status line: auto, always or never"},
			&cli.BoolFlag{Name: "version", Usage: "print the version and exit"},
			&cli.BoolFlag{Name: "help", Usage: "print this help and exit"},
			&cli.StringSliceFlag{Name: "set", Usage: "override job option `KEY=VALUE` in every job (repeatable; wins over job files)"},
			&cli.BoolFlag{Name: "compare", Usage: "run every job with tw_priority=1 and tw_priority=0 and compare"},
			&cli.IntFlag{Name: "repeat", Value: 1, Usage: "repeat each compare pair `N` times"},
			&cli.StringSliceFlag{Name: "sweep", Usage: "expand jobs over `KEY=LIST` (iodepth=1..16384, bs=4k,8k; repeatable)"},
			&cli.StringFlag{Name: "compare-csv", Usage: "write the comparison table as CSV to `FILE`"},
			&cli.StringFlag{Name: "json-dir", Usage: "write one fio-shaped JSON file per sweep point into `DIR`"},
			&cli.StringFlag{Name: "plot", Usage: "draw avg latency against iodepth into `FILE.svg`"},
			&cli.Float64Flag{Name: "fail-if-slower", Value: -1, Usage: "exit 101 if priority is slower than baseline by more than `PCT` beyond noise"},
		},
		Action: func(c *cli.Context) error {
			cfg, err := configFrom(c)
			if err != nil {
				fmt.Fprintf(st.Stderr, "gofio: %v\n", err)
				return cli.Exit("", ExitBadInput)
			}
			return action(c, cfg)
		},
		ExitErrHandler: func(*cli.Context, error) {},
	}
}

// configFrom fills Config from the parsed flags and checks the values.
func configFrom(c *cli.Context) (*Config, error) {
	cfg := &Config{
		Output:       c.String("output"),
		ParseOnly:    c.Bool("parse-only"),
		ShowCmd:      c.Bool("showcmd"),
		Sections:     c.StringSlice("section"),
		Eta:          c.String("eta"),
		Sets:         c.StringSlice("set"),
		Compare:      c.Bool("compare"),
		Repeat:       c.Int("repeat"),
		Sweeps:       c.StringSlice("sweep"),
		CompareCSV:   c.String("compare-csv"),
		JSONDir:      c.String("json-dir"),
		Plot:         c.String("plot"),
		FailIfSlower: c.Float64("fail-if-slower"),
	}
	for _, v := range c.StringSlice("output-format") {
		for _, f := range strings.Split(v, ",") {
			if !outputFormats[f] {
				return nil, fmt.Errorf("invalid --output-format %q (valid: normal, json, json+, terse, compare)", f)
			}
			cfg.OutputFormats = append(cfg.OutputFormats, f)
		}
	}
	if len(cfg.OutputFormats) == 0 {
		cfg.OutputFormats = []string{"normal"}
	}
	switch cfg.Eta {
	case "auto", "always", "never":
	default:
		return nil, fmt.Errorf("invalid --eta %q (valid: auto, always, never)", cfg.Eta)
	}
	for _, s := range cfg.Sections {
		if s == "global" {
			return nil, errors.New("can't use global as only section")
		}
	}
	for _, s := range cfg.Sets {
		if !strings.Contains(s, "=") {
			return nil, fmt.Errorf("--set %q: want KEY=VALUE", s)
		}
	}
	for _, s := range cfg.Sweeps {
		if k, v, ok := strings.Cut(s, "="); !ok || k == "" || v == "" {
			return nil, fmt.Errorf("--sweep %q: want KEY=LIST", s)
		}
	}
	if cfg.Repeat < 1 {
		return nil, fmt.Errorf("--repeat %d: want at least 1", cfg.Repeat)
	}
	if c.IsSet("fail-if-slower") && cfg.FailIfSlower < 0 {
		return nil, fmt.Errorf("--fail-if-slower %g: want a percentage of 0 or more", cfg.FailIfSlower)
	}
	if cfg.Plot != "" && !strings.HasSuffix(cfg.Plot, ".svg") {
		return nil, fmt.Errorf("--plot %q: want a .svg file name", cfg.Plot)
	}
	return cfg, nil
}

// act does what the flags ask once they are parsed.
func act(ctx context.Context, st *State, c *cli.Context, cfg *Config, sp *splitArgs) int {
	fail := func(err error) int {
		fmt.Fprintf(st.Stderr, "gofio: %v\n", err)
		return ExitBadInput
	}
	switch {
	case c.Bool("help"):
		if err := cli.ShowAppHelp(c); err != nil {
			return fail(err)
		}
		return ExitOK
	case c.Bool("version"):
		fmt.Fprintf(st.Stdout, "gofio-%s\n", Version)
		return ExitOK
	case c.IsSet("cmdhelp"):
		if err := jobfile.CmdHelp(st.Stdout, c.String("cmdhelp")); err != nil {
			return fail(err)
		}
		return ExitOK
	case c.IsSet("enghelp"):
		if err := jobfile.EngHelp(st.Stdout, c.String("enghelp")); err != nil {
			return fail(err)
		}
		return ExitOK
	}
	in := jobfile.Input{
		Files:    sp.files,
		CmdLine:  sp.jobOpts,
		Sections: cfg.Sections,
		Sets:     cfg.Sets,
		Getenv:   st.Getenv,
		Stdin:    st.Stdin,
		Warn:     st.Stderr,
	}
	if len(sp.files) == 0 && len(sp.jobOpts) == 0 {
		fmt.Fprintln(st.Stderr, "gofio: no job(s) defined")
		_ = cli.ShowAppHelp(c)
		return ExitBadInput
	}
	if cfg.ShowCmd {
		if err := jobfile.ShowCmd(in, st.Stdout); err != nil {
			return fail(err)
		}
		return ExitOK
	}
	jobs, err := jobfile.Parse(in)
	if err != nil {
		return fail(err)
	}
	if cfg.ParseOnly {
		return ExitOK
	}
	return execute(ctx, st, cfg, jobs, in)
}
