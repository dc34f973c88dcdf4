package report

import (
	"reflect"
	"testing"
	"time"
)

// fillValue sets every settable field reachable from v to a non-zero value:
// numbers to 1, strings to "x", booleans to true, slices and maps to one
// element, pointers to a filled value. depth stops pointer cycles.
func fillValue(v reflect.Value, depth int) {
	if depth > 8 || !v.CanSet() {
		return
	}
	if v.Type() == reflect.TypeOf(time.Time{}) {
		v.Set(reflect.ValueOf(time.Unix(1, 0)))
		return
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			fillValue(v.Field(i), depth+1)
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			fillValue(v.Index(i), depth+1)
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fillValue(s.Index(0), depth+1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fillValue(k, depth+1)
		fillValue(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fillValue(p.Elem(), depth+1)
		v.Set(p)
	}
}

// TestResetIOStats fills every field of a JobResult, ends ramp_time with
// ResetIOStats and checks every field by reflection: each per-I/O figure
// (IOStats) is zero again, and every other field is one this list says
// survives ramp_time, and still holds its value. A field added to
// JobResult fails here until it is put in IOStats or listed as kept.
func TestResetIOStats(t *testing.T) {
	kept := map[string]bool{
		"Job": true, "Name": true, "GroupID": true, "Members": true, "Pid": true, "Start": true, "FirstIO": true, "Elapsed": true,
		"Error": true, "ErrorText": true, "TotalErr": true, "FirstErr": true,
		"JobRuntime": true, "UsrCPU": true, "SysCPU": true, "Ctx": true, "Majf": true, "Minf": true,
		"LatencyDepth": true, "Policy": true, "Reap": true, "SQThread": true, "TaskRun": true, "Threads": true, "DroppedCQEs": true, "EngineNotes": true,
		"Logs": true, "SteadyState": true, "KernelStages": true, "KernelLocks": true, // the tracers leave ramp_time out themselves
		"OpenLoop": true, // the run core zeroes it when ramp_time ends (openloop.Timetable.ResetStats)
		"Blocks":   true, // fio's reset_all_stats keeps block_infos
		"JobStart": true, // set again by the run core when ramp_time ends, as fio 3.42's set_epoch_time
	}
	var r JobResult
	fillValue(reflect.ValueOf(&r).Elem(), 0)
	io := reflect.ValueOf(r.IOStats)
	for i := 0; i < io.NumField(); i++ {
		if io.Field(i).IsZero() {
			t.Fatalf("the fill left IOStats.%s zero; the test would prove nothing", io.Type().Field(i).Name)
		}
	}
	r.ResetIOStats()
	v := reflect.ValueOf(r)
	for i := 0; i < v.NumField(); i++ {
		f, fv := v.Type().Field(i), v.Field(i)
		switch {
		case f.Name == "IOStats":
			for k := 0; k < fv.NumField(); k++ {
				if !fv.Field(k).IsZero() {
					t.Errorf("IOStats.%s survived the reset", fv.Type().Field(k).Name)
				}
			}
		case !kept[f.Name]:
			t.Errorf("JobResult.%s is neither in IOStats (reset when ramp_time ends) nor listed as kept", f.Name)
		case fv.IsZero():
			t.Errorf("JobResult.%s was reset; it should survive ramp_time", f.Name)
		}
	}
}
