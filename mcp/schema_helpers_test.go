package mcp_test

// This file holds the helpers of the schema test (schema_test.go): loading
// the 2025-11-25 JSON Schema of the protocol and validating a frame against
// one of its definitions, and a raw client end that drives a real Server
// over the in-memory transport, so that the bytes validated are exactly the
// bytes the server writes, and a raw server end that does the same for the
// messages a Client writes. Every helper is prefixed "schema" so that it does
// not clash with other test files of package mcp_test.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// schemaFile is a copy of ../shared/spec/schema/2025-11-25/schema.json,
// kept in the repository so that the test runs on a clean clone.
const schemaFile = "testdata/schema/2025-11-25/schema.json"

// schemaWatchdog bounds how long a read waits for a frame that should come.
// It only turns a hang into a failure with a message; nothing asserts on
// time.
const schemaWatchdog = 30 * time.Second

// schemaSpec validates JSON instances against the definitions ($defs) of
// the MCP schema.
//
// The schema declares "$schema": "https://json-schema.org/draft/2020-12/schema",
// which github.com/google/jsonschema-go supports (it supports draft 2020-12
// and draft-07), so the file is used as it is: to validate against one
// definition, a small wrapper schema of the same draft holds all of $defs
// and "$ref"s the definition, so that every "#/$defs/..." reference inside
// resolves unchanged.
//
// The strict variant adds one constraint the spec does not make: every
// top-level definition that lists its properties and says nothing about
// others gets "additionalProperties": false. The spec lets peers add
// members, but a member mcpkit emits that the schema does not name is
// almost always a misspelt field (say "mimetype"), which the loose schema
// cannot see. Definitions that take part in an allOf are left open, since
// closing one part of an allOf would reject the members of the others.
// Nested inline schemas stay open too (Tool.inputSchema, for one, is an
// arbitrary JSON Schema).
type schemaSpec struct {
	draft  any
	loose  map[string]any // $defs as in the file
	strict map[string]any // $defs with top-level objects closed

	mu       sync.Mutex
	resolved map[string]*jsonschema.Resolved // by "strict:"/"loose:" + definition
}

var (
	schemaOnce   sync.Once
	schemaLoaded *schemaSpec
	schemaErr    error
)

// schemaLoad reads and prepares the schema once per test binary.
func schemaLoad(t testing.TB) *schemaSpec {
	t.Helper()
	schemaOnce.Do(func() {
		schemaLoaded, schemaErr = schemaRead(schemaFile)
	})
	if schemaErr != nil {
		t.Fatalf("loading the MCP schema: %v", schemaErr)
	}
	return schemaLoaded
}

func schemaRead(path string) (*schemaSpec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	if root["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		return nil, fmt.Errorf("%s declares $schema %v; jsonschema-go supports draft 2020-12 and draft-07, check before relying on it", path, root["$schema"])
	}
	defs, ok := root["$defs"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s has no $defs", path)
	}
	// A second, independent copy for the strict variant.
	var strictRoot map[string]any
	_ = json.Unmarshal(data, &strictRoot)
	strict := strictRoot["$defs"].(map[string]any)
	inAllOf := map[string]bool{}
	schemaWalk(defs, func(node map[string]any) {
		parts, _ := node["allOf"].([]any)
		for _, p := range parts {
			if ref, ok := p.(map[string]any)["$ref"].(string); ok {
				inAllOf[ref[len("#/$defs/"):]] = true
			}
		}
	})
	for name, def := range strict {
		d, ok := def.(map[string]any)
		if !ok || inAllOf[name] {
			continue
		}
		if _, hasProps := d["properties"]; !hasProps {
			continue
		}
		if _, said := d["additionalProperties"]; said {
			continue
		}
		d["additionalProperties"] = false
	}
	return &schemaSpec{
		draft:    root["$schema"],
		loose:    defs,
		strict:   strict,
		resolved: map[string]*jsonschema.Resolved{},
	}, nil
}

