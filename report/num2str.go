package report

import (
	"strconv"
	"strings"
)

// Unit is the unit suffix num2str appends, as fio's enum n2s_unit.
type Unit int

// The units of fio's num2str.
const (
	UnitNone       Unit = iota // no suffix (IOPS, latencies)
	UnitPerSec                 // "/s"
	UnitByte                   // "B"
	UnitBit                    // "bit", the number is multiplied by 8
	UnitBytePerSec             // "B/s"
	UnitBitPerSec              // "bit/s", the number is multiplied by 8
)

var (
	siPrefix  = [...]string{"", "k", "M", "G", "T", "P", "E"}
	iecPrefix = [...]string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
	unitText  = [...]string{"", "/s", "B", "bit", "B/s", "bit/s"}
)

// Num2Str formats num with at most maxlen significant digits and a unit
// prefix, exactly as fio's lib/num2str.c num2str: base says how many
// thousands num already is (1, 1000 or 1024), pow2 picks the IEC prefixes
// (Ki, Mi, ...) and 1024 steps instead of SI (k, M, ...) and 1000 steps.
func Num2Str(num uint64, maxlen int, base int, pow2 bool, unit Unit) string {
	thousand := uint64(1000)
	prefix := siPrefix[:]
	if pow2 {
		thousand = 1024
		prefix = iecPrefix[:]
	}
	post := 0
	for b := uint64(base); b > 1; b /= thousand {
		post++
	}
	if unit == UnitBit || unit == UnitBitPerSec {
		num *= 8
	}
	divided := false
	var modulo uint64
	carry := false
	for post < len(siPrefix) {
		if len(strconv.FormatUint(num, 10)) <= maxlen {
			break
		}
		modulo = num % thousand
		num /= thousand
		carry = modulo >= thousand/2
		post++
		divided = true
	}
	if post >= len(siPrefix) {
		post = 0
	}
	suffix := prefix[post] + unitText[unit]
	if !divided {
		return strconv.FormatUint(num, 10) + suffix
	}
	digits := maxlen - len(strconv.FormatUint(num, 10))
	if digits <= 1 {
		if carry {
			num++
		}
		return strconv.FormatUint(num, 10) + suffix
	}
	frac := strconv.FormatFloat(float64(modulo)/float64(thousand), 'f', digits-1, 64)
	if strings.HasPrefix(frac, "1") {
		num++
	}
	return strconv.FormatUint(num, 10) + "." + frac[2:] + suffix
}

// bwUnit is the num2str unit of bandwidth for a job's unit_base: bits when
// unit_base=1, bytes otherwise.
func bwUnit(unitBase int) Unit {
	if unitBase == 1 {
		return UnitBitPerSec
	}
	return UnitBytePerSec
}
