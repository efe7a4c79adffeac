package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/cmd/mcpkit/internal/demoapp"
	"github.com/mcpkit/mcpkit/ext/servercard"
	"github.com/mcpkit/mcpkit/internal/everything"
	"github.com/mcpkit/mcpkit/internal/httpguard"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
	"github.com/mcpkit/mcpkit/mcpsse"
	"github.com/mcpkit/mcpkit/redisstore"
)

// serveFlags are the options of `mcpkit serve`: stdio by default, or
// Streamable HTTP with --http ADDR.
type serveFlags struct {
	logLevel       slog.Level
	httpAddr       string
	path           string
	ssePath        string
	messagesPath   string
	stateless      bool
	jsonResponse   bool
	maxSessions    int
	idleTimeout    time.Duration
	allowedOrigins stringList

	// Session quotas and the connection bound (docs/limits.md).
	maxSessionsPerPrincipal int
	maxSessionsPerAddress   int
	trustedProxies          prefixList
	maxConns                int

	connIdleTimeout   time.Duration
	readHeaderTimeout time.Duration
	maxHeaderBytes    int
	shutdownTimeout   time.Duration

	// OAuth 2.1 resource server (docs/auth.md): on when authIssuer is set.
	authIssuer   string
	authAudience string
	authScopes   string
	authJWKSURL  string

	// otel exports traces and metrics with OTLP (otel.go); tel is what it
	// set up.
	otel bool
	tel  *serveTelemetry

	// redis shares the server's state through Redis (redis.go); rb is
	// what it connected.
	redis redisFlags
	rb    *redisBackend
}

// cardName is the reference server's name in its Server Card, in the
// reverse-DNS form a card requires.
const cardName = "io.github.mcpkit/everything"

// The defaults of serve --http's connection limits.
const (
	// defaultConnIdleTimeout closes a keep-alive connection idle this
	// long, so that idle clients cannot hold the process's file
	// descriptors (http.Server.IdleTimeout).
	defaultConnIdleTimeout = 2 * time.Minute
	// defaultReadHeaderTimeout bounds the reading of a request's headers
	// (http.Server.ReadHeaderTimeout). There is deliberately no
	// ReadTimeout or WriteTimeout: they would cut SSE streams and long
	// requests; the handler bounds the reading of each body.
	defaultReadHeaderTimeout = 10 * time.Second
	// defaultMaxHeaderBytes bounds a request's headers
	// (http.Server.MaxHeaderBytes); a request over it gets 431.
	defaultMaxHeaderBytes = 256 << 10
	// defaultShutdownTimeout is how long SIGINT or SIGTERM lets the
	// requests in flight finish before their connections are closed.
	defaultShutdownTimeout = 10 * time.Second
)

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// prefixList is a repeatable flag of networks (CIDR) or addresses.
type prefixList []netip.Prefix

func (l *prefixList) String() string {
	var s []string
	for _, p := range *l {
		s = append(s, p.String())
	}
	return strings.Join(s, ",")
}

func (l *prefixList) Set(v string) error {
	p, err := netip.ParsePrefix(v)
	if err != nil {
		a, aerr := netip.ParseAddr(v)
		if aerr != nil {
			return fmt.Errorf("%q is neither a network (CIDR) nor an address", v)
		}
		p = netip.PrefixFrom(a, a.BitLen())
	}
	*l = append(*l, p.Masked())
	return nil
}

