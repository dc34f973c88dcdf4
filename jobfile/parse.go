package jobfile

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// Input is everything the front end reads: job files, command-line job
// options and gofio's overrides.
type Input struct {
	Files    []string                    // job files in order; "-" = stdin
	CmdLine  []string                    // fio-style job options from argv in order (--name=a --rw=read ...), gofio's own flags removed
	Sections []string                    // --section
	Sets     []string                    // --set KEY=VALUE overrides, in order; they win over every job file and command-line value
	Getenv   func(string) (string, bool) // ${VAR} lookup; nil means every variable is unset
	Stdin    io.Reader                   // read for the job file "-"
	Warn     io.Writer                   // warnings (e.g. unset ${VAR}) go here; nil discards them
	Host     *Host                       // $ncpus, $pagesize, $mb_memory; nil detects this machine
	// ReadOnly refuses jobs that write or trim (fio's --readonly).
	ReadOnly bool
	// WarningsFatal makes warnings errors (fio's --warnings-fatal).
	WarningsFatal bool
	// Debug, when set, receives one line per option each job takes, in
	// parse order (fio's --debug=parse).
	Debug io.Writer
}

// entry is one option of a section resolved against the option table.
type entry struct {
	rawEntry
	spec *OptionSpec
}

// option returns the entry as a Job option.
func (e entry) option() Option {
	return Option{Name: e.spec.Name, Value: e.value, HasValue: e.has, File: e.file, Line: e.line}
}

// dump returns the entry as fio's --showcmd prints it.
func (e entry) dump() string {
	if !e.has {
		return "--" + e.spec.Name + " "
	}
	if e.spec.Name == "description" {
		return "--" + e.spec.Name + "=\"" + e.value + "\" " // fio quotes description, and only it
	}
	return "--" + e.spec.Name + "=" + e.value + " "
}

// section is a job-file section or a command-line job with its entries in
// fio's parse order: job options by priority, then engine options.
type section struct {
	name      string
	global    bool
	file      string
	line      int
	fileIndex int
	cmdline   bool
	entries   []entry
	engineAt  string // for a global section: the ioengine in effect after it
}

func (s *section) main() []entry   { return s.split(false) }
func (s *section) engine() []entry { return s.split(true) }

func (s *section) split(engine bool) []entry {
	var out []entry
	for _, e := range s.entries {
		if (e.spec.Engine != "") == engine {
			out = append(out, e)
		}
	}
	return out
}

// resolve turns raw entries into table entries sorted the way fio parses
// them (sort_options by priority, engine options in a second pass).
func resolve(raw *rawSection, global bool) (*section, error) {
	s := &section{name: raw.name, global: global, file: raw.file, line: raw.line}
	if err := checkEngineRaw(raw.entries); err != nil {
		return nil, err
	}
	for _, re := range raw.entries {
		spec, ok := lookup[re.key]
		if !ok {
			return nil, unknownOption(re.file, re.line, re.text(), re.key)
		}
		if spec.globalOnly && !global {
			return nil, &Error{File: re.file, Line: re.line, Option: re.text(),
				Msg: fmt.Sprintf("%s= is a gofio option for the whole run: put it in [global] (or use --%s)", spec.Name, strings.ReplaceAll(spec.Name, "_", "-"))}
		}
		s.entries = append(s.entries, entry{rawEntry: re, spec: spec})
	}
	sort.SliceStable(s.entries, func(a, b int) bool {
		ea, eb := s.entries[a].spec, s.entries[b].spec
		if (ea.Engine != "") != (eb.Engine != "") {
			return ea.Engine == ""
		}
		return ea.Prio > eb.Prio
	})
	return s, nil
}

// loaded is the parsed input before jobs are built: sections per source and
// the global lists in effect.
type loaded struct {
	jobs  []jobSource // every job section with its globals snapshot
	dumps []string    // --showcmd line per job file
	sets  []entry
}

// jobSource is a job section and the [global] sections in effect for it.
type jobSource struct {
	globals   []*section
	own       *section
	stonewall bool // first job of a later job file
}

