// Package fiostat holds fio's two accumulators of latency samples, with
// fio's arithmetic value for value: Stat, the running min, max, mean and
// variance of fio's io_stat (add_stat_sample, __sum_stat), and Hist, the
// log-linear histogram of fio's stat.h (plat_val_to_idx, plat_idx_to_val).
//
// Its rule: it imports nothing of gofio's, so that the result model
// (report) and the kernel stage model (internal/kstage) both build on it.
// Stat.Add and Hist.Add run several times per I/O and allocate nothing.
package fiostat
