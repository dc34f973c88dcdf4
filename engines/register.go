package engines

import (
	"fmt"
	"sync"

	"github.com/gofio/gofio/jobfile"
)

// Spec is one ioengine= name gofio runs, as its package states it: its
// facts and options for jobfile (capabilities, options, checks) and its
// opener for the run core.
type Spec struct {
	jobfile.EngineInfo
	Open Opener
}

var (
	registryMu sync.Mutex
	openers    = map[string]Opener{}
)

// Register adds engines to gofio: each spec's EngineInfo to jobfile's
// engine table (so job files may name it and set its options) and its
// opener to Openers. engines/all registers every engine once, in --enghelp
// order, from its init; a name registered twice, or without an opener,
// panics.
func Register(specs ...Spec) {
	registryMu.Lock()
	defer registryMu.Unlock()
	for _, s := range specs {
		if s.Open == nil {
			panic(fmt.Sprintf("engines: %s registered without an opener", s.Name))
		}
		jobfile.RegisterEngine(s.EngineInfo)
		openers[s.Name] = s.Open
	}
}

// Openers returns a new map of the registered engines' openers, by
// ioengine= name.
func Openers() map[string]Opener {
	registryMu.Lock()
	defer registryMu.Unlock()
	m := make(map[string]Opener, len(openers))
	for n, o := range openers {
		m[n] = o
	}
	return m
}

// OptionsOf returns job j's engine options, the *T its engine's
// NewOptions made for it, or defaults() where j holds none of that type
// (a job of another engine, or with none).
func OptionsOf[T any](j *jobfile.Job, defaults func() *T) *T {
	if o, ok := j.EngineConfig().(*T); ok {
		return o
	}
	return defaults()
}
