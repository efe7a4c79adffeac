package mcp

import (
	"github.com/mcpkit/mcpkit/internal/bridge"
)

// The transports of this module (mcphttp, auth's resource server, the
// reference server's fixtures) drive sessions through the bridge; its
// operations stay out of this package's exported API. A transport outside
// the module implements Transport and Connection instead.
func init() {
	bridge.Register(&bridge.Port[*Server, *ServerSession, *RequestExtra]{
		NewSession:               (*Server).newSession,
		Serve:                    (*Server).markServing,
		HandleRequest:            (*ServerSession).handleRequest,
		HandleNotification:       (*ServerSession).handleNotification,
		HandleResponse:           (*ServerSession).handleResponse,
		HandleStatelessRequest:   (*ServerSession).handleStateless,
		ServeStatelessRequest:    (*Server).serveStateless,
		SetStandalone:            (*ServerSession).setStandalone,
		SyncState:                (*ServerSession).syncState,
		EndSession:               (*Server).endSharedSession,
		ToolInputSchema:          (*Server).toolInputSchema,
		ToolRequiredScopes:       (*Server).toolRequiredScopes,
		StatelessProtocolVersion: statelessProtocolVersion,
		SetCloseStream:           setCloseStream,
		CloseStream:              closeStreamOf,
	})
}

// setCloseStream sets extra's closeStream (extra must not be nil).
func setCloseStream(extra *RequestExtra, f func()) { extra.closeStream = f }

// closeStreamOf returns extra's closeStream, or nil.
func closeStreamOf(extra *RequestExtra) func() {
	if extra == nil {
		return nil
	}
	return extra.closeStream
}
