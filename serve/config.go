package serve

import (
	"fmt"
	"log/slog"
	"time"
)

// Config holds the server's limits and defaults. The zero value of a field
// takes the default named in its comment; Validate refuses nonsense.
type Config struct {
	// ModelAliases are other names accepted in "model" besides the served
	// model's own (e.g. "tts-1" for clients hard-wired to OpenAI's names).
	ModelAliases []string
	// DefaultFormat is the response_format when a request names none
	// (default "mp3", as OpenAI).
	DefaultFormat string
	// MaxBodyBytes caps the request body (default 1 MiB).
	MaxBodyBytes int64
	// MaxInputChars caps input and instructions, in characters (default 4096,
	// OpenAI's limit).
	MaxInputChars int
	// MaxWaiting bounds the requests waiting for admission at once; one more
	// is refused 429 (default 16).
	MaxWaiting int
	// MaxConnections caps concurrent TCP connections in Serve (default 256);
	// past it, new connections wait in the kernel's backlog.
	MaxConnections int
	// MaxConnectionsPerClient caps the connections one IP address may hold
	// open at once (default MaxConnections/4), so one client cannot take
	// every slot; past it a new connection is answered 429 and closed.
	// Behind a proxy that connects from one address, raise it to
	// MaxConnections.
	MaxConnectionsPerClient int
	// ReadHeaderTimeout bounds reading a request's headers (default 5 s):
	// a client that trickles them (slowloris) is dropped. ReadTimeout bounds
	// reading the whole request (default 30 s; a body not received in time
	// is answered 408). The read deadline is lifted once the body is read,
	// so neither cuts a stream.
	ReadHeaderTimeout, ReadTimeout time.Duration
	// WriteTimeout bounds each write of a response (default 30 s): a stream
	// may last any time, but a client that stops reading for this long is
	// dropped and its stream cancelled.
	WriteTimeout time.Duration
	// IdleTimeout closes idle keep-alive connections (default 120 s).
	IdleTimeout time.Duration
	// RetryAfter is the Retry-After hint of a 429 when the synthesizer gives
	// none (default 1 s; sent rounded up to whole seconds).
	RetryAfter time.Duration
	// Version goes into omni_build_info.
	Version string
	// Instance names this replica in an X-Omni-Instance header on every
	// response (empty: no header), so a client behind a load balancer can
	// tell which replica served it.
	Instance string
	// Logger receives one line per request error; nil discards.
	Logger *slog.Logger
	// Cloning configures voice cloning on a Base model (voices.go).
	Cloning CloneConfig
}

// withDefaults returns c with zero fields set to their defaults.
func (c Config) withDefaults() Config {
	if c.DefaultFormat == "" {
		c.DefaultFormat = FormatMP3
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = 1 << 20
	}
	if c.MaxInputChars == 0 {
		c.MaxInputChars = 4096
	}
	if c.MaxWaiting == 0 {
		c.MaxWaiting = 16
	}
	if c.MaxConnections == 0 {
		c.MaxConnections = 256
	}
	if c.MaxConnectionsPerClient == 0 {
		c.MaxConnectionsPerClient = max(c.MaxConnections/4, 1)
	}
	if c.ReadHeaderTimeout == 0 {
		c.ReadHeaderTimeout = 5 * time.Second
	}
	if c.ReadTimeout == 0 {
		c.ReadTimeout = 30 * time.Second
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = 30 * time.Second
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = 120 * time.Second
	}
	if c.RetryAfter == 0 {
		c.RetryAfter = time.Second
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	c.Cloning = c.Cloning.withDefaults()
	return c
}

// Validate reports the first field with an impossible value.
func (c Config) Validate() error {
	switch c.DefaultFormat {
	case "", FormatWAV, FormatPCM, FormatMP3, FormatFLAC:
	default:
		return fmt.Errorf("serve: config DefaultFormat %q: want wav, pcm, mp3 or flac", c.DefaultFormat)
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"MaxBodyBytes", c.MaxBodyBytes}, {"MaxInputChars", int64(c.MaxInputChars)},
		{"MaxWaiting", int64(c.MaxWaiting)}, {"MaxConnections", int64(c.MaxConnections)},
		{"MaxConnectionsPerClient", int64(c.MaxConnectionsPerClient)},
		{"ReadHeaderTimeout", int64(c.ReadHeaderTimeout)}, {"ReadTimeout", int64(c.ReadTimeout)},
		{"WriteTimeout", int64(c.WriteTimeout)}, {"IdleTimeout", int64(c.IdleTimeout)},
		{"RetryAfter", int64(c.RetryAfter)},
	} {
		if f.v < 0 {
			return fmt.Errorf("serve: config %s %d is negative", f.name, f.v)
		}
	}
	if err := c.Cloning.Validate(); err != nil {
		return err
	}
	if c.MaxConnections > 0 && c.MaxConnectionsPerClient > c.MaxConnections {
		return fmt.Errorf("serve: config MaxConnectionsPerClient %d above MaxConnections %d", c.MaxConnectionsPerClient, c.MaxConnections)
	}
	return nil
}
