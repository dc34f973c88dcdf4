package net

import (
	"fmt"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

// Options are the net engine's own options.
type Options struct {
	Hostname   string
	Port       int
	Protocol   string // tcp, tcpv6, udp, udpv6, unix
	NoDelay    bool
	Listen     bool
	PingPong   bool
	Interface  string
	TTL        int
	WindowSize int
	MSS        int
}

// NewOptions returns the net engine's options with fio's defaults.
func NewOptions() *Options { return &Options{Protocol: "tcp", TTL: 1} }

// optionsOf returns job j's net options.
func optionsOf(j *jobfile.Job) *Options { return engines.OptionsOf(j, NewOptions) }

func str(f func(o *Options) *string) func(j *jobfile.Job, v string) error {
	return func(j *jobfile.Job, v string) error { *f(optionsOf(j)) = v; return nil }
}

func integer(f func(o *Options) *int) func(j *jobfile.Job) *int {
	return func(j *jobfile.Job) *int { return f(optionsOf(j)) }
}

func flag(f func(o *Options) *bool) func(j *jobfile.Job) *bool {
	return func(j *jobfile.Job) *bool { return f(optionsOf(j)) }
}

// Spec is the net ioengine: fio's help, its capabilities, its options, its
// checks and its opener.
var Spec = engines.Spec{Open: Open, EngineInfo: jobfile.EngineInfo{Name: "net", Help: "Network IO", Diskless: true, SizedByFile: true,
	NewOptions: func() any { return NewOptions() }, Validate: validate,
	Options: []jobfile.OptionSpec{
		jobfile.OptionSpec{Name: "hostname", Type: jobfile.TypeString, Help: "Hostname for net IO engine"}.
			WithSet(str(func(o *Options) *string { return &o.Hostname })),
		jobfile.OptionSpec{Name: "port", Type: jobfile.TypeInt, Min: 1, Max: 65535, Help: "Port to use for TCP or UDP net connections"}.
			WithInt(integer(func(o *Options) *int { return &o.Port })),
		jobfile.OptionSpec{Name: "protocol", Aliases: []string{"proto"}, Type: jobfile.TypeChoice, Default: "tcp",
			Help: "Network protocol to use",
			Choices: []jobfile.Choice{{Value: "tcp", Help: "Transmission Control Protocol"}, {Value: "tcpv6", Help: "Transmission Control Protocol V6"},
				{Value: "udp", Help: "User Datagram Protocol"}, {Value: "udpv6", Help: "User Datagram Protocol V6"}, {Value: "unix", Help: "UNIX domain socket"}},
		}.WithSet(str(func(o *Options) *string { return &o.Protocol })),
		jobfile.OptionSpec{Name: "nodelay", Type: jobfile.TypeBool, Help: "Use TCP_NODELAY on TCP connections"}.
			WithBool(flag(func(o *Options) *bool { return &o.NoDelay })),
		jobfile.OptionSpec{Name: "listen", Type: jobfile.TypeFlag, Help: "Listen for incoming TCP connections"}.
			WithBool(flag(func(o *Options) *bool { return &o.Listen })),
		jobfile.OptionSpec{Name: "pingpong", Type: jobfile.TypeFlag, Help: "Ping-pong IO requests"}.
			WithBool(flag(func(o *Options) *bool { return &o.PingPong })),
		jobfile.OptionSpec{Name: "interface", Type: jobfile.TypeString, Help: "Network interface to use"}.
			WithSet(str(func(o *Options) *string { return &o.Interface })),
		jobfile.OptionSpec{Name: "ttl", Type: jobfile.TypeInt, Default: "1", Help: "Time-to-live value for outgoing UDP multicast packets"}.
			WithInt(integer(func(o *Options) *int { return &o.TTL })),
		jobfile.OptionSpec{Name: "window_size", Type: jobfile.TypeInt, Help: "Set socket buffer window size"}.
			WithInt(integer(func(o *Options) *int { return &o.WindowSize })),
		jobfile.OptionSpec{Name: "mss", Type: jobfile.TypeInt, Help: "Set TCP maximum segment size"}.
			WithInt(integer(func(o *Options) *int { return &o.MSS })),
	}}}

// validate refuses what fio's net engine refuses at setup, and what would
// hang it.
func validate(j *jobfile.Job) (string, string) {
	o := optionsOf(j)
	switch {
	case j.RW.HasTrim():
		return "rw=" + string(j.RW), "the net engine does not trim (fio 3.33's answers busy to a trim for ever, and the job hangs)"
	case j.RW.IsRandom():
		return "rw=" + string(j.RW), "network IO can't be random (fio's net engine)"
	case o.Protocol == "unix" && o.Port != 0:
		return fmt.Sprintf("port=%d", o.Port), "network IO port not valid with unix socket"
	case o.Protocol != "unix" && o.Port == 0:
		return "ioengine=net", "network IO requires port for tcp or udp (port=)"
	case o.Protocol != "tcp" && o.Protocol != "tcpv6" && o.Listen:
		return "listen", "listen only valid for TCP proto IO: over UDP or a unix socket the reading job receives"
	case j.RW.HasRead() && j.RW.HasWrite():
		return "rw=" + string(j.RW), "a net job either receives (rw=read, with listen) or sends (rw=write), as fio's net engine"
	}
	return "", ""
}