// load reads every source, resolves the options, checks each value and
// records the jobs in fio's order: command-line jobs first, then each file.
func load(in Input) (*loaded, error) {
	host := DetectHostOnce(in.Host)
	l := &loaded{}
	for _, s := range in.Sets {
		e, err := parseSet(s)
		if err != nil {
			return nil, err
		}
		l.sets = append(l.sets, e)
	}
	cmdArgs, prof, err := splitProfile(in.CmdLine)
	if err != nil {
		return nil, err
	}
	cmdSecs, err := cmdlineSections(cmdArgs)
	if err != nil {
		return nil, err
	}
	var globals globalChain
	for _, s := range cmdSecs {
		if s.global {
			if err := globals.add(s); err != nil {
				return nil, err
			}
			continue
		}
		l.jobs = append(l.jobs, jobSource{globals: clone(globals), own: s})
	}
	cmdGlobals := clone(globals)
	for fi, file := range in.Files {
		if fi > 0 {
			globals = nil // fio resets def_thread before each further file
		}
		if err := l.loadFile(&in, host, fi, file, &globals); err != nil {
			return nil, err
		}
	}
	if prof != nil {
		jobs, err := profileJobs(prof, host, cmdGlobals)
		if err != nil {
			return nil, err
		}
		l.jobs = append(l.jobs, jobs...)
	}
	return l, nil
}

// globalChain is the [global] sections in effect, in order: each job
// section takes a copy of it.
type globalChain []*section

// add appends the [global] section g after checking that its engine
// options belong to the engine the chain sets by then (fio parses an
// engine's options only once ioengine= names it).
func (gc *globalChain) add(g *section) error {
	scratch := newJob()
	for _, gs := range append(*gc, g) {
		if err := applyEntries(scratch, gs.main()); err != nil {
			return err
		}
	}
	g.engineAt = scratch.IOEngine
	if _, err := engineEntries(g, scratch.IOEngine); err != nil {
		return err
	}
	for _, gs := range append(*gc, g) {
		if gs.engineAt == scratch.IOEngine {
			es, err := engineEntries(gs, scratch.IOEngine)
			if err != nil {
				return err
			}
			if err := applyEntries(scratch, es); err != nil {
				return err
			}
		}
	}
	*gc = append(*gc, g)
	return nil
}

// loadFile reads job file number fi and adds its job sections to l, each
// with the [global] sections in effect before it, and its --showcmd
// lines.
func (l *loaded) loadFile(in *Input, host Host, fi int, file string, globals *globalChain) error {
	pp := &prepass{in: in, host: host}
	data, err := pp.readJobFile(file)
	if err != nil {
		return err
	}
	if err := pp.parse(file, data, false); err != nil {
		return err
	}
	raws, err := structure(pp.sections)
	if err != nil {
		return err
	}
	var dump showCmdDump
	stonewall := fi > 0
	for _, raw := range raws {
		if !raw.global() && skipSection(in.Sections, raw.name) {
			continue // fio does not parse sections that --section skips
		}
		s, err := resolve(raw, raw.global())
		if err != nil {
			return err
		}
		s.fileIndex = fi
		if s.global {
			if err := globals.add(s); err != nil {
				return err
			}
			for _, g := range *globals {
				for _, e := range g.entries {
					if g == s || !e.spec.Gofio {
						dump.add(e, "")
					}
				}
			}
			continue
		}
		dump.fio.WriteString("--name=" + s.name + " ")
		for _, e := range s.entries {
			dump.add(e, s.name)
		}
		for _, e := range l.sets {
			dump.add(e, s.name)
		}
		l.jobs = append(l.jobs, jobSource{globals: clone(*globals), own: s, stonewall: stonewall})
		stonewall = false
	}
	if dump.fio.Len() > 0 {
		l.dumps = append(l.dumps, "fio "+dump.fio.String()+"\n")
	}
	if dump.gofio.Len() > 0 {
		l.dumps = append(l.dumps, ShowCmdGofioPrefix+dump.gofio.String()+"\n")
	}
	return nil
}