func (f *serveFlags) flagSet() *flag.FlagSet {
	fs := newFlagSet("serve")
	fs.TextVar(&f.logLevel, "log-level", slog.LevelInfo, "log `LEVEL` on stderr: debug, info, warn or error")
	fs.StringVar(&f.httpAddr, "http", "", "serve Streamable HTTP on `ADDR` (such as 127.0.0.1:8080) instead of stdio")
	fs.StringVar(&f.path, "path", "/mcp", "with --http, the `PATH` of the MCP endpoint")
	fs.StringVar(&f.ssePath, "sse-path", "/sse", "with --http, also serve the 2024-11-05 HTTP+SSE transport for older clients: the `PATH` of its GET stream (empty: not served; without --stateless or --auth-issuer, which turn it off: given with either, it is refused)")
	fs.StringVar(&f.messagesPath, "messages-path", "/messages", "with --http and --sse-path, the `PATH` HTTP+SSE clients POST their messages to")
	fs.BoolVar(&f.stateless, "stateless", false, "with --http, keep no sessions: every POST stands alone")
	fs.BoolVar(&f.jsonResponse, "json-response", false, "with --http, answer POSTs with one JSON body instead of an SSE stream")
	fs.IntVar(&f.maxSessions, "max-sessions", mcphttp.DefaultMaxSessions, "with --http, the most sessions open at once")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", mcphttp.DefaultIdleTimeout, "with --http, close sessions idle this long (negative: never)")
	fs.IntVar(&f.maxSessionsPerPrincipal, "max-sessions-per-principal", 0, "with --http, the most sessions one authenticated user may hold at once (429 past it; 0: a quarter of --max-sessions, 1 to 100; negative: no cap)")
	fs.IntVar(&f.maxSessionsPerAddress, "max-sessions-per-address", 0, "with --http, the most anonymous sessions one client address may hold at once (429 past it; 0: no cap)")
	fs.Var(&f.trustedProxies, "trusted-proxy", "with --http, believe the X-Forwarded-For of peers in this `CIDR` (a reverse proxy) for --max-sessions-per-address (repeatable)")
	fs.IntVar(&f.maxConns, "max-conns", defaultMaxConns(), "with --http, the most connections open at once; past it a new connection is closed at once (by default the open-file limit less an eighth of it, or less 64 if that is more; negative: no bound)")
	fs.Var(&f.allowedOrigins, "allowed-origin", "with --http, also accept requests with this Origin `URL` (repeatable)")
	fs.DurationVar(&f.connIdleTimeout, "conn-idle-timeout", defaultConnIdleTimeout, "with --http, close keep-alive connections idle this long")
	fs.DurationVar(&f.readHeaderTimeout, "read-header-timeout", defaultReadHeaderTimeout, "with --http, the time a client has to send a request's headers")
	fs.IntVar(&f.maxHeaderBytes, "max-header-bytes", defaultMaxHeaderBytes, "with --http, the most bytes of headers a request may have (431 past it)")
	fs.DurationVar(&f.shutdownTimeout, "shutdown-timeout", defaultShutdownTimeout, "with --http, on SIGINT or SIGTERM, how long requests in flight get to finish before their connections are closed")
	fs.StringVar(&f.authIssuer, "auth-issuer", "", "with --http, require OAuth 2.1 access tokens (JWTs) issued by the authorization server `URL` (see docs/auth.md; `mcpkit dev-auth-server` runs one for development)")
	fs.StringVar(&f.authAudience, "auth-audience", "", "with --auth-issuer, this server's canonical `URI`, which tokens must name in their audience (RFC 8707); if empty, http://ADDR/PATH as served")
	fs.StringVar(&f.authScopes, "auth-scopes", "", "with --auth-issuer, the `SCOPES` (comma-separated) every request's token must grant")
	fs.StringVar(&f.authJWKSURL, "auth-jwks-url", "", "with --auth-issuer, where the issuer's signing keys are (`URL`); if empty, the jwks_uri of its metadata")
	fs.BoolVar(&f.otel, "otel", false, "export traces and metrics with OTLP over HTTP, configured by the standard OTEL_* environment variables (OTEL_EXPORTER_OTLP_ENDPOINT, default http://localhost:4318; OTEL_TRACES_EXPORTER and OTEL_METRICS_EXPORTER: otlp, console (lines on stderr) or none)")
	fs.StringVar(&f.redis.url, "redis", "", "with --http, keep sessions, SSE events, tasks and the replicas' messages in the Redis at `URL` (redis://[USER:PASSWORD@]HOST:PORT/DB, or HOST:PORT for redis://HOST:PORT), so that replicas of this server behind any load balancer serve every session; the HTTP+SSE transport (--sse-path) stays in each replica's memory (not with --stateless)")
	fs.StringVar(&f.redis.cluster, "redis-cluster", "", "as --redis, on the Redis Cluster whose seed addresses are `ADDRS` (host:port,host:port,...)")
	fs.StringVar(&f.redis.prefix, "redis-prefix", redisstore.DefaultPrefix, "with --redis or --redis-cluster, the `PREFIX` of every key and channel: replicas with the same Redis and prefix share their sessions")
	fs.DurationVar(&f.redis.timeout, "redis-timeout", defaultRedisTimeout, "with --redis or --redis-cluster, the most each call to Redis may take (the PING at start too); past it a request gets 503 with Retry-After")
	return fs
}

