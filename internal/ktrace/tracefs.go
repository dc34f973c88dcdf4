package ktrace

import "github.com/gofio/gofio/internal/tracepoint"

// Unavailable is why kernel stages cannot be measured here; its text is
// the one-line reason the run's note and the JSON give.
type Unavailable = tracepoint.Unavailable

func unavailable(format string, a ...any) error { return tracepoint.Unavailablef(format, a...) }

// DefaultTracefs is where tracefs is mounted when none is.
const DefaultTracefs = tracepoint.Default

// Field is where one field of a trace event's record lies.
type Field = tracepoint.Field

// Format is a trace event's record layout, from its tracefs format file.
type Format = tracepoint.Format