// showCmdDump builds one job file's --showcmd lines: the fio command line,
// and the line of gofio's own options (fio refuses them).
type showCmdDump struct {
	fio, gofio strings.Builder
}

// add writes e to the fio line, or to gofio's line after --name=SECTION
// when e is a job section's own.
func (d *showCmdDump) add(e entry, section string) {
	if !e.spec.Gofio {
		d.fio.WriteString(e.dump())
		return
	}
	if section != "" && !strings.Contains(d.gofio.String(), "--name="+section+" ") {
		d.gofio.WriteString("--name=" + section + " ")
	}
	d.gofio.WriteString(e.dump())
}

func clone(s []*section) []*section { return append([]*section(nil), s...) }

// skipSection reports whether --section excludes the job section name.
func skipSection(only []string, name string) bool {
	if len(only) == 0 {
		return false
	}
	for _, o := range only {
		if o == name {
			return false
		}
	}
	return true
}

// applyEntries applies entries to j, wrapping value errors with file:line.
func applyEntries(j *Job, es []entry) error {
	for _, e := range es {
		if err := e.spec.set(j, e.value, e.has); err != nil {
			return &Error{File: e.file, Line: e.line, Option: e.text(), Msg: err.Error()}
		}
	}
	return nil
}

// parseSet reads one --set KEY=VALUE.
func parseSet(s string) (entry, error) {
	key, value, has := strings.Cut(s, "=")
	key = strings.TrimSpace(key)
	re := rawEntry{key: key, value: strings.TrimSpace(value), has: has, file: "--set"}
	spec, ok := lookup[key]
	if !ok {
		return entry{}, unknownOption("--set", 0, s, key)
	}
	if err := checkEngineRaw([]rawEntry{re}); err != nil {
		return entry{}, err
	}
	return entry{rawEntry: re, spec: spec}, nil
}

// DetectHostOnce returns *h, or this machine's values when h is nil.
func DetectHostOnce(h *Host) Host {
	if h != nil {
		return *h
	}
	return DetectHost()
}

// build makes the Job of one job source: defaults, globals, own options,
// then --set, and fio's fixups.
func build(src jobSource, sets []entry) (*Job, error) {
	j := newJob()
	j.Name = src.own.name
	j.File, j.Line, j.JobFileIndex = src.own.file, src.own.line, src.own.fileIndex
	for _, g := range src.globals {
		if err := applyEntries(j, g.main()); err != nil {
			return nil, err
		}
	}
	// A name= in [global] does not name the job: fio's get_new_job
	// names it after its section, whose own name= still wins.
	j.Name = src.own.name
	if err := applyEntries(j, src.own.main()); err != nil {
		return nil, err
	}
	engine := j.IOEngine
	for _, g := range src.globals {
		for _, e := range g.main() {
			j.Options = append(j.Options, e.option())
		}
		if g.engineAt != engine {
			continue // fio only inherits engine options for the same engine
		}
		es, err := engineEntries(g, engine)
		if err != nil {
			return nil, err
		}
		if err := applyEntries(j, es); err != nil {
			return nil, err
		}
		for _, e := range es {
			j.Options = append(j.Options, e.option())
		}
	}
	j.NumGlobalOptions = len(j.Options)
	own, err := engineEntries(src.own, engine)
	if err != nil {
		return nil, err
	}
	if err := applyEntries(j, own); err != nil {
		return nil, err
	}
	if src.own.cmdline {
		// fio's command line stores --name=X as the job's first option,
		// so its JSON "job options" start with "name".
		j.Options = append(j.Options, Option{Name: "name", Value: src.own.name, HasValue: true})
	}
	for _, e := range src.own.entries {
		j.Options = append(j.Options, e.option())
	}
	for _, e := range sets {
		if e.spec.Name == "filename" {
			// --set wins over every job file: its filename= replaces
			// the job's files rather than adding to them.
			j.Filenames, j.NrFiles = nil, 0
		}
	}
	if err := applyEntries(j, sets); err != nil {
		return nil, err
	}
	for _, e := range sets {
		j.Options = append(j.Options, e.option())
	}
	if src.stonewall {
		j.Stonewall = true
	}
	fixup(j)
	return j, nil
}

