package main

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	authv3 "github.com/envoyproxy/go-control-plane/envoy/service/auth/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/cordon-ir/cordon/fleet/fleettest"
)

// cordon watch --verdicts --ext-authz answers Envoy's Check: the thief of
// the credential-theft sample, asking from its sandbox's address, is
// refused once the watcher has read the stream; the receipt of that
// refusal is in the chain cordon receipts verify reads.
func TestWatchExtAuthz(t *testing.T) {
	sample := filepath.Join("..", "..", "sample-incidents", "credential-theft")
	url := fleettest.Server(t).ClientURL()
	if code, out, errOut := cordon("ship", "--nats", url, "--state", filepath.Join(t.TempDir(), "ship.json"), sample); code != 0 {
		t.Fatalf("ship: exit %d\n%s%s", code, out, errOut)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	child := cordonProcess(t, "watch", "--nats", url, "--durable", "cli", "--idle", "300ms", "--verdicts", "--ext-authz", addr)
	defer child.Process.Kill()
	conn, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := authv3.NewAuthorizationClient(conn)
	req := &authv3.CheckRequest{Attributes: &authv3.AttributeContext{
		Source: &authv3.AttributeContext_Peer{Address: &corev3.Address{Address: &corev3.Address_SocketAddress{
			SocketAddress: &corev3.SocketAddress{Address: "10.0.2.21"}}}},
		Request: &authv3.AttributeContext_Request{Http: &authv3.AttributeContext_HttpRequest{Id: "r-cli", Method: "CONNECT", Host: "pypi.org:443"}},
	}}
	var last string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 60s agent-12 is not refused: %s", last)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		resp, err := client.Check(ctx, req)
		cancel()
		if err != nil {
			last = err.Error() // not listening yet, or rebuilding: UNAVAILABLE
			continue
		}
		last = resp.String()
		if codes.Code(resp.GetStatus().GetCode()) == codes.PermissionDenied {
			if !strings.Contains(resp.GetStatus().GetMessage(), "agent-12") {
				t.Errorf("refusal without its agent: %s", resp.GetStatus().GetMessage())
			}
			break
		}
	}
	if err := child.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	out := child.Stdout.(interface{ String() string }).String()
	if !strings.Contains(out, "answering Envoy ext_authz on "+addr) {
		t.Errorf("cordon watch does not say where it answers ext_authz:\n%s", out)
	}
	code, vout, errOut := cordon("receipts", "verify", "--nats", url, "--watcher", "cli", "--json")
	docs := jsonLines(t, "receipts verify --json", vout)
	if code != 0 || len(docs) != 1 || docs[0]["refused"].(float64) < 1 {
		t.Errorf("receipts verify: exit %d\n%s%s", code, vout, errOut)
	}
}

// --ext-authz without --verdicts is a usage error: there is nothing to
// answer from.
func TestWatchExtAuthzNeedsVerdicts(t *testing.T) {
	code, _, errOut := cordon("watch", "--nats", "nats://127.0.0.1:1", "--ext-authz", "127.0.0.1:0")
	if code != exitUsage || !strings.Contains(errOut, "--verdicts") {
		t.Errorf("exit %d, want %d: %s", code, exitUsage, errOut)
	}
}
