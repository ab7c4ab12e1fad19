package fleettest

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Cluster starts n JetStream servers clustered on loopback (a cluster
// named "cordon", servers n1..nN, each store in its own temporary folder)
// and waits until JetStream keeps a stream on all n. URLs is what a client connects
// to: every server, comma-separated.
func Cluster(t testing.TB, n int) (servers []*server.Server, urls string) {
	t.Helper()
	ports := freePorts(t, n)
	var routes []*url.URL
	for _, p := range ports {
		routes = append(routes, &url.URL{Scheme: "nats", Host: fmt.Sprintf("127.0.0.1:%d", p)})
	}
	var list []string
	for i := range n {
		s := start(t, t.TempDir(), func(o *server.Options) {
			o.ServerName = fmt.Sprintf("n%d", i+1)
			o.Cluster = server.ClusterOpts{Name: "cordon", Host: "127.0.0.1", Port: ports[i]}
			o.Routes = routes
		})
		servers = append(servers, s)
		list = append(list, s.ClientURL())
	}
	urls = strings.Join(list, ",")
	// JetStream answers once the servers chose a meta leader
	nc, err := nats.Connect(urls)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		// every server in: a stream kept by all n can be made
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "FLEETTEST_READY", Subjects: []string{"fleettest.ready"}, Replicas: n})
		if err == nil {
			err = js.DeleteStream(ctx, "FLEETTEST_READY")
		}
		cancel()
		if err == nil {
			return servers, urls
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster has no JetStream leader after 30s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// freePorts are n loopback ports free a moment ago, for the routes every
// server of a cluster must know before it starts.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var out []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return out
}