// schemaWalk calls fn for every object node of a decoded JSON value.
func schemaWalk(v any, fn func(map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		fn(v)
		for _, x := range v {
			schemaWalk(x, fn)
		}
	case []any:
		for _, x := range v {
			schemaWalk(x, fn)
		}
	}
}

// resolve returns the resolved schema of one definition.
func (s *schemaSpec) resolve(def string, strict bool) (*jsonschema.Resolved, error) {
	key := "loose:" + def
	defs := s.loose
	if strict {
		key, defs = "strict:"+def, s.strict
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if rs, ok := s.resolved[key]; ok {
		return rs, nil
	}
	if _, ok := defs[def]; !ok {
		return nil, fmt.Errorf("the schema has no definition %q", def)
	}
	wrapper, err := json.Marshal(map[string]any{
		"$schema": s.draft,
		"$ref":    "#/$defs/" + def,
		"$defs":   defs,
	})
	if err != nil {
		return nil, err
	}
	var sch jsonschema.Schema
	if err := json.Unmarshal(wrapper, &sch); err != nil {
		return nil, err
	}
	rs, err := sch.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", def, err)
	}
	s.resolved[key] = rs
	return rs, nil
}

// validate checks raw JSON against definition def of the spec's schema,
// then against the strict variant. It reports every problem with the
// instance, so a failure shows what was sent.
func (s *schemaSpec) validate(t testing.TB, def string, raw []byte) {
	t.Helper()
	var instance any
	if err := json.Unmarshal(raw, &instance); err != nil {
		t.Errorf("%s: not JSON: %v\n%s", def, err, raw)
		return
	}
	rs, err := s.resolve(def, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(instance); err != nil {
		t.Errorf("does not validate against %s of the 2025-11-25 schema:\n%v\ninstance: %s", def, err, raw)
		return
	}
	rs, err = s.resolve(def, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(instance); err != nil {
		t.Errorf("has a member that %s of the 2025-11-25 schema does not name (strict check):\n%v\ninstance: %s", def, err, raw)
	}
}

// schemaConn is the client end of one session with a real Server: it
// writes raw frames and reads the frames the server writes, in order.
type schemaConn struct {
	t      testing.TB
	ss     *mcp.ServerSession
	conn   mcp.Connection
	nextID int
}

// schemaConnect serves one session of srv over the in-memory transport and
// returns its client end. The session ends with the test.
func schemaConnect(t testing.TB, srv *mcp.Server) *schemaConn {
	t.Helper()
	clientT, serverT := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, serverT)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := clientT.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		_ = ss.Wait()
	})
	return &schemaConn{t: t, ss: ss, conn: conn}
}

// send writes one raw frame.
func (c *schemaConn) send(frame string) {
	c.t.Helper()
	if err := c.conn.Write(context.Background(), []byte(frame)); err != nil {
		c.t.Fatalf("writing %s: %v", frame, err)
	}
}

// read returns the next frame the server writes.
func (c *schemaConn) read() []byte {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), schemaWatchdog)
	defer cancel()
	frame, err := c.conn.Read(ctx)
	if err != nil {
		c.t.Fatalf("reading a frame from the server: %v", err)
	}
	return frame
}

// request sends a request with the next integer id and params (raw JSON,
// or "" for none) and returns the id's JSON text.
func (c *schemaConn) request(method, params string) string {
	c.t.Helper()
	c.nextID++
	id := strconv.Itoa(c.nextID)
	frame := `{"jsonrpc":"2.0","id":` + id + `,"method":` + strconv.Quote(method)
	if params != "" {
		frame += `,"params":` + params
	}
	c.send(frame + "}")
	return id
}

// call sends a request and returns the next frame, its response.
func (c *schemaConn) call(method, params string) []byte {
	c.t.Helper()
	c.request(method, params)
	return c.read()
}

// schemaInitParams asks for version v as a client with no capabilities.
func schemaInitParams(v string) string {
	return `{"protocolVersion":"` + v + `","capabilities":{},"clientInfo":{"name":"schema-test","version":"1.0.0"}}`
}

