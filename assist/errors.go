package assist

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/redact"
	openai "github.com/sashabaranov/go-openai"
)

// Errors a responder acts on. The messages name the endpoint's host and
// the variable to check, never the key.
var (
	// ErrAuth: the endpoint refused the API key (401/403).
	ErrAuth = errors.New("the endpoint refused the API key")
	// ErrModelNotFound: the endpoint does not serve the model.
	ErrModelNotFound = errors.New("model not found")
	// ErrTimeout: no complete answer within Config.Timeout.
	ErrTimeout = errors.New("the assistant timed out")
	// ErrReplyTooLarge: the reply went past Config.MaxReplyBytes.
	ErrReplyTooLarge = errors.New("the reply is over the byte cap")
	// ErrEndpoint: any other failure talking to the endpoint.
	ErrEndpoint = errors.New("assistant endpoint failed")
	// ErrContext: the prompt was over the model's context, and still was
	// once made smaller.
	ErrContext = errors.New("the prompt is over the model's context")
	// ErrNoQuestion: the ask task was given no question.
	ErrNoQuestion = errors.New("ask needs a question")
	// ErrNeedsEndpoint: the task has no offline form and no endpoint is
	// configured.
	ErrNeedsEndpoint = errors.New("this task needs a model endpoint")
)

// callError carries a message written for the responder and the sentinel
// it is an instance of.
type callError struct {
	kind error
	msg  string
}

func (e *callError) Error() string { return e.msg }
func (e *callError) Unwrap() error { return e.kind }

// attemptError is what one request attempt learned about a failure.
type attemptError struct {
	err        error
	status     int    // HTTP status, 0 when none came back
	retryAfter string // the Retry-After header, if any
	message    string // the endpoint's error message, made safe
	// overflow: the endpoint said the prompt was over the model's
	// context; nctx is the context it gave, when it did.
	overflow bool
	nctx     int
}

func (c *Client) newAttemptError(err error, rec *recorder) *attemptError {
	ae := &attemptError{err: err, status: rec.status, retryAfter: rec.retryAfter}
	ae.overflow, ae.nctx = contextOverflow(rec.status, rec.errBody)
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		ae.message = apiErr.Message
		if ae.status == 0 {
			ae.status = apiErr.HTTPStatusCode
		}
		if code, ok := apiErr.Code.(string); ok && code != "" {
			ae.message = code + ": " + ae.message
		}
	case errors.As(err, &reqErr):
		ae.message = string(reqErr.Body)
		if ae.status == 0 {
			ae.status = reqErr.HTTPStatusCode
		}
	default:
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // without the URL, which could carry credentials
		}
		ae.message = err.Error()
	}
	ae.message = c.safe(ae.message, 200)
	return ae
}

// safe makes text from the endpoint fit to keep and show: the key
// scrubbed even if the endpoint echoes it, secrets redacted, capped. It
// becomes part of an error, made printable where that is shown.
func (c *Client) safe(s string, n int) string {
	if c.cfg.APIKey != "" {
		s = strings.ReplaceAll(s, c.cfg.APIKey, "[API-KEY]")
	}
	return capBytes(redact.Redact(strings.TrimSpace(s), nil), n)
}

// retryable: rate limits and server errors pass; the rest will not.
func (ae *attemptError) retryable() bool {
	return ae.status == http.StatusTooManyRequests || ae.status >= 500
}

// schemaRejected: a 400 about response_format, from an endpoint that
// does not support structured output.
func (ae *attemptError) schemaRejected() bool {
	m := strings.ToLower(ae.message)
	return ae.status == http.StatusBadRequest && (strings.Contains(m, "response_format") || strings.Contains(m, "json_schema"))
}

