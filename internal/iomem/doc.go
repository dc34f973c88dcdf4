// Package iomem is a job's I/O buffers as fio's memory.c allocates them
// (mem=, iomem=): one page-aligned mapping cut into one buffer per slot,
// anonymous, SysV shared memory (shm, shmhuge) or a file's mapping (mmap,
// mmaphuge, mmapshared), which the garbage collector never moves.
//
// Its rules: it maps once per job, before the job's engine opens, and
// Close undoes exactly what New did (a file it created is removed, one
// that existed kept); it imports nothing of the run core.
package iomem