// initialize performs the handshake for version v and returns the
// server's answer to initialize. It returns once the server has processed
// notifications/initialized (a ping sent after it has been answered, and
// the read loop handles frames in order), so that the server may send
// requests of its own right away.
func (c *schemaConn) initialize(v string) []byte {
	c.t.Helper()
	resp := c.call("initialize", schemaInitParams(v))
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.call("ping", "")
	return resp
}

// schemaReady connects to srv and completes the handshake at 2025-11-25.
func schemaReady(t testing.TB, srv *mcp.Server) *schemaConn {
	t.Helper()
	c := schemaConnect(t, srv)
	c.initialize(mcp.LatestVersion)
	return c
}

// schemaStdio serves one session of srv over the stdio transport, on pipes,
// with the given line limit. send writes one line; read returns the next
// line the server writes, without its newline.
func schemaStdio(t testing.TB, srv *mcp.Server, maxLine int) (send func(string), read func() []byte) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ss, err := srv.Connect(context.Background(), &mcp.StdioTransport{In: inR, Out: outW, MaxMessageBytes: maxLine})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		inW.Close() // EOF on the server's input ends the session
		_ = ss.Wait()
		outR.Close()
	})
	lines := bufio.NewReader(outR)
	send = func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatalf("writing a line: %v", err)
		}
	}
	read = func() []byte {
		t.Helper()
		line, err := lines.ReadBytes('\n')
		if err != nil {
			t.Fatalf("reading a line from the server: %v", err)
		}
		return bytes.TrimSuffix(line, []byte("\n"))
	}
	return send, read
}

