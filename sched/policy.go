package sched

import "fmt"

// Policy is the order in which the event loop runs its task-work items.
type Policy uint8

// The two policies of the kernel patch "io_uring: add a priority tw list
// for irq completion work".
const (
	// Priority runs completion items from a priority list ahead of any
	// queued heavy item (tw_priority=1, the default).
	Priority Policy = iota
	// FIFO runs every item in arrival order from one list (tw_priority=0),
	// the baseline before the patch.
	FIFO
)

// String returns the name the report prints: "priority" or "fifo".
func (p Policy) String() string { return enumName(p, policyNames, "policy") }

// policyNames are the policies' names, by value.
var policyNames = []string{Priority: "priority", FIFO: "fifo"}

// enumName returns names[v], or "kind(v)" where names has no name for v.
func enumName[T ~uint8](v T, names []string, kind string) string {
	if int(v) < len(names) && names[v] != "" {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", kind, uint8(v))
}

// PolicyFor returns Priority when twPriority is set, else FIFO.
func PolicyFor(twPriority bool) Policy {
	if twPriority {
		return Priority
	}
	return FIFO
}

// Kind says what an item does when it runs.
type Kind uint8

// Item kinds.
const (
	// Completion is the cheap work for a harvested CQE: stamp, account and
	// free the slot.
	Completion Kind = iota + 1
	// Heavy is issue work: choose direction, offset and length, fill the
	// buffer, prepare and submit.
	Heavy
)

// String returns "completion" or "heavy".
func (k Kind) String() string { return enumName(k, kindNames, "kind") }

// kindNames are the item kinds' names, by value.
var kindNames = []string{Completion: "completion", Heavy: "heavy"}
