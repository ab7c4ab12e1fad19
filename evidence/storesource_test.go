package evidence_test

import (
	"context"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
)

// StoreSource reads every event once, oldest first, across pages.
func TestStoreSourceReadsInTimeOrder(t *testing.T) {
	st := indexed(t, loadSample(t, "persistence-after-kill"))
	var n int
	var last string
	err := evidence.StoreSource{Store: st, PageSize: 97}.Each(context.Background(), evidence.All(), func(ev evidence.Event) error {
		key := ev.Time.Format("2006-01-02T15:04:05.000000000") + ev.ID
		if key < last {
			t.Fatalf("out of order: %s after %s", key, last)
		}
		last = key
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if int64(n) != st.Counts().Total {
		t.Errorf("read %d of %d events", n, st.Counts().Total)
	}
}
