package serve

import (
	"context"
	"testing"
	"testing/synctest"
)

// TestWSQueueFullPush checks the sentence queue's back-pressure: a push
// onto a full queue waits; one pop wakes it and it queues its sentence
// behind the others, with no time passing (synctest: a push waking on a
// timer would still be asleep once every goroutine is idle); a push still
// waiting when the session ends returns false.
func TestWSQueueFullPush(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		c := newWSSession(ctx, cancel, nil, nil)
		for i := range wsMaxQueued {
			if !c.push(wsSentence{index: i}) {
				t.Fatalf("push %d onto a queue with room: false", i)
			}
		}
		pushed := make(chan bool, 1)
		waitingPush := func(index int) {
			t.Helper()
			go func() { pushed <- c.push(wsSentence{index: index}) }()
			synctest.Wait()
			select {
			case ok := <-pushed:
				t.Fatalf("push %d onto a full queue returned %v without waiting", index, ok)
			default:
			}
		}

		waitingPush(wsMaxQueued)
		if s, ok := c.pop(false); !ok || s.index != 0 {
			t.Fatalf("pop: sentence %d, %v; want 0, true", s.index, ok)
		}
		synctest.Wait()
		select {
		case ok := <-pushed:
			if !ok {
				t.Fatal("push woken by a pop: false, want true")
			}
		default:
			t.Fatal("push still waiting after a pop made room")
		}
		for want := 1; want <= wsMaxQueued; want++ {
			if s, ok := c.pop(false); !ok || s.index != want {
				t.Fatalf("pop: sentence %d, %v; want %d, true", s.index, ok, want)
			}
		}
		if s, ok := c.pop(false); ok {
			t.Fatalf("pop of an empty queue: sentence %d", s.index)
		}

		for i := range wsMaxQueued {
			c.push(wsSentence{index: i})
		}
		waitingPush(wsMaxQueued)
		cancel()
		if ok := <-pushed; ok {
			t.Fatal("push waiting when the session ended: true, want false")
		}
	})
}
