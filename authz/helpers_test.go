package authz_test

import (
	"context"
	"encoding/base64"
	"net"
	"path/filepath"
	"testing"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	authv3 "github.com/envoyproxy/go-control-plane/envoy/service/auth/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cordon-ir/cordon/authz"
	"github.com/cordon-ir/cordon/watch"
	"github.com/cordon-ir/cordon/watch/watchtest"
	"github.com/nats-io/nats.go/jetstream"
)

// sampleDir is the credential-theft sample: agent-12 (10.0.2.21,
// container c72fd8dff7e9, proxy login px-s231) read agent-9's proxy
// credential px-s228 (agent-9: 10.0.2.17) and used it.
var sampleDir = filepath.Join("..", "sample-incidents", "credential-theft")

// everyAllow is the built-in policy keeping every allow as a receipt, so
// that a test can count them.
func everyAllow(t testing.TB) watch.VerdictConfig {
	t.Helper()
	_, def := watch.DefaultPolicy()
	text := []byte(string(def[:len(def)-len("sample_allows: 100\n")]) + "sample_allows: 1\n")
	pol, err := watch.ParsePolicy(text)
	if err != nil {
		t.Fatal(err)
	}
	if pol.SampleAllows != 1 {
		t.Fatalf("the policy keeps one allow in %d", pol.SampleAllows)
	}
	return watch.VerdictConfig{Name: "w1", Policy: &pol, PolicyBytes: text, CommitEvery: 20 * time.Millisecond}
}

// serve answers ext_authz from ask on a loopback port until t ends, and
// returns a client speaking the real protos to it.
func serve(t testing.TB, ask authz.Asker) (*authz.Server, authv3.AuthorizationClient) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := authz.New(ask)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- authz.Serve(ctx, lis, srv, time.Second, nil) }()
	conn, err := grpc.NewClient("passthrough:///"+lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return srv, authv3.NewAuthorizationClient(conn)
}

// check is the request Envoy sends for a CONNECT through the egress
// gateway: from ip, with the proxy login user (none: ""), at when (zero:
// Envoy's time not sent), with context extensions ext.
func check(id, ip, user string, when time.Time, ext map[string]string) *authv3.CheckRequest {
	h := &authv3.AttributeContext_HttpRequest{Id: id, Method: "CONNECT", Host: "pypi.org:443", Protocol: "HTTP/1.1",
		Headers: map[string]string{":authority": "pypi.org:443", "x-request-id": id}}
	if user != "" {
		h.Headers["proxy-authorization"] = "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":s3cret"))
	}
	r := &authv3.AttributeContext_Request{Http: h}
	if !when.IsZero() {
		r.Time = timestamppb.New(when)
	}
	return &authv3.CheckRequest{Attributes: &authv3.AttributeContext{
		Source: &authv3.AttributeContext_Peer{Address: &corev3.Address{Address: &corev3.Address_SocketAddress{
			SocketAddress: &corev3.SocketAddress{Address: ip, PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: 41234}}}}},
		Request:           r,
		ContextExtensions: ext,
	}}
}

// receipts are a watcher's receipts, in the stream's order.
func receipts(t testing.TB, js jetstream.JetStream, watcher string) []watch.Receipt {
	t.Helper()
	out, unreadable, err := watch.FindReceipts(context.Background(), js, watch.DefaultReceiptsStream, watcher, func(*watch.Receipt) bool { return true })
	if err != nil || unreadable > 0 {
		t.Fatalf("%d receipts that do not read: %v", unreadable, err)
	}
	return out
}

// run starts a watcher answering verdicts on the credential-theft sample.
func run(t testing.TB, vc watch.VerdictConfig) (*watch.Watcher, string, jetstream.JetStream, func() error) {
	t.Helper()
	return watchtest.Verdicts(t, sampleDir, vc)
}
