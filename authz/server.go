package authz

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	authv3 "github.com/envoyproxy/go-control-plane/envoy/service/auth/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	rpcstatus "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/watch"
)

// Subject is what an ext_authz verdict's receipt names as its subject.
const Subject = "/envoy.service.auth.v3.Authorization/Check"

// Asker is what answers: a watch.Watcher serving verdicts.
type Asker interface {
	Ask(ev *evidence.Event, req watch.VerdictRequest, subject string) (watch.Verdict, error)
}

// Stats count what a Server answered; safe to read while it serves.
type Stats struct {
	Checks  int64 `json:"checks"`
	Allowed int64 `json:"allowed"`
	Review  int64 `json:"reviewed"`
	Denied  int64 `json:"denied"`
	// Unanswered are checks given an error (the watcher not serving, the
	// deadline passed): Envoy's failure_mode_allow decides those.
	// Expired are those of them whose deadline passed, on arrival or
	// before the watcher came to them.
	Unanswered int64 `json:"unanswered"`
	Expired    int64 `json:"expired"`
}

// Server answers Envoy's Check from an Asker.
type Server struct {
	authv3.UnimplementedAuthorizationServer
	ask                                               Asker
	checks, allowed, review, denied, unanswd, expired atomic.Int64
}

// New is a Server answering from ask.
func New(ask Asker) *Server { return &Server{ask: ask} }

// Stats says what the server answered so far.
func (s *Server) Stats() Stats {
	return Stats{Checks: s.checks.Load(), Allowed: s.allowed.Load(), Review: s.review.Load(), Denied: s.denied.Load(),
		Unanswered: s.unanswd.Load(), Expired: s.expired.Load()}
}

// Check answers one request. A refusal is PERMISSION_DENIED, its reasons
// in the status message (Envoy's log, not the agent's) and a 403 whose
// body names only the verdict; allow and review are OK. Every answer
// carries the verdict as dynamic metadata under the filter's namespace,
// for the access log and any filter after (docs/verdicts.md). A watcher
// not serving is UNAVAILABLE and a deadline passed DEADLINE_EXCEEDED: the
// caller's failure_mode_allow is the policy for those.
func (s *Server) Check(ctx context.Context, req *authv3.CheckRequest) (*authv3.CheckResponse, error) {
	s.checks.Add(1)
	ev, vreq := question(req, time.Now())
	if d, ok := ctx.Deadline(); ok {
		vreq.Deadline = d
	}
	if ctx.Err() != nil {
		s.unanswd.Add(1)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			s.expired.Add(1)
		}
		return nil, status.FromContextError(ctx.Err()).Err()
	}
	v, err := s.ask.Ask(&ev, vreq, Subject)
	switch {
	case errors.Is(err, watch.ErrExpired):
		s.unanswd.Add(1)
		s.expired.Add(1)
		return nil, status.Error(codes.DeadlineExceeded, "cordon: "+err.Error())
	case errors.Is(err, watch.ErrNotServing):
		s.unanswd.Add(1)
		return nil, status.Error(codes.Unavailable, "cordon: "+err.Error())
	case err != nil:
		s.unanswd.Add(1)
		return nil, status.Error(codes.Internal, "cordon: "+err.Error())
	}
	return s.response(&v), nil
}

// response is the CheckResponse of a verdict.
func (s *Server) response(v *watch.Verdict) *authv3.CheckResponse {
	meta := map[string]any{"verdict_id": v.VerdictID, "recommendation": v.Recommendation, "agent": v.Agent,
		"known": v.Known, "rules": strings.Join(v.Rules, ","), "watcher": v.Watcher}
	if v.Attribution != nil {
		meta["via"] = v.Attribution.Via
	}
	md, _ := structpb.NewStruct(meta)
	idHeader := []*corev3.HeaderValueOption{{Header: &corev3.HeaderValue{Key: "x-cordon-verdict-id", Value: v.VerdictID}}}
	if v.Recommendation != watch.Refuse {
		if v.Recommendation == watch.Review {
			s.review.Add(1)
		} else {
			s.allowed.Add(1)
		}
		return &authv3.CheckResponse{Status: &rpcstatus.Status{Code: int32(codes.OK)}, DynamicMetadata: md,
			HttpResponse: &authv3.CheckResponse_OkResponse{OkResponse: &authv3.OkHttpResponse{}}}
	}
	s.denied.Add(1)
	msg := fmt.Sprintf("cordon refuses %s (verdict %s): %s", v.Agent, v.VerdictID, strings.Join(v.Reasons, "; "))
	if len(msg) > 2048 {
		msg = msg[:2045] + "..."
	}
	return &authv3.CheckResponse{
		Status:          &rpcstatus.Status{Code: int32(codes.PermissionDenied), Message: msg},
		DynamicMetadata: md,
		HttpResponse: &authv3.CheckResponse_DeniedResponse{DeniedResponse: &authv3.DeniedHttpResponse{
			Status:  &typev3.HttpStatus{Code: typev3.StatusCode_Forbidden},
			Headers: idHeader,
			// the agent reads this: it learns it was refused, not which
			// detector to adapt around
			Body: "refused by cordon: verdict " + v.VerdictID + "\n",
		}},
	}
}

// Serve answers on lis until ctx ends, then lets the checks in flight
// finish (at most grace) and returns. With conf, every connection is
// TLS (mutual when conf verifies client certificates); nil serves
// plaintext.
func Serve(ctx context.Context, lis net.Listener, s *Server, grace time.Duration, conf *tls.Config) error {
	var opts []grpc.ServerOption
	if conf != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(conf)))
	}
	g := grpc.NewServer(opts...)
	authv3.RegisterAuthorizationServer(g, s)
	done := make(chan error, 1)
	go func() { done <- g.Serve(lis) }()
	select {
	case err := <-done:
		return fmt.Errorf("ext_authz: %w", err)
	case <-ctx.Done():
	}
	stopped := make(chan struct{})
	go func() {
		g.GracefulStop()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(grace):
		g.Stop()
	}
	<-done
	return nil
}