// explain turns a failed attempt into the error a responder reads.
func (c *Client) explain(ae *attemptError) error {
	host, model := c.cfg.Host(), c.cfg.Model
	m := strings.ToLower(ae.message)
	switch {
	case ae.status == http.StatusUnauthorized || ae.status == http.StatusForbidden:
		return &callError{ErrAuth, fmt.Sprintf("the endpoint refused the API key (%d): check %s for host %s", ae.status, EnvAPIKey, host)}
	case ae.status == http.StatusNotFound || strings.Contains(m, "model_not_found") ||
		(strings.Contains(m, "model") && (strings.Contains(m, "not found") || strings.Contains(m, "does not exist"))):
		return &callError{ErrModelNotFound, fmt.Sprintf("model %q not found at host %s (%d): check %s and %s", model, host, ae.status, EnvModel, EnvBaseURL)}
	case ae.overflow:
		return &callError{ErrContext, fmt.Sprintf("host %s refused the prompt as over model %q's context (%d), even after it was made smaller: set assistant.context_tokens (%s) to the server's context, or give the server a larger one",
			host, model, ae.status, EnvContextTokens)}
	case ae.status == http.StatusTooManyRequests:
		return &callError{ErrEndpoint, fmt.Sprintf("host %s is rate limiting (429) after %d retries: try again later", host, c.cfg.MaxRetries)}
	case errors.Is(ae.err, ErrReplyTooLarge):
		return &callError{ErrReplyTooLarge, fmt.Sprintf("the reply from host %s went past the cap of %d bytes (assistant.max_reply_bytes, %s): the exchange stopped there and nothing of it is used",
			host, c.cfg.ReplyCap(), EnvMaxReplyBytes)}
	case ae.status >= 200 && ae.status < 300:
		return &callError{ErrEndpoint, fmt.Sprintf("the reply from host %s broke off: %s", host, ae.message)}
	case ae.status != 0:
		return &callError{ErrEndpoint, fmt.Sprintf("host %s answered %d: %s", host, ae.status, ae.message)}
	}
	return &callError{ErrEndpoint, fmt.Sprintf("cannot reach host %s: %s", host, ae.message)}
}

// Backoff bounds.
const (
	backoffBase = time.Second
	backoffMax  = 30 * time.Second
	// retryAfterMax caps what an endpoint may ask us to wait.
	retryAfterMax = 2 * time.Minute
)

// backoff is the wait before retry n (0-based): the endpoint's
// Retry-After when it sent one, else exponential.
func backoff(n int, retryAfter string, now time.Time) time.Duration {
	if d, ok := parseRetryAfter(retryAfter, now); ok {
		return min(d, retryAfterMax)
	}
	d := backoffBase << min(n, 10)
	return min(d, backoffMax)
}

// parseRetryAfter reads delay-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// recorder notes what go-openai's errors leave out: the status and the
// Retry-After header of the last response.
type recorder struct {
	doer Doer
	// limit caps the bytes read of a reply's body (0: none)
	limit      int
	status     int
	retryAfter string
	// errBody is the body of an error response, which go-openai reads
	// into its own fields only in part (llama-server's n_ctx is lost).
	errBody string
}

func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	resp, err := r.doer.Do(req)
	if resp != nil {
		r.status, r.retryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
		if resp.StatusCode < 400 && resp.Body != nil && r.limit > 0 {
			resp.Body = &cappedBody{r: resp.Body, left: r.limit, limit: r.limit}
		}
		if resp.StatusCode >= 400 && resp.Body != nil {
			data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			r.errBody = string(data)
			resp.Body = io.NopCloser(bytes.NewReader(data))
		}
	}
	return resp, err
}

// cappedBody reads a reply's body up to a cap, then fails with
// ErrReplyTooLarge: a reply is never buffered past it, streamed or not.
type cappedBody struct {
	r     io.ReadCloser
	left  int
	limit int
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("%w of %d bytes", ErrReplyTooLarge, b.limit)
	}
	if len(p) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= n
	return n, err
}

func (b *cappedBody) Close() error { return b.r.Close() }
