package vlogs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// Scheme is how a store is named on the command line and in a workspace:
// victorialogs://host:port[,host:port].
const Scheme = "victorialogs://"

// ErrUnreachable: no VictoriaLogs endpoint answered.
var ErrUnreachable = errors.New("victorialogs unreachable")

// ParseAddr reads victorialogs://host:port[,host:port] into the HTTP base
// URLs of its endpoints, tried in order.
func ParseAddr(addr string) ([]string, error) {
	rest, ok := strings.CutPrefix(addr, Scheme)
	if !ok {
		return nil, fmt.Errorf("store %q: want %shost:port[,host:port]", addr, Scheme)
	}
	var out []string
	for _, hp := range strings.Split(rest, ",") {
		host, port, err := net.SplitHostPort(strings.TrimSpace(hp))
		if err != nil || host == "" || port == "" || strings.ContainsAny(hp, "/?#@") {
			return nil, fmt.Errorf("store %q: %q is not host:port", addr, hp)
		}
		out = append(out, "http://"+net.JoinHostPort(host, port))
	}
	return out, nil
}

// client speaks VictoriaLogs' HTTP API to the first endpoint that answers.
type client struct {
	bases []string
	http  *http.Client
}

func newClient(bases []string) *client {
	return &client{bases: bases, http: &http.Client{Timeout: 5 * time.Minute}}
}

// do sends a request built for each endpoint in turn until one answers,
// and returns its body when the status is 2xx.
func (c *client) do(ctx context.Context, build func(base string) (*http.Request, error)) (io.ReadCloser, error) {
	var lastErr error
	for _, base := range c.bases {
		req, err := build(base)
		if err != nil {
			return nil, err
		}
		resp, err := c.http.Do(req.WithContext(ctx))
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			lastErr = err
			continue
		}
		if resp.StatusCode/100 != 2 {
			msg, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
			resp.Body.Close()
			err := fmt.Errorf("victorialogs %s: %s: %s", req.URL.Path, resp.Status, strings.TrimSpace(string(msg)))
			if resp.StatusCode == http.StatusBadRequest && strings.HasPrefix(req.URL.Path, "/select/") {
				err = fmt.Errorf("%w: %v", evidence.ErrQuery, err)
			}
			return nil, err
		}
		return resp.Body, nil
	}
	return nil, fmt.Errorf("%w: %v", ErrUnreachable, lastErr)
}

// insert posts JSON lines into the streams named by streamFields.
func (c *client) insert(ctx context.Context, body []byte, streamFields string) error {
	params := url.Values{
		"_stream_fields": {streamFields},
		"_time_field":    {fieldTime},
		"_msg_field":     {"message"},
	}
	rc, err := c.do(ctx, func(base string) (*http.Request, error) {
		req, err := http.NewRequest(http.MethodPost, base+"/insert/jsonline?"+params.Encode(), bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/stream+json")
		}
		return req, err
	})
	if err != nil {
		return err
	}
	io.Copy(io.Discard, rc)
	return rc.Close()
}

// flush makes what was inserted searchable now rather than within a
// second. A single node flushes itself; a cluster's front (insert) node
// sends what it holds to the storage nodes and asks each to flush
// (TestVictoriaLogsClusterKeepsTheContract).
func (c *client) flush(ctx context.Context) error {
	rc, err := c.do(ctx, func(base string) (*http.Request, error) {
		return http.NewRequest(http.MethodGet, base+"/internal/force_flush", nil)
	})
	if err != nil {
		return err
	}
	io.Copy(io.Discard, rc)
	return rc.Close()
}

// post sends a LogsQL query and returns the answer's body: JSON lines.
func (c *client) post(ctx context.Context, q string) (io.ReadCloser, error) {
	form := url.Values{"query": {q}}.Encode()
	return c.do(ctx, func(base string) (*http.Request, error) {
		req, err := http.NewRequest(http.MethodPost, base+"/select/logsql/query", strings.NewReader(form))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		return req, err
	})
}

// query runs a LogsQL query and calls row with each result row.
func (c *client) query(ctx context.Context, q string, row func(map[string]string) error) error {
	rc, err := c.post(ctx, q)
	if err != nil {
		return err
	}
	defer rc.Close()
	sc := bufio.NewScanner(rc)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		m := map[string]string{}
		if err := json.Unmarshal(line, &m); err != nil {
			return fmt.Errorf("victorialogs answer %.100q: %w", line, err)
		}
		if err := row(m); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("victorialogs answer: %w", err)
	}
	return nil
}