// serve runs the reference server until its input ends or ctx is done.
// Logs go to stderr through slog: stdout belongs to the protocol.
func serve(ctx context.Context, e *env, args []string) error {
	var f serveFlags
	fs := f.flagSet()
	positional, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usagef("serve: unexpected argument %q", positional[0])
	}
	if err := f.checkHTTP(fs); err != nil {
		return err
	}
	if err := f.redis.check(&f); err != nil {
		return err
	}
	// A closed stderr (a client that closed the pipe, as mcp-go's stdio
	// client does on Close) must not kill the server: the Go runtime
	// kills a program that writes to a broken pipe on fd 1 or 2 with
	// SIGPIPE unless SIGPIPE is being notified, when the write fails
	// with EPIPE instead (os/signal, "SIGPIPE"); the log writer then
	// swallows the error. A broken stdout then ends the session like
	// any failed write.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	logger := slog.New(slog.NewTextHandler(&logSink{w: e.stderr}, &slog.HandlerOptions{Level: f.logLevel}))
	sopts := &mcp.ServerOptions{Logger: logger}
	if f.otel {
		if f.tel, err = newServeTelemetry(ctx, logger, &logSink{w: e.stderr}); err != nil {
			return err
		}
		f.tel.instrument(sopts)
		logger = sopts.Logger
		defer func() {
			if err := f.tel.shutdown(); err != nil {
				logger.Warn("mcpkit serve: " + err.Error())
			}
		}()
	}
	if f.redis.on() {
		if f.rb, err = dialRedis(ctx, &f.redis, &f, logger); err != nil {
			return err
		}
		defer f.rb.close()
		f.rb.server(sopts)
	}
	// The demo MCP App (cmd/mcpkit/internal/demoapp), hidden from hosts
	// that do not render apps.
	sopts.Middleware = append(sopts.Middleware, demoapp.Middleware)
	s := everything.NewServer(&everything.Options{ServerOptions: sopts})
	if err := demoapp.Add(s); err != nil {
		return fmt.Errorf("mcpkit serve: the demo app: %w", err)
	}
	if f.httpAddr != "" {
		return serveHTTP(ctx, s, &f, logger)
	}
	t := &mcp.StdioTransport{In: e.stdin, Out: e.stdout}
	logger.Info("mcpkit serve: serving the reference server", "transport", "stdio", "server", everything.Name, "version", everything.Version)

	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, t) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		// A read from the process's stdin cannot be interrupted; the
		// process is about to exit anyway.
		logger.Info("mcpkit serve: stopping", "reason", context.Cause(ctx))
		return nil
	}
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	logger.Info("mcpkit serve: input closed, exiting")
	return nil
}