// schemaFixture returns a server whose features exercise every optional
// field the SDK can emit: an implementation with title, description,
// website and icons, instructions, and these tools:
//
//   - weather: typed, with title, icons, annotations, execution, _meta and
//     an inferred output schema; it returns structuredContent.
//   - echo: typed, with string output.
//   - content: a hand-written input schema (with $schema) and output
//     schema; {"kind": K} returns content of kind K (see schemaContent).
//   - slow: reports progress twice, then answers.
//   - fail: returns a Go error (a result with isError).
//   - boom: panics.
func schemaFixture(t testing.TB, opts *mcp.ServerOptions) *mcp.Server {
	t.Helper()
	if opts == nil {
		opts = &mcp.ServerOptions{}
	}
	if opts.Instructions == "" {
		opts.Instructions = "Ask the weather tool about forecasts."
	}
	srv := mcp.NewServer(mcp.Implementation{
		Name:        "schema-server",
		Title:       "Schema Server",
		Version:     "1.2.3",
		Description: "A server for the schema test.",
		WebsiteURL:  "https://example.com/schema-server",
		Icons: []mcp.Icon{
			{Src: "https://example.com/icon.png", MIMEType: "image/png", Sizes: []string{"48x48", "96x96"}, Theme: "light"},
			{Src: "data:image/svg+xml;base64,PHN2Zy8+", MIMEType: "image/svg+xml", Sizes: []string{"any"}, Theme: "dark"},
		},
	}, opts)

	yes, no := true, false
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(mcp.AddTool(srv, &mcp.Tool{
		Name:        "weather",
		Title:       "Weather",
		Description: "Forecast for a city.",
		Icons:       []mcp.Icon{{Src: "https://example.com/sun.png", MIMEType: "image/png", Sizes: []string{"32x32"}}},
		Annotations: &mcp.ToolAnnotations{
			Title:           "Weather forecast",
			ReadOnlyHint:    &yes,
			DestructiveHint: &no,
			IdempotentHint:  &yes,
			OpenWorldHint:   &yes,
		},
		Execution: &mcp.ToolExecution{TaskSupport: "optional"},
		Meta:      mcp.Meta{"example.com/owner": json.RawMessage(`"weather-team"`)},
	}, func(_ context.Context, _ *mcp.Request, in schemaWeatherIn) (schemaWeatherOut, error) {
		return schemaWeatherOut{City: in.City, TempC: 21.5, Conditions: []string{"sunny", "breezy"}}, nil
	}))
	must(mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echoes text."},
		func(_ context.Context, _ *mcp.Request, in schemaEchoIn) (string, error) { return in.Text, nil }))
	must(srv.AddTool(&mcp.Tool{
		Name:         "content",
		Description:  "Returns content of the kind asked for.",
		InputSchema:  json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"kind":{"type":"string"}},"required":["kind"],"additionalProperties":false}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"answer":{"type":"integer"}}}`),
		Execution:    &mcp.ToolExecution{TaskSupport: "forbidden"},
	}, func(_ context.Context, _ *mcp.Request, args json.RawMessage) (*mcp.CallToolResult, error) {
		var in struct{ Kind string }
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		return schemaContent(in.Kind)
	}))
	must(srv.AddTool(&mcp.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		if err := req.ReportProgress(ctx, 0.5, 0, ""); err != nil {
			return nil, err
		}
		if err := req.ReportProgress(ctx, 2, 2, "done"); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "finished"}}}, nil
	}))
	must(srv.AddTool(&mcp.Tool{Name: "fail"}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return nil, errors.New("the disk is full")
	}))
	must(srv.AddTool(&mcp.Tool{Name: "boom"}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		panic("boom")
	}))
	return srv
}

type schemaWeatherIn struct {
	City string `json:"city" jsonschema:"the city to forecast"`
	Days int    `json:"days,omitempty" jsonschema:"how many days ahead, 1 to 7"`
}

type schemaWeatherOut struct {
	City       string   `json:"city"`
	TempC      float64  `json:"tempC"`
	Conditions []string `json:"conditions"`
}

type schemaEchoIn struct {
	Text string `json:"text"`
}

// Tiny but real payloads: a 1x1 PNG, an empty WAV and "hello".
const (
	schemaPNG  = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
	schemaWAV  = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="
	schemaBlob = "aGVsbG8="
)

// schemaContent returns the tool result for one kind of content.
func schemaContent(kind string) (*mcp.CallToolResult, error) {
	priority := 0.8
	size := int64(1024)
	ann := &mcp.Annotations{Audience: []string{"user", "assistant"}, Priority: &priority, LastModified: "2025-01-12T15:00:58Z"}
	meta := mcp.Meta{"example.com/trace": json.RawMessage(`{"span":"abc"}`)}
	text := &mcp.TextContent{Text: "hello", Annotations: ann, Meta: meta}
	image := &mcp.ImageContent{Data: schemaPNG, MIMEType: "image/png", Annotations: &mcp.Annotations{Audience: []string{"user"}}}
	audio := &mcp.AudioContent{Data: schemaWAV, MIMEType: "audio/wav", Meta: meta}
	link := &mcp.ResourceLink{
		URI: "file:///project/README.md", Name: "README.md", Title: "Read me",
		Description: "The project's read-me.", MIMEType: "text/markdown", Size: &size,
		Icons:       []mcp.Icon{{Src: "https://example.com/doc.png"}},
		Annotations: ann, Meta: meta,
	}
	embText := &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://text", MIMEType: "text/plain", Text: "contents", Meta: meta}, Annotations: ann}
	embEmpty := &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://empty"}}
	embBlob := &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "test://blob", MIMEType: "application/octet-stream", Blob: schemaBlob}, Meta: meta}
	one := func(c mcp.Content) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{c}}, nil
	}
	switch kind {
	case "text":
		return one(text)
	case "image":
		return one(image)
	case "audio":
		return one(audio)
	case "resource_link":
		return one(link)
	case "resource_text":
		return one(embText)
	case "resource_empty":
		return one(embEmpty)
	case "resource_blob":
		return one(embBlob)
	case "all":
		return &mcp.CallToolResult{Content: []mcp.Content{text, image, audio, link, embText, embEmpty, embBlob}}, nil
	case "none":
		return nil, nil
	case "structured":
		return &mcp.CallToolResult{
			Meta:              meta,
			Content:           []mcp.Content{&mcp.TextContent{Text: `{"answer":42}`}},
			StructuredContent: json.RawMessage(`{"answer":42}`),
		}, nil
	}
	return nil, fmt.Errorf("unknown kind %q", kind)
}

// schemaPeer is the server end of one session with a real Client: it
// reads the frames the client writes and answers with raw frames, so that
// the client's own bytes can be validated.
type schemaPeer struct {
	t    testing.TB
	conn mcp.Connection
	cs   *mcp.ClientSession
	// initialize and initialized are the client's first two frames.
	initialize, initialized []byte
}

// schemaClientConnect connects a Client that declares every capability to
// a raw peer and answers its handshake. The session ends with the test.
func schemaClientConnect(t testing.TB) *schemaPeer {
	t.Helper()
	client := mcp.NewClient(mcp.Implementation{
		Name: "schema-client", Title: "Schema Client", Version: "0.9.0",
		Icons: []mcp.Icon{{Src: "https://example.com/client.png", MIMEType: "image/png", Sizes: []string{"16x16"}}},
	}, &mcp.ClientOptions{ProtocolEra: mcp.EraSession, Capabilities: &mcp.ClientCapabilities{
		Experimental: map[string]json.RawMessage{"example.com/feature": json.RawMessage(`{"on":true}`)},
		Roots:        &mcp.RootsCapability{ListChanged: true},
		Sampling:     &mcp.SamplingCapability{Context: &struct{}{}, Tools: &struct{}{}},
		Elicitation:  &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}},
	}})
	clientT, serverT := mcp.NewInMemoryTransports()
	conn, err := serverT.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	type connected struct {
		cs  *mcp.ClientSession
		err error
	}
	done := make(chan connected, 1)
	go func() {
		cs, err := client.Connect(context.Background(), clientT)
		done <- connected{cs, err}
	}()
	p := &schemaPeer{t: t, conn: conn}
	p.initialize = p.read()
	p.reply(p.initialize, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"peer","version":"1.0.0"}}`)
	p.initialized = p.read()
	c := <-done
	if c.err != nil {
		t.Fatalf("Client.Connect: %v", c.err)
	}
	p.cs = c.cs
	t.Cleanup(func() {
		_ = c.cs.Close()
		conn.Close()
	})
	return p
}

