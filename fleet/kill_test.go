package fleet

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The child side of TestShipKilledMidShipResumes: a shipper in its own
// process, so that the test can kill it without warning.
const childEnv = "CORDON_FLEET_TEST_SHIP_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(shipChild())
	}
	os.Exit(m.Run())
}

func shipChild() int {
	_, js, err := Connect(os.Getenv(childEnv+"_URL"), "child", 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	st, err := OpenState(os.Getenv(childEnv + "_STATE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// small batches: many checkpoints, each after its batch's acks
	if _, err := Ship(context.Background(), NewPublisher(js, 0), st, []string{os.Getenv(childEnv + "_INPUT")}, ShipOptions{BatchSize: 10}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func TestShipKilledMidShipResumes(t *testing.T) {
	const total = 20000
	b := newBus(t, StreamConfig{})
	dir := t.TempDir()
	input, state := filepath.Join(dir, "access.log"), filepath.Join(dir, "ship.json")
	squidLog(t, input, total)
	want := ingested(t, input)
	if len(want) != total {
		t.Fatalf("ingest reads %d events of %d lines", len(want), total)
	}

	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childEnv+"=1", childEnv+"_URL="+b.url, childEnv+"_STATE="+state, childEnv+"_INPUT="+input)
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for b.messages(t, DefaultStream) < total/10 {
		select {
		case err := <-exited:
			t.Fatalf("the shipper ended (%v) before it sent a tenth of the events", err)
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			child.Process.Kill()
			t.Fatal("the shipper sent less than a tenth of the events in 60s")
		}
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	sent := b.messages(t, DefaultStream)
	if sent >= total {
		t.Fatalf("the shipper had sent all %d events before it was killed; the test needs it killed part way", sent)
	}

	res := b.ship(t, state, []string{input}, ShipOptions{})
	t.Logf("killed after %d messages; the resumed ship read %d events, %d of them already on the stream", sent, res.Read, res.Duplicates)
	if res.Read == 0 || res.Read > int64(total)-int64(sent)+10*2 {
		// it resumes at its last checkpoint, at most the batch in flight
		// (and the one being checkpointed) before what the stream holds
		t.Fatalf("the resumed ship read %d events; %d of %d were on the stream already", res.Read, sent, total)
	}
	if n := b.messages(t, DefaultStream); n != total {
		t.Fatalf("stream holds %d messages after the resume, want %d", n, total)
	}
	got, _ := b.read(t, ReaderConfig{Durable: "after-kill"})
	once(t, got, want)
}