// checkHTTP refuses, as usage errors, an --http that is not HOST:PORT
// and an --sse-path given with a flag that turns HTTP+SSE off: the
// transport keeps a session per stream, so it is not served with
// --stateless, and it has no authorization, so it is not served with
// --auth-issuer.
func (f *serveFlags) checkHTTP(fs *flag.FlagSet) error {
	if f.httpAddr != "" {
		if _, _, err := net.SplitHostPort(f.httpAddr); err != nil {
			if strings.Trim(f.httpAddr, "0123456789") == "" {
				return usagef("serve: --http %q: want HOST:PORT; did you mean 127.0.0.1:%s or :%s?", f.httpAddr, f.httpAddr, f.httpAddr)
			}
			msg := err.Error()
			if addrErr, ok := errors.AsType[*net.AddrError](err); ok {
				msg = addrErr.Err
			}
			return usagef("serve: --http %q: want HOST:PORT, such as 127.0.0.1:8080 (%s)", f.httpAddr, msg)
		}
	}
	sseGiven := false
	fs.Visit(func(fl *flag.Flag) { sseGiven = sseGiven || fl.Name == "sse-path" })
	switch {
	case !sseGiven || f.ssePath == "":
	case f.stateless:
		return usagef("serve: --sse-path %q does not go with --stateless: the HTTP+SSE transport keeps a session per stream (give one of the two)", f.ssePath)
	case f.authIssuer != "":
		return usagef("serve: --sse-path %q does not go with --auth-issuer: the HTTP+SSE transport has no authorization (give one of the two)", f.ssePath)
	}
	return nil
}

// resourceServer makes the reference server an OAuth 2.1 resource server
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization):
// JWT access tokens from --auth-issuer, for --auth-audience (by default
// served, the URL it is served at), granting --auth-scopes.
func resourceServer(s *mcp.Server, f *serveFlags, served string) (*auth.ResourceServer, error) {
	resource := f.authAudience
	if resource == "" {
		resource = served
	}
	scopes := splitList(f.authScopes)
	verifier, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: f.authIssuer, Resource: resource, JWKSURL: f.authJWKSURL})
	if err != nil {
		return nil, err
	}
	return auth.NewResourceServer(auth.ResourceServerConfig{
		Resource:             resource,
		AuthorizationServers: []string{f.authIssuer},
		Verifier:             verifier,
		Scopes:               scopes,
		Server:               s,
		ResourceName:         "mcpkit reference server",
	})
}

// logSink is the log output: a failed write (stderr closed) is swallowed,
// and later ones are not tried; logs must never stop the server.
type logSink struct {
	mu     sync.Mutex
	w      io.Writer
	broken bool
}

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.broken {
		if _, err := l.w.Write(p); err != nil {
			l.broken = true
		}
	}
	return len(p), nil
}

