package compare

import (
	"math"
	"strconv"
	"strings"
	"sync"
)

// This file is the error spending of the sequential rule (Lan and DeMets
// 1983): how much of a one-sided error level a row may spend by each look,
// and the boundaries that spend exactly that. A test looked at K times at
// its own level each would err far more often than that level; a spending
// function fixes instead the error spent by each information fraction t
// (rounds so far over the most rounds the rule takes), and each look's
// boundary is the one whose chance of being crossed first there, under the
// null hypothesis, is what the function allows at t less what the looks
// before spent. The chance is that of a standardised sum with independent
// increments (a Brownian motion observed at the looks), the large-sample
// law of the signed-rank statistic of the rounds so far, computed by the
// recursive numerical integration of Armitage, McPherson and Rowe (1969),
// as Jennison and Turnbull (2000, ch. 19) give it.

// Spending is an error-spending function: the share of a one-sided level
// alpha a sequential test may have spent by information fraction t in
// [0, 1]. It is nondecreasing in t, 0 at 0 and alpha at 1.
type Spending struct {
	Name  string
	spend func(alpha, t float64) float64
	// plain makes each look's nominal level what the function spends
	// there, without the looks' correlation: Bonferroni over the looks.
	plain bool
}

// Spent returns the error spent by information fraction t.
func (s Spending) Spent(alpha, t float64) float64 {
	switch {
	case t <= 0:
		return 0
	case t >= 1:
		return alpha
	}
	return math.Min(alpha, s.spend(alpha, t))
}

// PocockSpending is Lan and DeMets' Pocock-type function, alpha·ln(1 +
// (e-1)t): boundaries nearly equal at every look, so an early look decides
// as readily as a late one, at the cost of a stricter last look.
var PocockSpending = Spending{Name: "Pocock", spend: func(alpha, t float64) float64 {
	return alpha * math.Log1p((math.E-1)*t)
}}

// OBrienFlemingSpending is Lan and DeMets' O'Brien–Fleming-type function,
// 2 - 2Φ(z_(1-alpha/2)/√t): almost nothing early, so the last look is
// almost as wide as a single test's.
var OBrienFlemingSpending = Spending{Name: "O'Brien-Fleming", spend: func(alpha, t float64) float64 {
	return 2 * (1 - normalCDF(normalQuantile(1-alpha/2)/math.Sqrt(t)))
}}

// HSDSpending returns Hwang, Shih and DeCani's family, alpha·(1 -
// e^(-γt))/(1 - e^(-γ)): γ = 1 spends about as Pocock does, γ = -4 about
// as O'Brien–Fleming, γ = 0 in proportion to t.
func HSDSpending(gamma float64) Spending {
	return Spending{Name: "Hwang-Shih-DeCani(" + strconv.FormatFloat(gamma, 'g', -1, 64) + ")", spend: func(alpha, t float64) float64 {
		if gamma == 0 {
			return alpha * t
		}
		return alpha * -math.Expm1(-gamma*t) / -math.Expm1(-gamma)
	}}
}

// boundaryCache holds boundaries by spending, level and fractions: a
// comparison asks for the same few over and over.
var boundaryCache = struct {
	sync.Mutex
	m map[string][]float64
}{m: map[string][]float64{}}

// Nominal returns, for a one-sided test at level alpha looked at
// information fractions ts (increasing, in (0, 1]), each look's nominal
// level: the one-sided tail beyond that look's boundary, so that the test
// rejects at look k when its fixed-sample p-value there is at most the
// k-th level. 0 is a look that spends nothing.
func (s Spending) Nominal(alpha float64, ts []float64) []float64 {
	var key strings.Builder
	key.WriteString(s.Name)
	for _, v := range append([]float64{alpha}, ts...) {
		key.WriteByte(' ')
		key.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	}
	boundaryCache.Lock()
	defer boundaryCache.Unlock()
	if p, ok := boundaryCache.m[key.String()]; ok {
		return p
	}
	p := make([]float64, len(ts))
	if s.plain {
		prev := 0.0
		for i, t := range ts {
			p[i] = s.Spent(alpha, t) - prev
			prev = s.Spent(alpha, t)
		}
	} else {
		for i, c := range s.boundaries(alpha, ts) {
			p[i] = 1 - normalCDF(c)
		}
	}
	boundaryCache.m[key.String()] = p
	return p
}

// gridStep and gridLow are the step and the lower end of the grid on
// which the continuation densities are integrated (Simpson's rule): the
// density below -10 standard deviations is negligible at any level used.
const (
	gridStep = 0.02
	gridLow  = -10.0
)

// grid is a density on an evenly spaced grid of the standardised statistic,
// from gridLow to hi, with Simpson's weights folded into w.
type grid struct {
	z, w []float64 // points and weight times density
}

// newGrid lays out an odd number of points from gridLow to hi.
func newGrid(hi float64) grid {
	n := int(math.Ceil((hi-gridLow)/gridStep/2))*2 + 1
	h := (hi - gridLow) / float64(n-1)
	g := grid{z: make([]float64, n), w: make([]float64, n)}
	for i := range g.z {
		g.z[i] = gridLow + float64(i)*h
		c := 2.0
		switch {
		case i == 0 || i == n-1:
			c = 1
		case i%2 == 1:
			c = 4
		}
		g.w[i] = c * h / 3
	}
	return g
}

// boundaries returns the boundaries, on the standardised scale, that spend
// s.Spent(alpha, t) by each fraction t of ts: +Inf where a look spends
// nothing.
func (s Spending) boundaries(alpha float64, ts []float64) []float64 {
	cs := make([]float64, len(ts))
	var f grid // the sub-density of Z at the last look, given no crossing
	spent := 0.0
	for k, t := range ts {
		want := s.Spent(alpha, t) - spent
		if k == 0 {
			cs[0] = math.Inf(1)
			if want > 0 {
				cs[0] = normalQuantile(1 - want)
			}
			spent += want
			f = newGrid(math.Min(cs[0], -gridLow))
			for i, z := range f.z {
				f.w[i] *= normalPDF(z)
			}
			continue
		}
		prev := ts[k-1]
		// Z_k = (√prev·Z_{k-1} + √(t-prev)·N) / √t.
		a, b := math.Sqrt(prev/t), math.Sqrt((t-prev)/t)
		cross := func(c float64) float64 {
			p := 0.0
			for i, u := range f.z {
				p += f.w[i] * (1 - normalCDF((c-a*u)/b))
			}
			return p
		}
		c := math.Inf(1)
		if want > 0 && cross(-gridLow) < want {
			lo, hi := gridLow, -gridLow
			for range 80 {
				mid := (lo + hi) / 2
				if cross(mid) > want {
					lo = mid
				} else {
					hi = mid
				}
			}
			c = hi
		}
		cs[k] = c
		spent = math.Max(spent, s.Spent(alpha, t))
		next := newGrid(math.Min(c, -gridLow))
		for j, z := range next.z {
			d := 0.0
			for i, u := range f.z {
				d += f.w[i] * normalPDF((z-a*u)/b)
			}
			next.w[j] *= d / b
		}
		f = next
	}
	return cs
}

// normalPDF is the standard normal density.
func normalPDF(z float64) float64 { return math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) }
