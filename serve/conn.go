package serve

import (
	"net"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/ssh"
)

type handshakeKey struct{}

// handshakeConn holds a deadline on a new connection until it opens a
// session. The SSH library resets deadlines on every read and write, so
// until then those resets are ignored.
type handshakeConn struct {
	net.Conn
	open atomic.Bool
}

func newHandshakeConn(c net.Conn, d time.Duration) *handshakeConn {
	_ = c.SetDeadline(time.Now().Add(d))
	return &handshakeConn{Conn: c}
}

func (c *handshakeConn) SetDeadline(t time.Time) error {
	if !c.open.Load() {
		return nil
	}
	return c.Conn.SetDeadline(t)
}

// opened lifts the deadline: the client is in and has a session.
func opened(ctx ssh.Context) {
	if c, ok := ctx.Value(handshakeKey{}).(*handshakeConn); ok && !c.open.Swap(true) {
		_ = c.Conn.SetDeadline(time.Time{})
	}
}
