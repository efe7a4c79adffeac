package redisstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/redis/go-redis/v9"
)

// BusOptions configures a Bus. The zero value is usable.
type BusOptions struct {
	// Prefix starts every channel name; as SessionOptions.Prefix. Give
	// every replica of a server the same Prefix.
	Prefix string
	// Timeout bounds Publish and the subscription of Subscribe; past it
	// they fail with an error wrapping ErrUnavailable. If zero,
	// DefaultTimeout (2s).
	Timeout time.Duration
	// Logger receives a panic of a subscriber's function. If nil,
	// slog.Default().
	Logger *slog.Logger
}

// Bus is an mcp.Bus on Redis pub/sub: what one replica publishes on a
// channel reaches every replica subscribed to it through the same Redis
// (on a Redis Cluster, PUBLISH reaches the subscribers of every node).
//
// Pub/sub is at most once: a message published while the connection of a
// subscriber is broken (go-redis reconnects and subscribes again) is
// lost. That is acceptable for what mcp routes through a Bus, responses
// to server-to-client requests and cancellations: a request whose
// response was lost ends at its own timeout, as it would if the client
// never answered, and a lost cancellation leaves the request to finish
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation#behavior-requirements
// allows a server to ignore one).
//
// Each Subscribe holds one pub/sub connection of the client until its
// stop is called.
//
// # Experimental
//
// Part of the experimental scale-out API.
type Bus struct {
	base
	logger *slog.Logger
}

var _ mcp.Bus = (*Bus)(nil)

// NewBus returns a Bus on rdb. The errors are those of NewSessionStore's
// checks (ErrNilClient, ErrNoContextTimeout, ErrBadPrefix).
func NewBus(rdb redis.UniversalClient, opts *BusOptions) (*Bus, error) {
	var o BusOptions
	if opts != nil {
		o = *opts
	}
	b, err := newBase(rdb, o.Prefix, o.Timeout)
	if err != nil {
		return nil, err
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Bus{base: b, logger: o.Logger}, nil
}

// ChannelName is the Redis channel a Bus channel is published on.
func (b *Bus) ChannelName(channel string) string { return b.prefix + "bus:" + channel }

// Publish implements mcp.Bus: one PUBLISH.
func (b *Bus) Publish(ctx context.Context, channel string, msg []byte) error {
	name := b.ChannelName(channel)
	return b.call(ctx, "publishing", func(ctx context.Context) error {
		if c, ok := b.rdb.(*redis.ClusterClient); ok {
			// A Cluster client sends a PUBLISH to any node, and two
			// nodes' messages may reach a subscriber in either order;
			// the node of the channel's slot serves every publish of a
			// channel, so they arrive in the order they were sent.
			node, err := c.MasterForKey(ctx, name)
			if err != nil {
				return err
			}
			return node.Publish(ctx, name, msg).Err()
		}
		return b.rdb.Publish(ctx, name, msg).Err()
	})
}

// Subscribe implements mcp.Bus. It returns once Redis has confirmed the
// subscription, so that what is published after it returns is received.
func (b *Bus) Subscribe(ctx context.Context, channel string, fn func(msg []byte)) (func(), error) {
	name := b.ChannelName(channel)
	rctx, cancel := context.WithCancel(context.Background())
	ps := b.rdb.Subscribe(rctx)
	err := b.call(ctx, "subscribing", func(ctx context.Context) error {
		if err := ps.Subscribe(ctx, name); err != nil {
			return err
		}
		v, err := ps.Receive(ctx)
		if err != nil {
			return err
		}
		if _, ok := v.(*redis.Subscription); !ok {
			return fmt.Errorf("unexpected first reply %T", v)
		}
		return nil
	})
	if err != nil {
		cancel()
		_ = ps.Close()
		return nil, err
	}
	var done sync.WaitGroup
	done.Go(func() { b.receive(rctx, ps, channel, fn) })
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			_ = ps.Close()
			done.Wait()
		})
	}, nil
}

// busRetry is how long a subscription waits after its connection broke
// before it reads again (go-redis reconnects and resubscribes meanwhile).
const busRetry = 100 * time.Millisecond

func (b *Bus) receive(ctx context.Context, ps *redis.PubSub, channel string, fn func([]byte)) {
	for {
		msg, err := ps.ReceiveMessage(ctx)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, redis.ErrClosed) {
				return
			}
			t := time.NewTimer(busRetry)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			continue
		}
		b.deliver(channel, fn, []byte(msg.Payload))
	}
}

func (b *Bus) deliver(channel string, fn func([]byte), msg []byte) {
	defer func() {
		if p := recover(); p != nil {
			b.logger.Error("redisstore: a Bus subscriber panicked", "channel", channel, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}()
	fn(msg)
}