// multipleWriters is fio's fixup_options warning for a writing job with
// verify and numjobs above 1 whose clones share files (a filename=, or
// file names that do not tell the clones apart): they may overwrite each
// other's blocks and fail verification. fio prints it once per job
// section; --warnings-fatal makes it an error.
func multipleWriters(j *Job, at *section, in Input) error {
	if !j.RW.HasWrite() || !j.DoVerify || j.Verify == "" || j.Verify == "none" || j.Verify == "0" || j.NumJobs <= 1 {
		return nil
	}
	if _, named := j.Setting("filename"); !named && j.UniqueFilename &&
		strings.Contains(j.FilenameFormat, "$jobname") && strings.Contains(j.FilenameFormat, "$jobnum") && strings.Contains(j.FilenameFormat, "$filenum") {
		return nil
	}
	const msg = "multiple writers may overwrite blocks that belong to other jobs. This can cause verification failures."
	if in.WarningsFatal {
		return &Error{File: at.file, Line: at.line, Option: fmt.Sprintf("numjobs=%d", j.NumJobs), Msg: msg + " (--warnings-fatal)"}
	}
	if in.Warn != nil {
		fmt.Fprintf(in.Warn, "fio: %s\n", msg)
	}
	return nil
}

// MaxJobs is the most jobs (numjobs clones included) one run may define,
// fio's default max_jobs.
const MaxJobs = 4096

// Parse reads the input and returns the validated jobs in run order, with
// numjobs clones expanded and reporting groups assigned as fio's add_job
// does. It fails on the first bad file, option or value, and on engines
// and option combinations gofio cannot run.
func Parse(in Input) ([]*Job, error) {
	l, err := load(in)
	if err != nil {
		return nil, err
	}
	if len(l.jobs) == 0 {
		return nil, &Error{File: strings.Join(in.Files, " "), Msg: "no job(s) defined"}
	}
	var jobs []*Job
	for _, src := range l.jobs {
		j, err := build(src, l.sets)
		if err != nil {
			return nil, err
		}
		if j.OpenDir != "" {
			if err := addDirFiles(j, in.Warn); err != nil {
				return nil, err
			}
		}
		if err := fixupRuntime(j, src.own, in); err != nil {
			return nil, err
		}
		fixupSPRandom(j)
		if err := multipleWriters(j, src.own, in); err != nil {
			return nil, err
		}
		if j.Atomic {
			// fio's fixup_options: O_ATOMIC implies O_DIRECT.
			j.Direct = true
		}
		if err := validate(j, src.own); err != nil {
			return nil, err
		}
		if j.TrimPercentage > 0 && j.TrimBacklog == 0 && in.Warn != nil {
			e := &Error{File: src.own.file, Line: src.own.line, Option: "trim_percentage",
				Msg: "warning: without trim_backlog it trims nothing, as in fio 3.33 (which reports the blocks it chose as leaked trim entries)"}
			if o, ok := j.Setting("trim_percentage"); ok {
				e.File, e.Line = o.File, o.Line
			}
			fmt.Fprintf(in.Warn, "gofio: %v\n", e)
		}
		if in.ReadOnly {
			if err := checkReadOnly(j, src.own); err != nil {
				return nil, err
			}
			j.ReadOnly = true
		}
		if in.Debug != nil {
			for _, o := range j.Options {
				fmt.Fprintf(in.Debug, "parse: job %s: %s=%s (%s:%d)\n", j.Name, o.Name, o.Value, o.File, o.Line)
			}
		}
		if len(jobs)+j.NumJobs > MaxJobs {
			return nil, &Error{File: src.own.file, Line: src.own.line, Option: fmt.Sprintf("numjobs=%d", j.NumJobs),
				Msg: fmt.Sprintf("maximum number of jobs (%d) reached", MaxJobs)}
		}
		jobs = append(jobs, j)
		for k := 1; k < j.NumJobs; k++ {
			c := *j
			// fio adds the clones counting down (add_job's while
			// (--numjobs)): the second job is subjob numjobs-1, the last
			// subjob 1, which sets their thread numbers (and so their
			// seeds and log names) against their offsets and files.
			sub := j.NumJobs - k
			c.SubjobNumber, c.Stonewall, c.NewGroup = sub, false, false
			c.Offset += uint64(sub) * j.OffsetIncrement // fio: offset + subjob_number * offset_increment
			jobs = append(jobs, &c)
		}
	}
	if err := checkWaitFor(jobs); err != nil {
		return nil, err
	}
	assignGroups(jobs)
	return jobs, nil
}

