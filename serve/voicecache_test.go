package serve

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestVoiceCacheHammer runs gets, puts and removes of a few keys from many
// goroutines (under -race in CI): the bytes held always equal the sum of
// the entries' bytes, within the bound, and every get returns the voice
// made for its key.
func TestVoiceCacheHammer(t *testing.T) {
	c := newVoiceCache(1000, newVoiceMetrics(prometheus.NewRegistry()))
	prep := func(k int) func() (*PreparedVoice, error) {
		return func() (*PreparedVoice, error) {
			return &PreparedVoice{Bytes: int64(100 + 50*(k%5)), Ref: k}, nil
		}
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 2000 {
				k := r.IntN(12)
				key := fmt.Sprint("clip:", k)
				switch r.IntN(10) {
				case 0:
					c.remove(key)
				case 1:
					v, _ := prep(k)()
					c.put(key, v)
				default:
					v, err := c.get(context.Background(), key, prep(k))
					if err != nil || v.Ref != k {
						t.Errorf("get %s = %v, %v", key, v, err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	var sum int64
	for el := c.lru.Front(); el != nil; el = el.Next() {
		sum += el.Value.(*cacheEntry).v.Bytes
	}
	if sum != c.bytes || c.bytes > c.limit || c.lru.Len() != len(c.items) {
		t.Errorf("cache holds %d bytes by its count, %d by its entries (limit %d); %d entries, %d keys", c.bytes, sum, c.limit, c.lru.Len(), len(c.items))
	}
}

// TestVoiceCacheTooLarge: a voice larger than the whole cache is served
// but not kept, and evicts nothing.
func TestVoiceCacheTooLarge(t *testing.T) {
	c := newVoiceCache(100, newVoiceMetrics(prometheus.NewRegistry()))
	c.put("a", &PreparedVoice{Bytes: 60})
	calls := 0
	big := func() (*PreparedVoice, error) { calls++; return &PreparedVoice{Bytes: 101}, nil }
	for range 2 {
		if v, err := c.get(context.Background(), "b", big); err != nil || v.Bytes != 101 {
			t.Fatalf("get b = %v, %v", v, err)
		}
	}
	if calls != 2 || c.bytes != 60 || c.lru.Len() != 1 {
		t.Errorf("%d preparations, %d bytes, %d entries; want 2, 60, 1", calls, c.bytes, c.lru.Len())
	}
}
