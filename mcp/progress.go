package mcp

// This file holds progress notifications in both directions
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress):
// Request.ReportProgress for a server handler, ClientSession.NotifyProgress
// for a client answering a server's request, and the server's side of
// receiving them (ServerOptions.ProgressHandler). The client receives them
// through ClientOptions.ProgressHandler, and they may extend a call's
// timeout (client_timeout.go).

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/mcpkit/mcpkit/internal/exactjson"
)

// progressState is the progress sent so far for one request. The mutex is
// held while a notification is written, so that concurrent reports reach
// the wire in the order they were checked.
type progressState struct {
	mu   sync.Mutex
	last float64
	sent bool
}

// ReportProgress sends notifications/progress on the request's stream
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress#progress-flow),
// or nothing without a _meta.progressToken. A value lower than the last
// is refused with ErrProgressDecreased (equal is allowed); NaN and
// infinities are refused; 0 and "" omit total and message. Safe for
// concurrent use, while the handler runs (a task's, until the task ends).
func (r *Request) ReportProgress(ctx context.Context, progress, total float64, message string) error {
	if !r.progressToken.IsValid() || r.progress == nil {
		return nil
	}
	if !finite(progress) || !finite(total) {
		return fmt.Errorf("mcp: progress %v of %v: not a finite number", progress, total)
	}
	st := r.progress
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.sent && progress < st.last {
		return fmt.Errorf("%w: %v after %v", ErrProgressDecreased, progress, st.last)
	}
	st.sent, st.last = true, progress
	return r.Session.notifyRelated(ctx, r.related, "notifications/progress", &ProgressParams{
		ProgressToken: r.progressToken, Progress: progress, Total: total, Message: message,
	})
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// NotifyProgress sends notifications/progress to the server, for a request
// the server sent with _meta.progressToken (such as a long sampling
// request). p.ProgressToken must be that token, and p.Progress must
// increase from one notification to the next
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress#behavior-requirements);
// keeping to that is the caller's part.
func (cs *ClientSession) NotifyProgress(ctx context.Context, p *ProgressParams) error {
	if p == nil || !p.ProgressToken.IsValid() {
		return errors.New("mcp: NotifyProgress: a progress token is required")
	}
	if !finite(p.Progress) || !finite(p.Total) {
		return fmt.Errorf("mcp: NotifyProgress: progress %v of %v: not a finite number", p.Progress, p.Total)
	}
	return cs.notify(ctx, "notifications/progress", p)
}

// progressNotification passes a progress notification from the client to
// ServerOptions.ProgressHandler. Malformed params are ignored, as for any
// notification.
func (s *Server) progressNotification(ctx context.Context, r *Request) {
	var p ProgressParams
	if err := exactjson.Unmarshal(r.Params, &p); err != nil || !p.ProgressToken.IsValid() {
		s.logger.Debug("mcp: malformed notifications/progress ignored", "err", err)
		return
	}
	s.opts.ProgressHandler(ctx, r.Session, &p)
}
