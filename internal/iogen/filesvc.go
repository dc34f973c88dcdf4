package iogen

// This file holds file_service_type: which of the job's files the next I/O
// goes to, as fio's get_next_file picks it.

import "github.com/gofio/gofio/jobfile"

// fileService is a file_service_type kind.
type fileService uint8

const (
	svcRoundRobin fileService = iota
	svcSequential
	svcRandom
	svcZipf
	svcPareto
	svcNormal
)

// newFileService returns the kind of fs (roundrobin when unset) and its
// N.
func newFileService(fs jobfile.FileService) (fileService, uint32) {
	nr := uint32(fs.Nr) // fio's unsigned file_service_nr
	switch fs.Kind {
	case "sequential":
		return svcSequential, nr
	case "random":
		return svcRandom, nr
	case "zipf":
		return svcZipf, 1
	case "pareto":
		return svcPareto, 1
	case "normal":
		return svcNormal, 1
	case "roundrobin":
		return svcRoundRobin, nr
	}
	return svcRoundRobin, 1
}

// nextFile is fio's __get_next_file: the file being served while it
// lasts (sequential) or has I/Os left (file_service_nr), else a new one
// round robin or drawn at random.
func (g *Offsets) nextFile() int {
	if g.svcFile >= 0 {
		if g.svc == svcSequential {
			return g.svcFile
		}
		if g.svcLeft > 0 {
			g.svcLeft--
			return g.svcFile
		}
	}
	var f int
	if g.svc <= svcSequential {
		f = g.pickFile()
	} else {
		f = g.pickRandomFile()
	}
	g.svcFile, g.svcLeft = f, g.svcNr-1
	return f
}

// pickRandomFile is fio's get_next_file_rand: files drawn until one is
// not done, uniformly (__get_next_fileno_rand) or from the non-uniform
// distribution over nrfiles<<10 values.
func (g *Offsets) pickRandomFile() int {
	n := uint64(len(g.Files))
	for {
		var f uint64
		if g.svc == svcRandom {
			f = uint64(uint32(float64(n) * (float64(g.rFile.Next()) / (float64(g.rFile.Max()) + 1.0))))
		} else {
			f = g.fileDist.Next() >> fileServiceShift
		}
		if f < n && !g.Files[f].Done {
			return int(f)
		}
	}
}

// pickFile is fio's get_next_file_rr: the next file that is not done.
func (g *Offsets) pickFile() int {
	for {
		f := g.next
		g.next++
		if g.next >= len(g.Files) {
			g.next = 0
		}
		if !g.Files[f].Done {
			return f
		}
	}
}

// SyncFile is the file the next fsync goes to: fio's get_io_u picks a
// file round robin before get_rw_ddir decides on a sync, so a sync takes
// its turn in the round robin.
func (g *Offsets) SyncFile() int {
	if g.NrDone >= len(g.Files) {
		return g.next
	}
	return g.nextFile()
}
