// Package remote serves an evidence.Reader to other processes of the same
// user, and reads one so served: a following ingest holds its index (the
// index takes one process), and other commands read through it rather
// than being refused.
//
// The server listens on loopback only. A client proves it may read by
// sending the token the server wrote in a file only the workspace's owner
// can read; then the connection carries Go's net/rpc, gob-encoded, and the
// queries node for node (evidence.Query's gob form), never as text.
package remote

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/rpc"
	"sync"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// TokenSize is the length of the token a client sends first.
const TokenSize = 32

// dialTimeout bounds a connection and its first answer (a variable for
// the tests).
var dialTimeout = 5 * time.Second

// authTimeout bounds how long a connection may take to send its token.
const authTimeout = 5 * time.Second

// service is the rpc receiver: the reader's methods as net/rpc takes them.
type service struct {
	r   evidence.Reader
	ctx context.Context
}

// FacetArgs are a Facet's arguments.
type FacetArgs struct {
	Query        evidence.Query
	Since, Until time.Time
	Field        string
	Size         int
}

// GetReply is a Get's answer: Found is false when no event has the id.
type GetReply struct {
	Event evidence.Event
	Found bool
}

func (s *service) Search(req evidence.Request, out *evidence.Hits) error {
	h, err := s.r.Search(s.ctx, req)
	if err == nil {
		*out = *h
	}
	return err
}

func (s *service) Page(req evidence.PageRequest, out *evidence.Page) error {
	p, err := s.r.Page(s.ctx, req)
	if err == nil {
		*out = *p
	}
	return err
}

func (s *service) Facet(a FacetArgs, out *[]evidence.Count) error {
	c, err := s.r.Facet(s.ctx, a.Query, a.Since, a.Until, a.Field, a.Size)
	*out = c
	return err
}

func (s *service) Get(id string, out *GetReply) error {
	ev, err := s.r.Get(s.ctx, id)
	if errors.Is(err, evidence.ErrNotFound) {
		return nil
	}
	out.Event, out.Found = ev, err == nil
	return err
}

func (s *service) Counts(_ struct{}, out *evidence.Counts) error {
	*out = s.r.Counts()
	return nil
}

// Server serves a reader until Close.
type Server struct {
	ln     net.Listener
	token  []byte
	rpc    *rpc.Server
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]bool
}

// Serve starts serving r on a loopback port; clients must send token.
func Serve(r evidence.Reader, token []byte) (*Server, error) {
	if len(token) != TokenSize {
		return nil, fmt.Errorf("a token of %d bytes, want %d", len(token), TokenSize)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{ln: ln, token: token, rpc: rpc.NewServer(), cancel: cancel, conns: map[net.Conn]bool{}}
	if err := s.rpc.RegisterName("Reader", &service{r: r, ctx: ctx}); err != nil {
		ln.Close()
		cancel()
		return nil, err
	}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Addr is the address clients dial.
func (s *Server) Addr() string { return s.ln.Addr().String() }

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[c] = true
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() {
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
				c.Close()
			}()
			got := make([]byte, TokenSize)
			c.SetReadDeadline(time.Now().Add(authTimeout))
			if _, err := io.ReadFull(c, got); err != nil || subtle.ConstantTimeCompare(got, s.token) != 1 {
				return
			}
			c.SetReadDeadline(time.Time{})
			s.rpc.ServeConn(c)
		}()
	}
}

// Close stops serving: no new connection, the open ones closed, and
// every call in progress cancelled.
func (s *Server) Close() error {
	err := s.ln.Close()
	s.cancel()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

// Client is a reader served by another process.
type Client struct {
	c *rpc.Client
}

var _ evidence.Reader = (*Client)(nil)

// Dial connects to a server at addr with its token.
func Dial(addr string, token []byte) (*Client, error) {
	conn, err := net.DialTimeout("tcp", addr, dialTimeout)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Write(token); err != nil {
		conn.Close()
		return nil, err
	}
	cl := &Client{c: rpc.NewClient(conn)}
	// a wrong token, a server gone or another program on the port shows
	// now, not at the first read
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	defer cancel()
	var c evidence.Counts
	if err := cl.call(ctx, "Counts", struct{}{}, &c); err != nil {
		cl.Close()
		return nil, fmt.Errorf("the serving process did not answer: %w", err)
	}
	return cl, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.c.Close() }

func (c *Client) call(ctx context.Context, method string, args, reply any) error {
	// a caller that has given up sends nothing: with both ready, the
	// select below could take a fast answer over the cancellation
	if err := ctx.Err(); err != nil {
		return err
	}
	call := c.c.Go("Reader."+method, args, reply, make(chan *rpc.Call, 1))
	select {
	case <-call.Done:
		return call.Error
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Client) Search(ctx context.Context, req evidence.Request) (*evidence.Hits, error) {
	var h evidence.Hits
	if err := c.call(ctx, "Search", req, &h); err != nil {
		return nil, err
	}
	return &h, nil
}

func (c *Client) Page(ctx context.Context, req evidence.PageRequest) (*evidence.Page, error) {
	var p evidence.Page
	if err := c.call(ctx, "Page", req, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

func (c *Client) Facet(ctx context.Context, q evidence.Query, since, until time.Time, field string, size int) ([]evidence.Count, error) {
	var out []evidence.Count
	err := c.call(ctx, "Facet", FacetArgs{Query: q, Since: since, Until: until, Field: field, Size: size}, &out)
	return out, err
}

func (c *Client) Get(ctx context.Context, id string) (evidence.Event, error) {
	var r GetReply
	if err := c.call(ctx, "Get", id, &r); err != nil {
		return evidence.Event{}, err
	}
	if !r.Found {
		return evidence.Event{}, fmt.Errorf("%w: %s", evidence.ErrNotFound, id)
	}
	return r.Event, nil
}

// Counts are the served store's counts; zero when the server does not
// answer (Counts has no error to give: a read after it will).
func (c *Client) Counts() evidence.Counts {
	var out evidence.Counts
	if c.call(context.Background(), "Counts", struct{}{}, &out) != nil {
		return evidence.Counts{}
	}
	return out
}
