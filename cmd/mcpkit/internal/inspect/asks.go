package inspect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/mcpkit/mcpkit/ext/apps"
	"github.com/mcpkit/mcpkit/mcp"
)

// Ask is a request from the server that waits for the user: an
// elicitation (form or URL mode) or a sampling request
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation,
// https://modelcontextprotocol.io/specification/2025-11-25/client/sampling).
// The page shows it (the "ask" event, and State.Asks for a page opened
// later) and answers it with POST /api/answer; an "ask-done" event says
// it is gone (answered, or the server gave up).
type Ask struct {
	ID string `json:"id"`
	// Kind is elicitation or sampling.
	Kind   string          `json:"kind"`
	Params json.RawMessage `json:"params"`
}

// answer is the body of POST /api/answer: the result, or reject.
type answer struct {
	ID     string          `json:"id"`
	Result json.RawMessage `json:"result,omitempty"`
	// Reject refuses a sampling request (-1 User rejected).
	Reject bool `json:"reject,omitempty"`
}

// asks are the requests waiting for the user.
type asks struct {
	mu      sync.Mutex
	seq     int
	waiting map[string]*waitingAsk
	order   []string
}

type waitingAsk struct {
	ask    Ask
	answer chan answer
}

// list is the waiting asks, oldest first.
func (a *asks) list() []Ask {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]Ask, 0, len(a.order))
	for _, id := range a.order {
		out = append(out, a.waiting[id].ask)
	}
	return out
}

// MaxAsks bounds the server's requests waiting for the user at once; a
// server that sends more gets an error for each one past it.
const MaxAsks = 32

// wait shows the page an ask and waits for its answer, or for ctx (the
// server's request) to end.
func (in *Inspector) wait(ctx context.Context, kind string, params any) (answer, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return answer{}, err
	}
	a := &in.asks
	a.mu.Lock()
	if len(a.waiting) >= MaxAsks {
		a.mu.Unlock()
		return answer{}, fmt.Errorf("mcpkit inspect: %d requests already wait for the user", MaxAsks)
	}
	a.seq++
	w := &waitingAsk{ask: Ask{ID: "a" + strconv.Itoa(a.seq), Kind: kind, Params: raw}, answer: make(chan answer, 1)}
	if a.waiting == nil {
		a.waiting = map[string]*waitingAsk{}
	}
	a.waiting[w.ask.ID] = w
	a.order = append(a.order, w.ask.ID)
	a.mu.Unlock()
	in.hub.publish("ask", w.ask, false)
	defer func() {
		a.mu.Lock()
		delete(a.waiting, w.ask.ID)
		for i, id := range a.order {
			if id == w.ask.ID {
				a.order = append(a.order[:i], a.order[i+1:]...)
				break
			}
		}
		a.mu.Unlock()
		in.hub.publish("ask-done", map[string]string{"id": w.ask.ID}, false)
	}()
	select {
	case ans := <-w.answer:
		return ans, nil
	case <-ctx.Done():
		return answer{}, context.Cause(ctx)
	}
}

// apiAnswer is POST /api/answer.
func (in *Inspector) apiAnswer(w http.ResponseWriter, r *http.Request) {
	var body answer
	if !decodeBody(w, r, &body) {
		return
	}
	a := &in.asks
	a.mu.Lock()
	wa, ok := a.waiting[body.ID]
	if ok {
		delete(a.waiting, body.ID) // one answer only
	}
	a.mu.Unlock()
	if !ok {
		httpError(w, http.StatusNotFound, "no request "+quote(body.ID)+" waits for an answer")
		return
	}
	wa.answer <- body
	writeJSON(w, http.StatusOK, map[string]string{"id": body.ID})
}

// clientHandlers are the ClientOptions that pass the server's requests to
// the user: elicitation in both modes, sampling, and the roots the user
// configured (declared always, so that the user can change them live).
func (in *Inspector) clientHandlers(opts *mcp.ClientOptions) {
	elicit := func(ctx context.Context, _ *mcp.ClientSession, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		ans, err := in.wait(ctx, "elicitation", p)
		if err != nil {
			return nil, err
		}
		var res mcp.ElicitResult
		if err := json.Unmarshal(ans.Result, &res); err != nil {
			return nil, fmt.Errorf("mcpkit inspect: the page's answer: %w", err)
		}
		return &res, nil
	}
	opts.ElicitationHandler = elicit
	opts.URLElicitationHandler = elicit
	opts.ElicitationApplyDefaults = false
	opts.CreateMessageHandler = func(ctx context.Context, _ *mcp.ClientSession, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		ans, err := in.wait(ctx, "sampling", p)
		if err != nil {
			return nil, err
		}
		if ans.Reject {
			return nil, mcp.UserRejectedSamplingError()
		}
		var res mcp.CreateMessageResult
		if err := json.Unmarshal(ans.Result, &res); err != nil {
			return nil, fmt.Errorf("mcpkit inspect: the page's answer: %w", err)
		}
		if res.Model == "" || len(res.Content) == 0 {
			return nil, errors.New("mcpkit inspect: the page's answer has no model or no content")
		}
		return &res, nil
	}
	in.mu.Lock()
	opts.Roots = in.roots
	in.mu.Unlock()
}

// declareExtensions adds the extensions the inspector's client declares
// to opts.Extensions, beside the capabilities mcp infers from
// clientHandlers' options: MCP Apps always (the page renders them,
// apps.go), and the stateless era's tasks extension when tasks is set.
func declareExtensions(opts *mcp.ClientOptions, tasks bool) {
	apps.DeclareHost(opts)
	if tasks {
		opts.Extensions[mcp.TasksExtensionID] = nil
	}
}

// apiRoots is POST /api/roots {"roots":[{"uri","name"}]}: the roots the
// client shares, from the next connection on, and at once with the
// current one (notifications/roots/list_changed) when it declared roots.
func (in *Inspector) apiRoots(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Roots []*mcp.Root `json:"roots"`
	}
	if !decodeBody(w, r, &body) {
		return
	}
	if body.Roots == nil {
		body.Roots = []*mcp.Root{}
	}
	for _, root := range body.Roots {
		if root == nil || len(root.URI) < len("file://") || root.URI[:len("file://")] != "file://" {
			httpError(w, http.StatusBadRequest, "every root must be a file:// URI")
			return
		}
	}
	in.mu.Lock()
	in.roots = body.Roots
	c := in.conn
	in.mu.Unlock()
	live := false
	if c != nil && c.cs.Client().Roots() != nil {
		if err := c.cs.Client().SetRoots(r.Context(), body.Roots...); err != nil {
			httpError(w, http.StatusBadGateway, err.Error())
			return
		}
		live = true
	}
	writeJSON(w, http.StatusOK, map[string]any{"roots": body.Roots, "live": live})
}
