// Package mcp implements the Model Context Protocol
// (https://modelcontextprotocol.io/specification/2025-11-25), both sides of
// it: a [Server] that offers tools, resources and prompts to AI
// applications, and a [Client] that connects to servers and uses what they
// offer. The types of the protocol (tools, contents, requests and results)
// are Go types here; JSON-RPC itself is package jsonrpc, and the Streamable
// HTTP transport is package mcphttp.
//
// # Servers
//
// [NewServer] makes a server; features are added to it, then it serves any
// number of sessions over any transports:
//
//	s := mcp.NewServer(mcp.Implementation{Name: "notes", Version: "1.0.0"}, nil)
//	mcp.AddTool(s, &mcp.Tool{Name: "add_note"}, addNote) // func(ctx, *mcp.Request, In) (Out, error)
//	s.Run(ctx, &mcp.StdioTransport{})
//
// Every handler gets a [*Request]: the params, the protocol version and the
// client's capabilities, and the means to talk back while it runs
// ([Request.ReportProgress], [Request.Log], [Request.Elicit] and the
// others below). The same handler serves stdio, in-memory, Streamable HTTP
// and both protocol eras unchanged. [ServerOptions] configures the server;
// its zero value is useful, and every bound it holds has a default.
//
// # Clients
//
// [NewClient] makes a client; [Client.Connect] opens a [ClientSession] over a
// transport, whose methods are the requests of the protocol
// ([ClientSession.CallTool], [ClientSession.ReadResource],
// [ClientSession.GetPrompt], ...; the list methods also come as iterators
// over every page, such as [ClientSession.Tools]). What a server sends on
// its own (notifications, and requests for sampling, elicitation and roots)
// reaches the callbacks of [ClientOptions]. A call ends with a result, a
// [*jsonrpc.Error] from the server, or an error when its ctx ends, the
// connection fails or [ClientOptions].RequestTimeout passes (zero: no
// timeout but ctx's).
//
// # Transports
//
//   - [StdioTransport]: a server on its own stdin and stdout, the usual way a
//     host runs a local server (Server.Run).
//   - [CommandTransport]: a client that starts a server as a child process
//     and speaks over its stdin and stdout.
//   - [NewInMemoryTransports]: a connected pair, for tests and for a server
//     embedded in the same process as its client.
//   - Streamable HTTP is package mcphttp: its Handler serves a Server on any
//     path, and its ClientTransport connects a Client to a URL.
//
// Other transports implement [Transport] and [Connection].
//
// # Two protocol eras
//
// MCP has two eras, and a Server serves both on every transport without
// being told which:
//
//   - The session era (2024-11-05, 2025-03-26, 2025-06-18 and 2025-11-25):
//     initialize opens a session ([ServerSession] on the server), which
//     holds the negotiated version, the client's capabilities, its log
//     level and its resource subscriptions; the server may send requests of
//     its own (sampling, elicitation, roots) while a call runs.
//   - The stateless era (2026-07-28,
//     https://modelcontextprotocol.io/specification/2026-07-28): no
//     handshake; every request carries its version, the client's
//     capabilities and its log level in _meta; server/discover describes
//     the server; a handler that needs input from the user returns an
//     input_required result which the client answers by retrying the
//     request; subscriptions/listen carries the change notifications.
//
// The era is decided per message: initialize selects the session era, a
// request with the stateless era's _meta is served statelessly.
// [Request.Stateless] tells a handler which one it serves, and the
// handler-side helpers ([Request.Elicit], [Request.CreateMessage],
// [Request.ListRoots], [Request.Log]) work in both. A Client speaks the
// stateless era to a server that answers server/discover and the session
// era to one that does not ([ClientOptions].ProtocolEra, [ProtocolEra]).
//
// # Where each feature lives
//
//   - Tools: [AddTool] (typed: schemas inferred from Go types, arguments
//     validated, a struct result sent as structuredContent) or
//     [Server.AddTool] (raw JSON); client [ClientSession.CallTool],
//     [ClientSession.Tools].
//   - Resources: [Server.AddResource]; client [ClientSession.ReadResource],
//     [ClientSession.Resources]. A missing resource is
//     [ResourceNotFoundError].
//   - Resource templates: [Server.AddResourceTemplate] (RFC 6570; the
//     matched variables are in [ReadResourceParams].Variables); client
//     [ClientSession.ResourceTemplates].
//   - Prompts: [AddPrompt] (arguments from a struct's fields) or
//     [Server.AddPrompt]; client [ClientSession.GetPrompt],
//     [ClientSession.Prompts].
//   - Completion: [ServerOptions].CompletionHandler; client
//     [ClientSession.Complete].
//   - Logging: [ServerOptions].Logging declares it (without it
//     [Request.Log] sends nothing), [Request.Log] and
//     [NewLoggingHandler] (log/slog) send; client
//     [ClientOptions].LoggingMessageHandler receives, and in the stateless
//     era [ClientOptions].LogLevel asks for them (a request without a level
//     gets none).
//   - Progress: [Request.ReportProgress]; client [RequestMeta].ProgressToken
//     and [ClientOptions].ProgressHandler.
//   - Cancellation: cancel the context of a client call; the handler's ctx
//     ends. [WithRequestTimeout] and [ClientOptions].RequestTimeout bound a
//     call.
//   - Sampling, elicitation and roots: [Request.CreateMessage],
//     [Request.Elicit], [Request.ListRoots] and [Request.Input] on the
//     server; [ClientOptions].CreateMessageHandler, ElicitationHandler and
//     Roots on the client.
//   - Tasks (experimental): [Tool].Execution, [ServerOptions].Tasks,
//     [TaskStore]; client [ClientSession.CallToolAsTask],
//     [ClientSession.GetTask], [ClientSession.GetTaskResult].
//   - Change notifications: [Server.ResourceUpdated] and the list_changed
//     notifications the Add and Remove methods send; client
//     [ClientSession.Subscribe] (session era) and [ClientSession.Listen]
//     (subscriptions/listen, stateless era).
//   - Middleware: [ServerOptions].Middleware and SendingMiddleware around
//     every request the server handles or sends; [ClientOptions].Middleware
//     and SendingMiddleware on the client.
//   - Limits: every resource a client can make the server hold has a bound
//     in [ServerOptions] (MaxInFlightRequests, MaxConcurrentRequests,
//     MaxClientStateBytes, MaxQueuedNotifications, MaxResourceURIBytes,
//     PageSize), [TaskOptions] and [StdioTransport].MaxMessageBytes, each
//     with a documented default and a precise error when reached.
//
// # Errors
//
// A tool's ordinary Go error becomes a result with isError set, for the
// model to read; a [*jsonrpc.Error] returned by any handler is sent as a
// JSON-RPC error, as are the protocol's own refusals. A panic in a handler
// or callback is recovered: the request is answered -32603 "Internal
// error" and the session goes on.
package mcp
