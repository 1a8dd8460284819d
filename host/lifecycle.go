package host

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
)

// PanicError is a panic recovered from an engine's Run goroutine (Start):
// a bug in omni, reported with its stack instead of killing the program.
type PanicError struct {
	Value any
	Stack []byte
}

// Error implements error.
func (p *PanicError) Error() string {
	return fmt.Sprintf("host: BUG: engine panicked: %v\n%s", p.Value, p.Stack)
}

// start is Engine.Start for an engine whose loop is run: it runs run on its
// own goroutine under a child of ctx; when run fails (any error but the
// end of its context), fail ends the engine's streams with the error so
// that no reader waits for frames that will not come. The returned stop
// cancels the loop, waits for it to return (a join) and returns its error;
// an end by stop or by ctx is not an error. stop may be called more than
// once.
func start(ctx context.Context, run func(context.Context) error, fail func(error)) (stop func() error) {
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	var err error
	go func() {
		defer close(done)
		err = recoverRun(runCtx, run)
		if err != nil && !isEnd(err) {
			fail(err)
		}
	}()
	var once sync.Once
	var out error
	return func() error {
		once.Do(func() {
			cancel()
			<-done
			if err != nil && !isEnd(err) {
				out = err
			}
		})
		return out
	}
}

// recoverRun calls run, turning a panic into a *PanicError.
func recoverRun(ctx context.Context, run func(context.Context) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: debug.Stack()}
		}
	}()
	return run(ctx)
}

// isEnd reports whether err is the end of a loop's context, not a failure.
func isEnd(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
