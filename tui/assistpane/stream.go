package assistpane

import (
	"context"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/tui/common"
)

// Replies of one request; seq drops those of a request since replaced.
type (
	// packetMsg is the evidence a request would send, to confirm.
	packetMsg struct {
		seq    int
		packet assist.Packet
		err    error
	}
	// chunkMsg is a piece of the streamed answer as the model wrote it;
	// streamLines makes it printable.
	chunkMsg struct {
		seq  int
		text string
	}
	// doneMsg ends a request: its result (journaled by Ask), or why not.
	doneMsg struct {
		seq int
		res assist.Result
		err error
	}
)

// stream is one request's answer on its way: chunks one at a time, then
// the result. The producer never blocks on a reader that went away: a
// chunk waits only until the request's context ends, and the result has
// room of its own.
type stream struct {
	chunks chan string
	done   chan doneMsg
}

func newStream() *stream {
	return &stream{chunks: make(chan string), done: make(chan doneMsg, 1)}
}

// asking is everything one request needs, copied out of the model.
type asking struct {
	ws    common.Casework
	actor journal.Actor
	cfg   assist.Config
	req   incident.AskRequest
}

// packetCmd builds the packet the request would send. A question the scope
// gate refuses goes to Ask at once, which journals the refusal and sends
// nothing.
func packetCmd(com common.Common, seq int, a asking) tea.Cmd {
	ctx := com.Ctx
	return com.Cmd(func() tea.Msg {
		if err := assist.Gate(a.req.Task, a.req.Question); err != nil {
			_, err = a.ws.Ask(ctx, a.actor, a.cfg, a.req)
			return doneMsg{seq: seq, err: err}
		}
		p, err := a.ws.AskPacket(ctx, a.cfg, a.req)
		return packetMsg{seq: seq, packet: p, err: err}
	})
}

// startCmd runs the request in the background and returns its first
// reply; Update re-issues nextCmd after each chunk.
func startCmd(com common.Common, ctx context.Context, seq int, a asking, st *stream) tea.Cmd {
	return com.Cmd(func() tea.Msg {
		go func() {
			var d doneMsg
			defer func() {
				if r := recover(); r != nil {
					d = doneMsg{err: fmt.Errorf("internal error: %v", r)}
				}
				d.seq = seq
				st.done <- d
			}()
			req := a.req
			req.OnChunk = func(s string) {
				select {
				case st.chunks <- s:
				case <-ctx.Done():
				}
			}
			d.res, d.err = a.ws.Ask(ctx, a.actor, a.cfg, req)
		}()
		return next(seq, st)
	})
}

// nextCmd reads the stream's next reply.
func nextCmd(com common.Common, seq int, st *stream) tea.Cmd {
	return com.Cmd(func() tea.Msg { return next(seq, st) })
}

// next waits for a chunk or the result. Chunks are handed over one by one
// (the channel has no buffer), so the result never overtakes one.
func next(seq int, st *stream) tea.Msg {
	select {
	case s := <-st.chunks:
		return chunkMsg{seq: seq, text: s}
	case d := <-st.done:
		return d
	}
}
