// Package fiorand holds fio 3.33's random machinery, ported so that gofio
// draws the numbers fio draws: the Tausworthe generators (Frand) and the
// seeds fio gives each job (Seeds), the LFSR of random_generator=lfsr,
// the random map that makes a random pass touch each block once (Axmap),
// the zipf, pareto, normal and gauss distributions (Dist), and a fast
// generator for gofio's own draws (RNG).
//
// Rule: everything here is a pure function of its seed and its calls: no
// clock, no I/O, no allocation per draw, and no import of the run core.
// A change to a sequence is a change to what gofio issues and must match
// fio's source.
package fiorand
