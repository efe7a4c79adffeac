package mcphttp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"runtime/debug"
	"strconv"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// This file routes over the server's mcp.Bus the client messages that
// must reach another replica: a response to a server-to-client request
// no local request waits for, and notifications/cancelled
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#multiple-connections;
// docs/design.md, "Streamable HTTP across replicas").

// routeChannel is the bus channel of routed client messages.
const routeChannel = "mcpkit.route"

// routed is one client message on the bus: the session it belongs to,
// its owner, and the message as the client sent it.
type routed struct {
	From    string          `json:"f"`
	Session string          `json:"s"`
	Owner   string          `json:"o,omitempty"`
	Msg     json.RawMessage `json:"m"`
}

// busRoute is the subscription of a Handler to one Bus.
type busRoute struct {
	bus  mcp.Bus
	stop func()
}

// startRouting subscribes h to its server's bus when the server's
// SessionStore is shared; it does nothing otherwise. A Handler that
// chooses its server per request (NewHandlerFunc) subscribes to each
// server's bus when it first holds a shared session of that server
// (routeServer).
func (h *Handler) startRouting() {
	h.replicaID = rand.Text()
	if h.server != nil {
		h.routeServer(h.server)
	}
}

// routeServer subscribes h to srv's Bus, once per Bus, when srv's
// SessionStore is shared and it has a Bus.
func (h *Handler) routeServer(srv *mcp.Server) {
	bus := srv.Host().Bus
	if bus == nil || !srv.Host().Store.Shared() {
		return
	}
	if t := reflect.TypeOf(bus); !t.Comparable() {
		h.logger.Error("mcphttp: the server's Bus is of a type that cannot be compared; responses and cancellations from other replicas will not reach this one", "type", t.String())
		return
	}
	h.routeMu.Lock()
	defer h.routeMu.Unlock()
	for _, rt := range h.routes {
		if rt.bus == bus {
			return
		}
	}
	if h.closed.Err() != nil {
		return
	}
	var stop func()
	err := h.busCall(func() (err error) {
		stop, err = bus.Subscribe(h.closed, routeChannel, h.receiveRouted)
		return err
	})
	if err == nil && stop == nil {
		err = errors.New("mcphttp: Bus.Subscribe returned no stop function")
	}
	if err != nil {
		// Routing is best effort: the replica still serves its own
		// sessions' responses; what others route to it is lost until a
		// later session of this server subscribes again.
		h.logger.Error("mcphttp: subscribing to the bus failed; responses and cancellations from other replicas will not reach this one", "err", err)
		return
	}
	h.routes = append(h.routes, busRoute{bus: bus, stop: stop})
}

// stopRouting ends the subscriptions of routeServer.
func (h *Handler) stopRouting() {
	h.routeMu.Lock()
	routes := h.routes
	h.routes = nil
	h.routeMu.Unlock()
	for _, rt := range routes {
		rt.stop()
	}
}

// routeResponse publishes a response POSTed for shared session e that no
// request of the local copy waited for. A non-nil error means the bus
// could not take it (refuseBus).
func (h *Handler) routeResponse(ctx context.Context, e *entry, m *jsonrpc.Response) error {
	if e.shared {
		return h.publishRouted(ctx, e, m)
	}
	return nil
}

// routeNotification publishes notifications/cancelled of shared session
// e, for the replica running the request it names. A non-nil error means
// the bus could not take it (refuseBus).
func (h *Handler) routeNotification(ctx context.Context, e *entry, m *jsonrpc.Notification) error {
	if e.shared && m.Method == "notifications/cancelled" {
		return h.publishRouted(ctx, e, m)
	}
	return nil
}

func (h *Handler) publishRouted(ctx context.Context, e *entry, m jsonrpc.Message) error {
	bus := e.host().Bus
	if bus == nil {
		return nil
	}
	raw, err := jsonrpc.Encode(m)
	if err != nil {
		return nil
	}
	b, err := json.Marshal(routed{From: h.replicaID, Session: e.id, Owner: e.owner, Msg: raw})
	if err != nil {
		return nil
	}
	if err := h.busCall(func() error { return bus.Publish(ctx, routeChannel, b) }); err != nil {
		h.logger.Warn("mcphttp: publishing on the bus failed", "session", e.id, "err", err)
		return err
	}
	return nil
}

// errBusUnavailable answers a client's response or cancellation that the
// bus could not carry to the other replicas.
var errBusUnavailable = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "Service unavailable: the message bus cannot be reached; retry later"}

// refuseBus answers a POST whose message the bus could not publish: 503
// with Retry-After when the bus cannot be reached (the client sends the
// message again, as for an unreachable store), 500 for anything else (a
// panic in the Bus). The message was served locally first: sending it
// again is harmless.
func (h *Handler) refuseBus(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, mcp.ErrStoreUnavailable) {
		w.Header().Set("Retry-After", strconv.Itoa(storeRetryAfter))
		h.refuse(w, r, http.StatusServiceUnavailable, jsonrpc.ID{}, errBusUnavailable)
		return
	}
	h.refuse(w, r, http.StatusInternalServerError, jsonrpc.ID{}, errInternal)
}

// busCall runs f, a call into the Bus, turning a panic into an error.
func (h *Handler) busCall(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			h.logger.Error("mcphttp: the Bus panicked", "panic", p, "stack", string(debug.Stack()))
			err = errBusPanicked
		}
	}()
	return f()
}

// receiveRouted delivers a message another replica published to the
// local copy of its session, if this Handler holds one.
func (h *Handler) receiveRouted(b []byte) {
	var m routed
	if err := json.Unmarshal(b, &m); err != nil || m.From == h.replicaID || m.Session == "" {
		return
	}
	msg, _, err := jsonrpc.Decode(m.Msg)
	if err != nil {
		return
	}
	e, evicted := h.reg.acquire(m.Session, m.Owner)
	if evicted != nil {
		h.closeEntry(evicted)
	}
	if e == nil {
		return
	}
	defer h.reg.release(e)
	ctx := context.WithoutCancel(h.closed)
	switch x := msg.(type) {
	case *jsonrpc.Response:
		e.host().Deliver(ctx, e.ss, x, nil)
	case *jsonrpc.Notification:
		if x.Method == "notifications/cancelled" {
			e.host().Deliver(ctx, e.ss, x, nil)
		}
	}
}

// errBusPanicked is what a panic in a Bus method becomes.
var errBusPanicked = errors.New("mcphttp: the Bus panicked")
