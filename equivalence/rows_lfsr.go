package equivalence

// lfsrRows are random_generator=lfsr jobs: fio 3.33 draws each file's
// random blocks from an LFSR sized to the file's blocks and seeded with
// the job's offset seed, with no random map, so with or without
// norandommap every block comes once per loop, and the offsets are
// exact.
var lfsrRows = []Row{
	offsetsRow("lfsr/randread", "random_generator=lfsr, 256 blocks", psync, "--rw=randread", "--bs=4k", "--size=1m", "--random_generator=lfsr"),
	offsetsRow("lfsr/randwrite-odd", "random_generator=lfsr, 251 blocks (not a power of two)", psync, "--rw=randwrite", "--bs=4k", "--size=1004k", "--random_generator=lfsr"),
	offsetsRow("lfsr/randwrite-odd-norandommap", "random_generator=lfsr with norandommap: the same blocks, each once", psync, "--rw=randwrite", "--bs=4k", "--size=1004k", "--norandommap", "--random_generator=lfsr"),
	offsetsRow("lfsr/randread-8k", "random_generator=lfsr, bs=8k over 1000k (125 blocks)", psync, "--rw=randread", "--bs=8k", "--size=1000k", "--random_generator=lfsr"),
	offsetsRow("lfsr/randread-512", "random_generator=lfsr, bs=512 over 300k (600 blocks)", psync, "--rw=randread", "--bs=512", "--size=300k", "--norandommap", "--random_generator=lfsr"),
	offsetsRow("lfsr/loops", "random_generator=lfsr, loops=2: lfsr_reset from the same seed, norandommap", psync, "--rw=randwrite", "--bs=16k", "--size=5m", "--loops=2", "--norandommap", "--random_generator=lfsr"),
	{Name: "lfsr/numjobs", Ref: "random_generator=lfsr, numjobs=2: each job's own seed",
		Args:  args(psync, "--rw=randread", "--bs=4k", "--size=520k", "--numjobs=2", "--random_generator=lfsr", "--write_lat_log=l", "--log_offset=1"),
		Exact: syncDepth, Check: sameOffsetsEach("l_lat.1.log", "l_lat.2.log")},
	offsetsRow("lfsr/randrw-bsrange", "random_generator=lfsr, randrw with bsrange: one LFSR of the smallest block size", psync, "--rw=randrw", "--bsrange=4k-16k", "--size=1m", "--random_generator=lfsr"),
	{Name: "lfsr/verify-loops", Ref: "random_generator=lfsr with verify= and loops=2: no random map, so fio verifies each loop's blocks sorted by offset",
		Args:  args(psync, "--rw=randwrite", "--bs=4k", "--size=256k", "--loops=2", "--verify=crc32c", "--random_generator=lfsr", "--write_lat_log=l", "--log_offset=1"),
		Check: sameOffsets("l_lat.1.log")},
	offsetsRow("lfsr/zoned-abs", "random_generator=lfsr with random_distribution=zoned_abs: fio adds the zone's start to the file-wide LFSR's block, so the job ends at the first block past the end", psync, "--rw=randread", "--bsrange=4k-16k", "--size=2m", "--loops=2", "--random_distribution=zoned_abs:60/128k:40/1m", "--random_generator=lfsr"),
}
