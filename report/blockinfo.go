package report

import (
	"bufio"
	"fmt"
	"sort"
)

// BlockInfos is a job's block_error_percentiles record (fio's
// ts.block_infos): one entry per trim-sized block of its one file, the
// block's state in the top three bits and the number of times it was
// trimmed in the rest, as fio's stat.h packs them.
type BlockInfos []uint32

// The block states, in fio's order (BLOCK_STATE_*).
const (
	BlockUnwritten    = iota // never trimmed (BLOCK_STATE_UNINIT)
	BlockTrimmed             // trimmed at least once
	BlockWritten             // fio 3.33 has the state but never sets it
	BlockTrimFailure         // a trim of the block failed; its count stops
	BlockWriteFailure        // a write of the block failed; its count stops
	blockStates
)

// MaxBlockInfos is fio's MAX_NR_BLOCK_INFOS: the most blocks a job's
// histogram may cover.
const MaxBlockInfos = 8192

const blockStateShift = 29

var blockStateNames = [blockStates]string{"unwritten", "trimmed", "written", "trim failure", "write failure"}

func blockState(b uint32) int    { return int(b >> blockStateShift) }
func blockTrims(b uint32) uint32 { return b & (1<<blockStateShift - 1) }
func blockInfo(state int, trims uint32) uint32 {
	return trims | uint32(state)<<blockStateShift
}

// Trimmed counts a completed trim of block i (fio's trim_block_info): a
// block whose trim or write failed keeps its state and count.
func (b BlockInfos) Trimmed(i int) {
	if i < 0 || i >= len(b) || blockState(b[i]) >= BlockTrimFailure {
		return
	}
	b[i] = blockInfo(BlockTrimmed, blockTrims(b[i])+1)
}

// Failed marks block i as failed by a trim, or by a write when write is
// set (fio's unlog_io_piece), unless it failed before.
func (b BlockInfos) Failed(i int, write bool) {
	if i < 0 || i >= len(b) || blockState(b[i]) >= BlockTrimFailure {
		return
	}
	s := BlockTrimFailure
	if write {
		s = BlockWriteFailure
	}
	b[i] = blockInfo(s, blockTrims(b[i]))
}

// blockCategory is fio's block_state_category: never trimmed, then
// trimmed (or written), then failed.
func blockCategory(state int) int {
	switch state {
	case BlockUnwritten:
		return 0
	case BlockTrimmed, BlockWritten:
		return 1
	}
	return 2
}

// blockPercentiles is fio's calc_block_percentiles: the blocks sorted by
// category, trim count and state, and for each percentile p of the
// sorted list plist the trim count of the block p percent of the way
// through those ever trimmed; with the count of blocks in each state.
// ok is false when no block was trimmed or failed (fio's JSON has no
// "block" object then). fio 3.33's comparison reads each 32-bit entry as 64 bits and
// aborts on an assertion; this one compares what fio's means to.
func blockPercentiles(b BlockInfos, plist []float64) (pct []uint32, states [blockStates]uint32, ok bool) {
	if len(plist) == 0 {
		return nil, states, false
	}
	s := append(BlockInfos(nil), b...)
	sort.Slice(s, func(i, j int) bool {
		ci, cj := blockCategory(blockState(s[i])), blockCategory(blockState(s[j]))
		if ci != cj {
			return ci < cj
		}
		if ti, tj := blockTrims(s[i]), blockTrims(s[j]); ti != tj {
			return ti < tj
		}
		return blockState(s[i]) < blockState(s[j])
	})
	for _, v := range s {
		states[blockState(v)]++
	}
	uninit := 0
	for uninit < len(s) && blockState(s[uninit]) == BlockUnwritten {
		uninit++
	}
	if uninit == len(s) {
		return nil, states, false
	}
	pct = make([]uint32, len(plist))
	for i, p := range plist {
		idx := int(p*float64(len(s)-uninit)/100) + uninit
		pct[i] = blockTrims(s[min(idx, len(s)-1)])
	}
	return pct, states, true
}

// writeBlockInfosNormal writes fio's show_block_infos: the percentiles,
// wrapped at 75 columns, then the states.
func writeBlockInfosNormal(w *bufio.Writer, b BlockInfos, plist []float64) {
	if len(b) == 0 {
		return
	}
	// fio prints the heading even when there is nothing to report.
	pct, states, _ := blockPercentiles(b, plist)
	w.WriteString("  block lifetime percentiles :\n   |")
	pos := 0
	for i, v := range pct {
		end := byte(',')
		if i == len(pct)-1 {
			end = '\n'
		}
		s := fmt.Sprintf(" %3.2fth=%d%c", plist[i], v, end)
		if pos+len(s) > 75 {
			pos = 0
			w.WriteString("\n   |")
		}
		w.WriteString(s)
		pos += len(s)
	}
	w.WriteString("        states               :")
	for i, n := range states {
		end := byte(',')
		if i == blockStates-1 {
			end = '\n'
		}
		fmt.Fprintf(w, " %s=%d%c", blockStateNames[i], n, end)
	}
}

// blockInfosJSON is fio's "block" object: the percentiles ("%f" keys)
// and the states; nil when there is nothing to report.
func blockInfosJSON(b BlockInfos, plist []float64) *jsonObject {
	pct, states, ok := blockPercentiles(b, plist)
	if !ok {
		return nil
	}
	p := &jsonObject{}
	for i, v := range pct {
		p.addInt(fmt.Sprintf("%f", plist[i]), uint64(v))
	}
	st := &jsonObject{}
	for i, n := range states {
		st.addInt(blockStateNames[i], uint64(n))
	}
	o := &jsonObject{}
	o.add("percentiles", p)
	o.add("states", st)
	return o
}
