package mcp

// Roots, client side: the list the client serves with roots/list, and
// notifications/roots/list_changed when it changes
// (https://modelcontextprotocol.io/specification/2025-11-25/client/roots).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// rootsState is the client's roots and the sessions to tell when they
// change.
type rootsState struct {
	mu     sync.Mutex
	served bool
	roots  []*Root
	// sessions are the client's sessions, pruned of ended ones whenever
	// a session is added or the roots change.
	sessions map[*ClientSession]struct{}
}

func (c *Client) addRootsMethods() {
	served := c.opts.Roots != nil || (c.opts.Capabilities != nil && c.opts.Capabilities.Roots != nil)
	if !served {
		return
	}
	c.roots.served = true
	c.roots.roots = make([]*Root, 0, len(c.opts.Roots))
	for _, r := range c.opts.Roots {
		if err := validRoot(r); err != nil {
			c.logger.Warn("mcp: client: root dropped", "err", err)
			continue
		}
		c.roots.roots = append(c.roots.roots, r)
	}
	c.methods["roots/list"] = func(context.Context, *ClientSession, json.RawMessage) (any, error) {
		return &ListRootsResult{Roots: c.Roots()}, nil
	}
}

// rootsCapability declares roots, with listChanged, when the client serves
// them.
func (c *Client) rootsCapability(caps *ClientCapabilities) {
	if c.roots.served {
		caps.Roots = &RootsCapability{ListChanged: true}
	}
}

// validRoot checks a root the client is to serve: the spec requires a
// file:// URI (https://modelcontextprotocol.io/specification/2025-11-25/client/roots#root).
func validRoot(r *Root) error {
	if r == nil {
		return errors.New("mcp: a root is nil")
	}
	if !strings.HasPrefix(r.URI, "file://") {
		return fmt.Errorf("mcp: root %q: the URI must start with file://", r.URI)
	}
	return nil
}

// Roots returns the roots the client serves: a copy of the list, empty
// (not nil) when the client serves none.
func (c *Client) Roots() []*Root {
	c.roots.mu.Lock()
	defer c.roots.mu.Unlock()
	return append([]*Root{}, c.roots.roots...)
}

// SetRoots replaces the roots the client serves and sends
// notifications/roots/list_changed on every open session
// (https://modelcontextprotocol.io/specification/2025-11-25/client/roots#root-list-changes).
// It fails, changing nothing, when the client serves no roots or a URI is
// not file://; the errors of sending are joined.
func (c *Client) SetRoots(ctx context.Context, roots ...*Root) error {
	if !c.roots.served {
		return errors.New("mcp: SetRoots: the client does not serve roots (ClientOptions.Roots is nil)")
	}
	for _, r := range roots {
		if err := validRoot(r); err != nil {
			return fmt.Errorf("mcp: SetRoots: %w", err)
		}
	}
	c.roots.mu.Lock()
	c.roots.roots = slices.Clone(roots)
	c.roots.prune()
	sessions := make([]*ClientSession, 0, len(c.roots.sessions))
	for cs := range c.roots.sessions {
		sessions = append(sessions, cs)
	}
	c.roots.mu.Unlock()

	if caps := c.capabilities(); caps.Roots == nil || !caps.Roots.ListChanged {
		return nil
	}
	var errs []error
	for _, cs := range sessions {
		if err := cs.notify(ctx, "notifications/roots/list_changed", nil); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// track adds an initialized session to those told about root changes.
func (r *rootsState) track(cs *ClientSession) {
	if !r.served {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prune()
	if r.sessions == nil {
		r.sessions = make(map[*ClientSession]struct{})
	}
	r.sessions[cs] = struct{}{}
}

// prune forgets the sessions that have ended. r.mu is held.
func (r *rootsState) prune() {
	for cs := range r.sessions {
		select {
		case <-cs.Done():
			delete(r.sessions, cs)
		default:
		}
	}
}
