package sched

import (
	"runtime"
	"sync"
	"testing"
)

// BenchmarkQueue measures one add and one run of a task-work item, with a
// completion harvested between heavy items as the event loop does.
func BenchmarkQueue(b *testing.B) {
	for _, p := range []Policy{Priority, FIFO} {
		b.Run(p.String(), func(b *testing.B) {
			const depth = 128
			q := NewQueue(depth, p)
			for i := uint32(0); i < depth/2; i++ {
				q.AddHeavy(i, 0)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				it, _ := q.Next(int64(i))
				if it.Kind == Heavy {
					q.AddCompletion(it.Slot, int64(i))
				} else {
					q.AddHeavy(it.Slot, int64(i))
				}
			}
		})
	}
}

// BenchmarkBatch measures splicing a harvested batch of 32 completions and
// running them.
func BenchmarkBatch(b *testing.B) {
	q := NewQueue(64, Priority)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bt := NewBatch()
		for s := uint32(0); s < 32; s++ {
			q.Add(&bt, s, 1)
		}
		q.AddBatch(&bt)
		for q.Len() > 0 {
			q.Next(2)
		}
	}
}

// benchHandoff pushes bursts of burst items from 2 producers, each
// yielding between bursts, and drains them from one consumer; b.N counts
// items. Every slot is pushed once, so the lists never see a slot twice.
func benchHandoff(b *testing.B, mk func(n int) Handoff, burst int) {
	const producers = 2
	per := b.N/producers + 1
	h := mk(per * producers)
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	for p := 0; p < producers; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			base := uint32(p * per)
			for sent := 0; sent < per; {
				for k := 0; k < burst && sent < per; k++ {
					h.Push(base + uint32(sent))
					sent++
				}
				runtime.Gosched()
			}
		}(p)
	}
	l := NewList()
	for got := 0; got < per*producers; {
		if h.TakeAll(&l) == 0 {
			runtime.Gosched()
			continue
		}
		for {
			if _, ok := h.PopFront(&l); !ok {
				break
			}
			got++
		}
	}
	wg.Wait()
}

// BenchmarkHandoff compares the locked list with the lock-free list under
// bursty adds; the package doc records the result.
func BenchmarkHandoff(b *testing.B) {
	for _, burst := range []int{1, 16, 256} {
		b.Run("locked/burst="+itoa(burst), func(b *testing.B) {
			benchHandoff(b, func(n int) Handoff { return NewLockedList(NewLinks(n)) }, burst)
		})
		b.Run("lockfree/burst="+itoa(burst), func(b *testing.B) {
			benchHandoff(b, func(n int) Handoff { return NewLockFreeList(n) }, burst)
		})
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return string(buf[i:])
}