// serveHTTP serves s over Streamable HTTP until ctx is done (SIGINT or
// SIGTERM), then shuts down gracefully: the listener closes, the handler
// and the server let requests in flight finish for --shutdown-timeout,
// and then close whatever is left.
func serveHTTP(ctx context.Context, s *mcp.Server, f *serveFlags, logger *slog.Logger) error {
	ln, err := net.Listen("tcp", f.httpAddr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	ln = newLimitListener(ln, f.maxConns, func(n int64) {
		if n&(n-1) == 0 { // 1, 2, 4, 8...: a flood does not flood the log
			logger.Warn("mcpkit serve: connection refused: --max-conns reached", "max_conns", f.maxConns, "refused", n)
		}
	})
	opts := &mcphttp.Options{
		Stateless:      f.stateless,
		JSONResponse:   f.jsonResponse,
		MaxSessions:    f.maxSessions,
		IdleTimeout:    f.idleTimeout,
		AllowedOrigins: f.allowedOrigins,
		EventStore:     &mcphttp.MemoryEventStore{},
		Logger:         logger,

		MaxSessionsPerPrincipal: f.maxSessionsPerPrincipal,
		MaxSessionsPerAddress:   f.maxSessionsPerAddress,
		TrustedProxies:          f.trustedProxies,
	}
	redisName := ""
	if f.rb != nil {
		f.rb.handler(opts)
		redisName = f.rb.name
	}
	mux := http.NewServeMux()
	if f.authIssuer != "" {
		rs, err := resourceServer(s, f, "http://"+ln.Addr().String()+f.path)
		if err != nil {
			ln.Close()
			return fmt.Errorf("serve: %w", err)
		}
		auth.Protect(opts, rs)
		for _, path := range rs.MetadataPaths() {
			mux.Handle(path, rs.MetadataHandler())
		}
		logger.Info("mcpkit serve: OAuth 2.1 access tokens required", "issuer", f.authIssuer, "metadata", rs.MetadataURL(), "scopes", f.authScopes)
	}
	h := mcphttp.NewHandler(s, opts)
	mux.Handle(f.path, h)
	// Older clients get the 2024-11-05 HTTP+SSE transport beside
	// Streamable HTTP, as the spec's backwards-compatibility section
	// describes; it has sessions and no authorization, so it is not
	// served with --stateless or --auth-issuer.
	var sse *mcpsse.Handler
	sseURL := ""
	if f.ssePath != "" && !f.stateless && f.authIssuer == "" {
		sse = mcpsse.NewHandler(s, &mcpsse.Options{
			MessagePath:    f.messagesPath,
			MaxSessions:    f.maxSessions,
			IdleTimeout:    f.idleTimeout,
			AllowedOrigins: f.allowedOrigins,
			Logger:         logger,

			MaxSessionsPerAddress: f.maxSessionsPerAddress,
			TrustedProxies:        f.trustedProxies,
		})
		mux.Handle(f.ssePath, sse)
		if f.messagesPath != f.ssePath {
			mux.Handle(f.messagesPath, sse)
		}
		defer sse.Close()
		sseURL = "http://" + ln.Addr().String() + f.ssePath
	}
	if f.tel != nil {
		if err := f.tel.observe(h); err != nil {
			ln.Close()
			return err
		}
	}

	// The Server Card (SEP-2127, a draft) at PATH/server-card and the
	// catalog at /.well-known/mcp/catalog.json; every other path goes
	// to the mux.
	endpoint := "http://" + ln.Addr().String() + f.path
	withCard, err := servercard.Handler(mux, servercard.FromServer(s, servercard.Info{
		Name: cardName,
		URL:  endpoint,
	}), &servercard.Options{Path: f.path})
	if err != nil {
		ln.Close()
		return fmt.Errorf("serve: %w", err)
	}

	srv := &http.Server{
		// Every path, the mux's 404 included, closes the connection after
		// a chunked request, so that none can carry a smuggled one.
		Handler:           httpguard.CloseChunkedHandler(withCard),
		IdleTimeout:       f.connIdleTimeout,
		ReadHeaderTimeout: f.readHeaderTimeout,
		MaxHeaderBytes:    f.maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	logger.Info("mcpkit serve: serving the reference server", "transport", "http",
		"url", endpoint, "server_card", endpoint+servercard.CardSuffix, "http_sse", sseURL, "stateless", f.stateless, "json_response", f.jsonResponse, "redis", redisName,
		"server", everything.Name, "version", everything.Version)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		h.Close()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("mcpkit serve: shutting down", "reason", context.Cause(ctx), "timeout", f.shutdownTimeout)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), f.shutdownTimeout)
	defer cancel()
	// The handler ends its streams, so that the server's Shutdown, which
	// waits for every response to end, can finish.
	handlerDone := make(chan error, 1)
	go func() { handlerDone <- h.Shutdown(shutdownCtx) }()
	if sse != nil {
		go sse.Close() // its streams are its sessions: they end now
	}
	srvErr := srv.Shutdown(shutdownCtx)
	select {
	case err := <-handlerDone:
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			logger.Warn("mcpkit serve: handler shutdown", "err", err)
		}
	case <-shutdownCtx.Done():
	}
	if shutdownCtx.Err() != nil {
		// Clients that still hold connections lose them: the process
		// exits within --shutdown-timeout whatever they do.
		logger.Warn("mcpkit serve: shutdown timed out; closing the connections left")
		srv.Close()
	} else if srvErr != nil {
		return fmt.Errorf("serve: shutdown: %w", srvErr)
	}
	<-done
	logger.Info("mcpkit serve: stopped")
	return nil
}

// splitList splits a comma-separated flag value, trimming spaces and
// dropping empty items ("a, b,," is [a b]).
func splitList(s string) []string {
	var items []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	return items
}