// read returns the next frame the client writes.
func (p *schemaPeer) read() []byte {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), schemaWatchdog)
	defer cancel()
	frame, err := p.conn.Read(ctx)
	if err != nil {
		p.t.Fatalf("reading a frame from the client: %v", err)
	}
	return frame
}

// send writes one raw frame to the client.
func (p *schemaPeer) send(frame string) {
	p.t.Helper()
	if err := p.conn.Write(context.Background(), []byte(frame)); err != nil {
		p.t.Fatalf("writing %s: %v", frame, err)
	}
}

// reply answers the request frame req with a raw result.
func (p *schemaPeer) reply(req []byte, result string) {
	p.t.Helper()
	msg, _, err := jsonrpc.Decode(req)
	r, ok := msg.(*jsonrpc.Request)
	if err != nil || !ok {
		p.t.Fatalf("the client sent %s, want a request (%v)", req, err)
	}
	p.send(`{"jsonrpc":"2.0","id":` + r.ID.String() + `,"result":` + result + `}`)
}

// schemaClientCall returns a produce func that starts call on a connected
// client, answers the request it writes with result and returns that
// request.
func schemaClientCall(result string, call func(ctx context.Context, cs *mcp.ClientSession) error) func(t *testing.T) []byte {
	return func(t *testing.T) []byte {
		p := schemaClientConnect(t)
		errc := make(chan error, 1)
		go func() { errc <- call(context.Background(), p.cs) }()
		frame := p.read()
		p.reply(frame, result)
		if err := <-errc; err != nil {
			t.Errorf("the client's call failed: %v", err)
		}
		return frame
	}
}
