package jobfile

// This file holds fio's built-in profiles (fio's --profile=NAME): a
// command-line switch that appends the profile's own jobs after every other
// job, as fio 3.33's load_profile does at the start of its backend.

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// profileRun is a --profile=NAME found on the command line, with the
// profile's own options given there (--dir=/mnt and so on) by name.
type profileRun struct {
	name string
	opts map[string]string
}

// tiobenchOptions are the options fio's tiobench profile adds to the
// command line, with fio's help texts. fio 3.33 lists them under
// `--profile=tiobench --cmdhelp` but never applies them (a difference
// gofio does not copy, in DIFFERENCES.md).
var tiobenchOptions = []struct{ name, help, typ, def string }{
	{"size", "Size in MiB", "string (opt=bla)", ""},
	{"block", "Block size in bytes", "integer value (opt=100)", "4096"},
	{"numruns", "Number of runs", "integer value (opt=100)", ""},
	{"dir", "Test directory", "string (opt=bla)", ""},
	{"threads", "Number of Threads", "integer value (opt=100)", ""},
}

// splitProfile takes --profile=NAME out of the command-line job options,
// and with it the profile's own options (tiobench's --size, --block,
// --numruns, --dir and --threads), which it returns by name. The other
// arguments come back in order. Without --profile it returns args as they
// are and a nil profile.
func splitProfile(args []string) ([]string, *profileRun, error) {
	var prof *profileRun
	for _, a := range args {
		key, value, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if key == "profile" {
			prof = &profileRun{name: value, opts: map[string]string{}}
		}
	}
	if prof == nil {
		return args, nil, nil
	}
	switch prof.name {
	case "tiobench":
	case "act":
		return nil, nil, &Error{Option: "--profile=act", Msg: "fio's act profile is not run by gofio: it needs raw devices named by its device-names= option, written and read for its test-duration (24h by default), and reports with its own latency buckets, which gofio does not have"}
	default:
		return nil, nil, &Error{Option: "--profile=" + prof.name, Msg: fmt.Sprintf("fio: profile '%s' not found (fio 3.33 has tiobench and act)", prof.name)}
	}
	var rest []string
	for _, a := range args {
		key, value, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if key == "profile" {
			continue
		}
		if isTiobenchOption(key) {
			prof.opts[key] = value
			continue
		}
		rest = append(rest, a)
	}
	return rest, prof, nil
}

// IsProfileOption reports whether name is an option of fio's built-in
// profile profile (tiobench's dir, block, ...): with --profile=tiobench on
// the command line, --size is the profile's size in MiB, not the job's.
func IsProfileOption(profile, name string) bool {
	return profile == "tiobench" && isTiobenchOption(name)
}

// ProfileCmdHelp writes fio's --cmdhelp output under --profile=profile:
// the profile's own options only, each name and help when opt is "" or
// "all", else the details of option opt or of the closest one, in fio
// 3.33's layout.
func ProfileCmdHelp(w io.Writer, profile, opt string) error {
	if profile != "tiobench" {
		_, err := fmt.Fprintf(w, "fio: profile '%s' has no options gofio runs\n", profile)
		return err
	}
	var b strings.Builder
	if opt == "" || opt == "all" {
		for _, o := range tiobenchOptions {
			fmt.Fprintf(&b, "%-24s: %s\n", o.name, o.help)
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	best, dist := 0, -1
	for i, o := range tiobenchOptions {
		if d := levenshtein(opt, o.name); dist < 0 || d < dist {
			best, dist = i, d
		}
	}
	if dist != 0 {
		fmt.Fprintf(&b, "No such command: %s", opt)
		if dist >= 3 {
			b.WriteString("\n")
			_, err := io.WriteString(w, b.String())
			return err
		}
		b.WriteString(" - showing closest match\n")
	}
	o := tiobenchOptions[best]
	def := o.def
	if def == "" {
		def = "no default"
	}
	fmt.Fprintf(&b, "%20s: %s\n%20s: %s\n%20s: %s\n%20s: only for profile '%s'\n", o.name, o.help, "type", o.typ, "default", def, "valid", profile)
	if strings.HasPrefix(o.typ, "integer") {
		fmt.Fprintf(&b, "%20s: min=0, max=-1\n", "range")
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// isTiobenchOption reports whether name is one of the tiobench profile's
// own options.
func isTiobenchOption(name string) bool {
	for _, o := range tiobenchOptions {
		if o.name == name {
			return true
		}
	}
	return false
}

// tiobenchArgs returns the command line fio 3.33's tiobench profile adds
// (profiles/tiobench.c's tb_opts after tb_prep_cmdline): one global part
// and four stonewalled jobs on the same four files. size is in MiB; without
// it fio writes size=4*1024*$mb_memory, which is bytes (4 KiB per MiB of
// memory), and so does gofio.
func tiobenchArgs(opts map[string]string, host Host) ([]string, error) {
	num := func(name string, def int64) (int64, error) {
		v, ok := opts[name]
		if !ok {
			return def, nil
		}
		n, err := parseInt(v, 1024)
		if err != nil || n < 0 {
			return 0, &Error{Option: "--" + name + "=" + v, Msg: fmt.Sprintf("tiobench profile: %s needs a non-negative integer", name)}
		}
		return n, nil
	}
	sizeMiB, err := num("size", 0)
	if err != nil {
		return nil, err
	}
	size := uint64(4*1024) * uint64(host.MBMemory)
	if sizeMiB > 0 {
		size = uint64(sizeMiB) << 20
	}
	bs, err := num("block", 4096)
	if err != nil {
		return nil, err
	}
	loops, err := num("numruns", 1)
	if err != nil {
		return nil, err
	}
	threads, err := num("threads", 1)
	if err != nil {
		return nil, err
	}
	dir := "./"
	if d, ok := opts["dir"]; ok && d != "" {
		dir = d
	}
	return []string{
		"--buffered=0", "--size=" + strconv.FormatUint(size, 10), "--bs=" + strconv.FormatInt(bs, 10),
		"--loops=" + strconv.FormatInt(loops, 10), "--directory=" + dir, "--numjobs=" + strconv.FormatInt(threads, 10),
		"--timeout=600", "--group_reporting", "--thread", "--overwrite=1",
		"--filename=.fio.tio.1:.fio.tio.2:.fio.tio.3:.fio.tio.4",
		"--ioengine=sync",
		"--name=seqwrite", "--rw=write", "--end_fsync=1",
		"--name=randwrite", "--stonewall", "--rw=randwrite", "--end_fsync=1",
		"--name=seqread", "--stonewall", "--rw=read",
		"--name=randread", "--stonewall", "--rw=randread",
	}, nil
}

// profileJobs returns the job sources profile p adds, after every other
// job: its sections parsed as a command line, with the command line's own
// global options in effect beneath the profile's (fio parses the profile
// into the same default job the command line's globals set).
func profileJobs(p *profileRun, host Host, cmdGlobals globalChain) ([]jobSource, error) {
	args, err := tiobenchArgs(p.opts, host)
	if err != nil {
		return nil, err
	}
	secs, err := cmdlineSections(args)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", p.name, err)
	}
	globals := globalChain(clone(cmdGlobals))
	var out []jobSource
	for _, s := range secs {
		if s.global {
			if err := globals.add(s); err != nil {
				return nil, err
			}
			continue
		}
		out = append(out, jobSource{globals: clone(globals), own: s})
	}
	return out, nil
}
