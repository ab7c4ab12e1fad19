package detect

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// sideBySide calls fn(0) … fn(n-1), as many at once as the process has
// cores, and returns when all have; a panic in one is raised again here,
// once all have returned.
func sideBySide(n int, fn func(i int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var raised any
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					once.Do(func() { raised = r })
				}
			}()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		}()
	}
	wg.Wait()
	if raised != nil {
		panic(raised)
	}
}
