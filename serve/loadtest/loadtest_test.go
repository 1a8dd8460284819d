package loadtest_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/omni-tts/omni/serve"
	"github.com/omni-tts/omni/serve/loadtest"
	"github.com/omni-tts/omni/serve/servetest"
)

// TestLoadtestAgainstFake runs a small load test with slow and disconnecting
// readers against the fake: every stream is accounted for, none loses
// bytes, and the over-capacity ones are 429s.
func TestLoadtestAgainstFake(t *testing.T) {
	fake := &servetest.Fake{Capacity: 4, FrameTime: 2 * time.Millisecond}
	s, err := serve.New(fake, serve.Config{MaxWaiting: 4})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	defer s.Drain(5 * time.Second)

	input := strings.TrimSpace(strings.Repeat("load test ", 10))
	rep, err := loadtest.Run(context.Background(), loadtest.Config{
		URL: "http://" + ln.Addr().String(), Concurrency: 8, Requests: 24, Input: input, Voice: "vivian",
		SlowFraction: 0.25, SlowBytesPerSecond: 400_000, DisconnectFraction: 0.25, DisconnectAfterBytes: 4000, Seed: 1,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := rep.Summarize()
	if sum.Admitted+sum.Refused429 != 24 || sum.Other != 0 {
		t.Errorf("summary %+v: want every request admitted or refused 429", sum)
	}
	if sum.Lost != 0 || sum.Told != 0 || sum.BytesReceived != sum.BytesExpected {
		t.Errorf("summary %+v: want nothing lost", sum)
	}
	if sum.Disconnected == 0 {
		t.Errorf("summary %+v: no disconnecting reader was admitted", sum)
	}
	if sum.Complete != sum.Admitted-sum.Disconnected {
		t.Errorf("summary %+v: complete != admitted - disconnected", sum)
	}
	for _, st := range rep.Streams {
		if st.Status == http.StatusOK && st.Kind != loadtest.Disconnect && st.Frames != servetest.FramesFor(input) {
			t.Errorf("stream %+v: %d frames, want %d", st, st.Frames, servetest.FramesFor(input))
		}
	}
	waitIdle := time.Now().Add(10 * time.Second)
	for fake.Load().Running != 0 && time.Now().Before(waitIdle) {
		time.Sleep(5 * time.Millisecond)
	}
	if fake.Load().Running != 0 {
		t.Errorf("streams still running after the load test: %+v", fake.Load())
	}
	var b strings.Builder
	rep.WriteText(&b)
	t.Log("\n" + b.String())
}

// TestLoadtestMixAndInstance checks that Mix draws streams of different
// lengths (each stream's frames are the fake's count for the text it was
// given) and that streams are counted per answering replica.
func TestLoadtestMixAndInstance(t *testing.T) {
	fake := &servetest.Fake{Capacity: 8}
	s, err := serve.New(fake, serve.Config{Instance: "replica-x"})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	defer s.Drain(5 * time.Second)

	texts := []string{"short one", strings.TrimSpace(strings.Repeat("a much longer text ", 8)), "mid length text here"}
	rep, err := loadtest.Run(context.Background(), loadtest.Config{
		URL: "http://" + ln.Addr().String(), Concurrency: 4, Requests: 30, Input: texts[0], Mix: texts[1:], Voice: "vivian", Seed: 3,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]int{}
	for i, st := range rep.Streams {
		if st.Status != http.StatusOK || !st.Complete() {
			t.Fatalf("stream %d %+v: want a complete 200", i, st)
		}
		if want := servetest.FramesFor(texts[st.Input]); st.Frames != want {
			t.Errorf("stream %d (input %d): %d frames, want %d", i, st.Input, st.Frames, want)
		}
		if st.Instance != "replica-x" {
			t.Errorf("stream %d: instance %q, want replica-x", i, st.Instance)
		}
		seen[st.Input]++
	}
	if len(seen) != len(texts) {
		t.Errorf("inputs drawn %v: want all %d texts used", seen, len(texts))
	}
	by := rep.ByInstance()
	if len(by) != 1 || by[0] != (loadtest.InstanceCount{Instance: "replica-x", Answered: 30, Admitted: 30, Complete: 30}) {
		t.Errorf("ByInstance = %+v, want replica-x answered, admitted and completed 30", by)
	}
	if _, err := loadtest.Run(context.Background(), loadtest.Config{URL: "http://x", Concurrency: 1, Requests: 1, Input: "a", Mix: []string{""}}, nil); err == nil || !strings.Contains(err.Error(), "mix is empty") {
		t.Errorf("empty mix input: err %v, want the mix named", err)
	}
}
