package run

import (
	"reflect"
	"testing"

	"github.com/gofio/gofio/engines"
	"github.com/gofio/gofio/jobfile"
)

// garbage sets every field of the struct v points to to a non-zero value.
func garbage(t *testing.T, v any) {
	t.Helper()
	e := reflect.ValueOf(v).Elem()
	for i := 0; i < e.NumField(); i++ {
		f := e.Field(i)
		f = reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem() // unexported fields too
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f.SetInt(7)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			f.SetUint(7)
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		default:
			t.Fatalf("field %s: kind %s not handled", e.Type().Field(i).Name, f.Kind())
		}
	}
}

// TestNewIOIsLiteral checks that slot.newIO and setRequest, which write
// field by field for speed, leave exactly what the struct literals they
// stand for would, whatever the slot and request held before, so that a
// field added to either struct and not reset there fails here.
func TestNewIOIsLiteral(t *testing.T) {
	var s slot
	garbage(t, &s)
	s.newIO(engines.OpWrite, jobfile.DirWrite, 3, 8192, 4096, 12345, true)
	want := slot{op: engines.OpWrite, dir: jobfile.DirWrite, file: 3, off: 8192, length: 4096, start: 12345, slat: -1, ramp: true}
	if s != want {
		t.Errorf("newIO left %+v, want %+v", s, want)
	}
	var r engines.Request
	garbage(t, &r)
	buf := make([]byte, 4096)
	setRequest(&r, engines.OpRead, 2, 4096, buf)
	wantReq := engines.Request{Op: engines.OpRead, File: 2, Offset: 4096, Buf: buf}
	if !reflect.DeepEqual(r, wantReq) || &r.Buf[0] != &buf[0] {
		t.Errorf("setRequest left %+v, want %+v", r, wantReq)
	}
}
