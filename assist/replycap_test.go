package assist

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
)

// A reply is read up to its byte cap, streamed or not: a 64 MiB reply, or
// a stream that never ends, fails cleanly with ErrReplyTooLarge, naming
// the cap and how to change it, without buffering what came past it, and
// is not retried.
func TestReplyIsReadUpToItsCap(t *testing.T) {
	st := openStore(t, incidentEvents())
	p := mustPacket(t, st, Selection{}, Budget{})
	huge := strings.Repeat("x", 1<<20)
	for _, tc := range []struct {
		name   string
		stream bool
		reply  func(w http.ResponseWriter, r *http.Request)
	}{
		{"one reply of 64 MiB", false, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"`)
			for i := 0; i < 64 && r.Context().Err() == nil; i++ {
				fmt.Fprint(w, huge)
			}
			fmt.Fprint(w, `"}}]}`)
		}},
		{"a stream that never ends", true, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			for r.Context().Err() == nil {
				chunk(w, huge[:4096])
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeLLM(t, func(_ int, w http.ResponseWriter, r *http.Request) { tc.reply(w, r) })
			c, _ := f.client(t, func(cfg *Config) { cfg.MaxReplyBytes = 1 << 20 })
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			var err error
			if tc.stream {
				_, err = c.Stream(context.Background(), TaskSummarize, "", p, func(string) {})
			} else {
				_, err = c.Run(context.Background(), TaskSummarize, "", p)
			}
			if !errors.Is(err, ErrReplyTooLarge) || !strings.Contains(err.Error(), "cap of 1048576 bytes") || !strings.Contains(err.Error(), EnvMaxReplyBytes) {
				t.Fatalf("err %v", err)
			}
			if n := f.count(); n != 1 {
				t.Errorf("%d requests: a reply over the cap is not retried", n)
			}
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 32<<20 {
				t.Errorf("heap grew %d bytes reading a reply capped at 1 MiB", grew)
			}
		})
	}
}