// fixupRuntime is fio's fixup_options on a job's runtime: time_based
// without a runtime is dropped, and a time_based write job whose verify
// phase the runtime leaves no room for is warned about; both are errors
// under --warnings-fatal.
func fixupRuntime(j *Job, own *section, in Input) error {
	if j.TimeBased && j.Runtime <= 0 {
		// fio's fixup_options drops time_based without a runtime,
		// with an error message that --warnings-fatal makes fatal.
		at := own
		if o, ok := j.Setting("time_based"); ok {
			at = &section{file: o.File, line: o.Line}
		}
		if in.WarningsFatal {
			return &Error{File: at.file, Line: at.line, Option: "time_based", Msg: "time_based requires a runtime/timeout setting (--warnings-fatal)"}
		}
		if in.Warn != nil {
			fmt.Fprintf(in.Warn, "gofio: %s:%d: warning: time_based requires a runtime/timeout setting; time_based dropped, as fio drops it\n", at.file, at.line)
		}
		j.TimeBased = false
	}
	if j.RW.HasWrite() && !j.RW.HasRead() && j.DoVerify && j.Verify != "" && j.Verify != "none" &&
		j.TimeBased && j.Runtime > 0 && j.VerifyBacklog == 0 {
		// fio's fixup_options: the runtime ends a time_based job
		// before any verify phase.
		if in.WarningsFatal {
			return &Error{File: own.file, Line: own.line, Option: "verify=" + j.Verify,
				Msg: "verification read phase will never start because write phase uses all of runtime (--warnings-fatal)"}
		}
		if in.Warn != nil {
			at := ""
			if own.file != "" {
				at = fmt.Sprintf("%s:%d: ", own.file, own.line)
			}
			fmt.Fprintf(in.Warn, "gofio: %swarning: job %s: verification read phase will never start because write phase uses all of runtime\n", at, j.Name)
		}
	}
	return nil
}

// assignGroups numbers reporting groups like fio's add_job: a stonewall or
// new_group job starts a new group unless the current one is still empty.
func assignGroups(jobs []*Job) {
	group, inGroup := 0, 0
	for _, j := range jobs {
		if (j.Stonewall || j.NewGroup) && inGroup > 0 {
			group++
			inGroup = 0
		}
		j.GroupID = group
		inGroup++
	}
}

// ShowCmdGofioPrefix starts the --showcmd line that lists a job file's
// gofio-only options: a shell comment, so the output stays a script fio
// can run.
const ShowCmdGofioPrefix = "# gofio's own options, which fio refuses: "

// ShowCmd writes fio 3.33's --showcmd output for the job files of in: one
// line per file, "fio " and --key=value for every option in parse order,
// --name=SECTION before each job, and each [global] repeating every global
// option so far. Values are checked as fio checks them; engines and
// cross-option rules are not. --set overrides are appended to every job.
// gofio's own options (tw_priority=, compare=, sweep=, ...) are left out
// of the fio line, which fio can therefore run, and listed after it on a
// line of their own that starts with ShowCmdGofioPrefix, each once, with
// --name=SECTION before those a job section sets.
func ShowCmd(in Input, w io.Writer) error {
	l, err := load(in)
	if err != nil {
		return err
	}
	for _, src := range l.jobs {
		if _, err := build(src, l.sets); err != nil {
			return err
		}
	}
	for _, d := range l.dumps {
		if _, err := io.WriteString(w, d); err != nil {
			return fmt.Errorf("write showcmd: %w", err)
		}
	}
	return nil
}
