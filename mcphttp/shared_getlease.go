package mcphttp

import (
	"context"
	"crypto/rand"
	"time"
)

// A StreamLeaser is an EventStore that keeps one lease per session on its
// GET stream, so that replicas sharing a session open one GET stream
// between them
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#listening-for-messages-from-the-server;
// docs/design.md, "Streamable HTTP across replicas"). A holder is an opaque
// string per GET connection; a lease lapses ttl after it was last renewed.
type StreamLeaser interface {
	// LeaseStream gives the lease of the session's GET stream to holder
	// for ttl and reports true when no other holder's lease runs, or when
	// takeover is set (it then ends any other holder's lease); otherwise
	// it changes nothing and reports false.
	LeaseStream(ctx context.Context, sessionID, holder string, ttl time.Duration, takeover bool) (bool, error)
	// RenewStream extends holder's lease to ttl from now and reports
	// true; it reports false, changing nothing, when holder no longer
	// holds the lease (it lapsed or was taken over).
	RenewStream(ctx context.Context, sessionID, holder string, ttl time.Duration) (bool, error)
	// ReleaseStream ends holder's lease, if holder still holds it.
	ReleaseStream(ctx context.Context, sessionID, holder string) error
}

// leasesStreams reports whether shared sessions' GET streams are leased
// in the EventStore.
func (h *Handler) leasesStreams() bool {
	_, ok := h.opts.EventStore.(StreamLeaser)
	return ok && h.streamLease() > 0
}

// streamLeaseHold is a GET connection's hold on its session's stream
// lease.
type streamLeaseHold struct {
	h       *Handler
	store   StreamLeaser
	session string
	holder  string
	ttl     time.Duration
}

// leaseGET takes the stream lease of session e for a GET that opens its
// GET stream (takeover for one resuming it). It reports ok false when
// another connection holds the lease; hold is nil when no lease applies
// (the EventStore is no StreamLeaser, or StreamLease is negative): the
// caller then applies the per-replica rule.
func (h *Handler) leaseGET(ctx context.Context, e *entry, takeover bool) (hold *streamLeaseHold, ok bool, err error) {
	if !h.leasesStreams() {
		return nil, true, nil
	}
	ls := h.opts.EventStore.(StreamLeaser)
	ttl := h.streamLease()
	hold = &streamLeaseHold{h: h, store: ls, session: e.id, holder: rand.Text(), ttl: ttl}
	err = h.storeCall("EventStore.LeaseStream", func() (err error) {
		ok, err = ls.LeaseStream(ctx, e.id, hold.holder, ttl, takeover)
		return err
	})
	if err != nil || !ok {
		return nil, ok, err
	}
	return hold, true, nil
}

// renew extends the hold's lease; false when it was lost or the store
// cannot answer (the stream then ends, and the client resumes it).
func (l *streamLeaseHold) renew(ctx context.Context) bool {
	var ok bool
	err := l.h.storeCall("EventStore.RenewStream", func() (err error) {
		ok, err = l.store.RenewStream(ctx, l.session, l.holder, l.ttl)
		return err
	})
	if err != nil {
		l.h.logger.Warn("mcphttp: renewing a GET stream lease failed; the stream ends", "session", l.session, "err", err)
	}
	return err == nil && ok
}

// release ends the hold's lease, even once ctx is cancelled.
func (l *streamLeaseHold) release(ctx context.Context) {
	err := l.h.storeCall("EventStore.ReleaseStream", func() error {
		return l.store.ReleaseStream(context.WithoutCancel(ctx), l.session, l.holder)
	})
	if err != nil {
		l.h.logger.Warn("mcphttp: releasing a GET stream lease failed; it lapses by itself", "session", l.session, "err", err)
	}
}
