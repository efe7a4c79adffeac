package mcp_test

// This file holds the helpers of the tasks-extension tests
// (task_ext_test.go): a server with a tool for every path of a task,
// a way to serve one raw stateless-era request with
// Host.ServeStateless and get back the exact frame, and the
// extension's wire shapes as a JSON Schema (testdata/schema/tasks-extension,
// written from SEP-2663, since the 2026-07-28 schema does not hold them)
// merged with the 2026-07-28 schema it refers to. Every helper is
// prefixed "tx".

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// Capabilities a test client declares in _meta.
const (
	txNone   = `{}`
	txExt    = `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	txExtAll = `{"elicitation":{},"sampling":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`
)

// txInfo is the serverInfo member every result of txServer carries.
const txInfo = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"tx-server","version":"1.0.0"}}`

// txT0 is when a synctest bubble starts, as the tasks' timestamps show it.
const txT0 = "2000-01-01T00:00:00Z"

// txParams is params with a stateless-era _meta declaring caps, then rest
// (raw members, "" or starting with a comma).
func txParams(caps, rest string) string {
	return `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps +
		`,"io.modelcontextprotocol/clientInfo":{"name":"tx-client","version":"1.0.0"}}` + rest + `}`
}

// txServe serves one stateless-era request frame outside any session and
// returns the response frame, whether it was refused, and the stream.
func txServe(t testing.TB, srv *mcp.Server, frame string, extra *mcp.RequestExtra) (resp string, refused bool, stream []string) {
	t.Helper()
	return modServeExtra(t, srv, frame, extra)
}

// txCall sends method with params txParams(caps, rest) as request id, and
// returns the response frame; the request must not be refused nor send
// anything on its stream.
func txCall(t testing.TB, srv *mcp.Server, id int, method, caps, rest string) string {
	t.Helper()
	frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, txParams(caps, rest))
	resp, refused, stream := txServe(t, srv, frame, nil)
	if refused {
		t.Errorf("%s %s was refused: %s", method, rest, resp)
	}
	if len(stream) > 0 {
		t.Errorf("%s sent on its stream:\n\t%s", method, strings.Join(stream, "\n\t"))
	}
	return resp
}

// txRefused is txCall for a request the server turns away (HTTP 400 or
// 404): it must be refused and send nothing on its stream.
func txRefused(t testing.TB, srv *mcp.Server, id int, method, caps, rest string) string {
	t.Helper()
	frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, txParams(caps, rest))
	resp, refused, stream := txServe(t, srv, frame, nil)
	if !refused {
		t.Errorf("%s %s was not refused: %s", method, rest, resp)
	}
	if len(stream) > 0 {
		t.Errorf("%s sent on its stream:\n\t%s", method, strings.Join(stream, "\n\t"))
	}
	return resp
}

var txIDRE = regexp.MustCompile(`"taskId":"([^"]*)"`)

// txStart calls tool as a task and returns the task's id and the
// CreateTaskResult frame with the id replaced by "ID".
func txStart(t testing.TB, srv *mcp.Server, id int, tool, caps string) (taskID, masked string) {
	t.Helper()
	resp := txCall(t, srv, id, "tools/call", caps, `,"name":"`+tool+`","arguments":{}`)
	m := txIDRE.FindStringSubmatch(resp)
	if m == nil {
		t.Fatalf("tools/call %s created no task: %s", tool, resp)
	}
	if !regexp.MustCompile(`^[A-Z2-7]{26}$`).MatchString(m[1]) {
		t.Errorf("task id %q is not 26 characters of crypto/rand base32 (130 bits)", m[1])
	}
	return m[1], strings.ReplaceAll(resp, m[1], "ID")
}

// txTask is a task frame's members after taskId, for status, the updated
// time (txT0 if ""), and extra members (raw, each ending with a comma).
func txTask(status, updated, extra string) string {
	if updated == "" {
		updated = txT0
	}
	return `"taskId":"ID","status":"` + status + `",` + extra + `"createdAt":"` + txT0 + `","lastUpdatedAt":"` + updated + `","ttlMs":3600000,"pollIntervalMs":1000`
}

// txGet is the exact frame tasks/get answers with id.
func txGet(id int, status, updated, extra, payload string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"resultType":"complete",%s,%s%s}}`, id, txInfo, txTask(status, updated, extra), payload)
}

// txAck is the exact frame of tasks/update's and tasks/cancel's empty
// acknowledgement.
func txAck(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"resultType":"complete",%s}}`, id, txInfo)
}

// txErr is an exact error frame.
func txErr(id int, code int64, message, data string) string {
	f := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":%d,"message":%q`, id, code, message)
	if data != "" {
		f += `,"data":` + data
	}
	return f + "}}"
}

// txMissingExt is the -32021 a request gets without the extension.
func txMissingExt(id int) string {
	return txErr(id, -32021, "Missing required client capability: extensions.io.modelcontextprotocol/tasks",
		`{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`)
}

func txWant(t testing.TB, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n got %s\nwant %s", what, got, want)
	}
}

// txGate drives txServer's waiting tools.
type txGate struct {
	release chan struct{} // closing it lets "work" and "status" return
	ended   chan error    // "work" and "status" send their context's error when stopped
	asked   chan error    // the asking tools send Request.Input's error when it fails
	runs    atomic.Int32  // how many times prelude's handler ran
}

// The wire form of txServer's input requests, and their answers.
const (
	txConfirmRequest = `{"method":"elicitation/create","params":{"message":"Delete the file?","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}}}`
	txYes            = `{"action":"accept","content":{"confirm":true}}`
)

func txNameRequest(who string) string {
	return `{"method":"elicitation/create","params":{"message":"Name for ` + who + `?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}`
}

func txName(n string) string { return `{"action":"accept","content":{"name":"` + n + `"}}` }

// txServer returns a server whose tools cover every path of a task:
//
//   - plain (execution unset: forbidden): answers "plain".
//   - quick (optional): answers "quick".
//   - job (required): answers "job done".
//   - work (optional): waits for release ("worked") or its context.
//   - status (optional): sets the status message "halfway", then as work.
//   - tool_err (optional): fails with a Go error (a result with isError).
//   - rpc_err (optional): fails with a JSON-RPC error.
//   - panics (optional): panics.
//   - confirm (optional): asks "confirm" (a boolean), answers what it got.
//   - two (optional): asks "a" and "b" (names) at once.
//   - again (optional): asks "k" (a name), then "k" again.
//   - elicit (optional): Request.Elicit (an automatic key).
//   - sample (optional): Request.CreateMessage.
//   - prelude (required, Tool.InputBeforeTask): asks "user" (a name)
//     before its task, calls BeginTask, then asks "confirm" in the task;
//     every run of its handler is counted in txGate.runs.
func txServer(t testing.TB, opts *mcp.ServerOptions) (*mcp.Server, *txGate) {
	t.Helper()
	g := &txGate{release: make(chan struct{}), ended: make(chan error, 16), asked: make(chan error, 16)}
	srv := mcp.NewServer(mcp.Implementation{Name: "tx-server", Version: "1.0.0"}, opts)
	optional := &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	add := func(name string, exec *mcp.ToolExecution, h mcp.ToolHandler) {
		t.Helper()
		if err := srv.AddTool(&mcp.Tool{Name: name, Execution: exec}, h); err != nil {
			t.Fatal(err)
		}
	}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	wait := func(ctx context.Context, s string) (*mcp.CallToolResult, error) {
		select {
		case <-g.release:
			return text(s), nil
		case <-ctx.Done():
			g.ended <- ctx.Err()
			return nil, ctx.Err()
		}
	}
	nameInput := func(who string) *mcp.InputRequest {
		return mcp.ElicitationInput(&mcp.ElicitParams{
			Message: "Name for " + who + "?",
			RequestedSchema: &mcp.ElicitSchema{
				Properties: []mcp.ElicitProperty{{Name: "name", Schema: &mcp.PrimitiveSchema{Type: "string"}}},
				Required:   []string{"name"},
			},
		})
	}
	name := func(rs mcp.InputResponses, key string) string {
		res, err := rs.Elicitation(key)
		if err != nil {
			return err.Error()
		}
		var c struct{ Name string }
		_ = json.Unmarshal(res.Content, &c)
		return c.Name
	}
	ask := func(ctx context.Context, r *mcp.Request, reqs map[string]*mcp.InputRequest) (mcp.InputResponses, error) {
		rs, err := r.Input(ctx, reqs)
		if err != nil {
			g.asked <- err
		}
		return rs, err
	}
	// confirm asks "confirm" (a boolean: "Delete the file?") and returns
	// its answer.
	confirm := func(ctx context.Context, r *mcp.Request) (*mcp.ElicitResult, error) {
		rs, err := ask(ctx, r, map[string]*mcp.InputRequest{"confirm": mcp.ElicitationInput(&mcp.ElicitParams{
			Message: "Delete the file?",
			RequestedSchema: &mcp.ElicitSchema{
				Properties: []mcp.ElicitProperty{{Name: "confirm", Schema: &mcp.PrimitiveSchema{Type: "boolean"}}},
				Required:   []string{"confirm"},
			},
		})})
		if err != nil {
			return nil, err
		}
		return rs.Elicitation("confirm")
	}

	add("plain", nil, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return text("plain"), nil
	})
	add("quick", optional, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return text("quick"), nil
	})
	add("job", &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return text("job done"), nil
	})
	add("work", optional, func(ctx context.Context, _ *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		return wait(ctx, "worked")
	})
	add("status", optional, func(ctx context.Context, _ *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		task := mcp.TaskFromContext(ctx)
		if task == nil {
			return nil, errors.New("not a task")
		}
		if err := task.SetStatus(ctx, mcp.TaskInputRequired, "no"); !errors.Is(err, mcp.ErrInvalidTaskTransition) {
			return nil, fmt.Errorf("SetStatus(input_required) = %v, want ErrInvalidTaskTransition", err)
		}
		if err := task.SetStatus(ctx, mcp.TaskWorking, "halfway"); err != nil {
			return nil, err
		}
		return wait(ctx, "done")
	})
	add("tool_err", optional, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return nil, errors.New("boom")
	})
	add("rpc_err", optional, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "API rate limit exceeded", "retry later")
	})
	add("panics", optional, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		panic("kaboom")
	})
	add("confirm", optional, func(ctx context.Context, r *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		res, err := confirm(ctx, r)
		if err != nil {
			return nil, err
		}
		return text("action=" + res.Action + " content=" + string(res.Content)), nil
	})
	add("two", optional, func(ctx context.Context, r *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		rs, err := ask(ctx, r, map[string]*mcp.InputRequest{"a": nameInput("a"), "b": nameInput("b")})
		if err != nil {
			return nil, err
		}
		return text("a=" + name(rs, "a") + " b=" + name(rs, "b")), nil
	})
	add("again", optional, func(ctx context.Context, r *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		first, err := ask(ctx, r, map[string]*mcp.InputRequest{"k": nameInput("k")})
		if err != nil {
			return nil, err
		}
		second, err := ask(ctx, r, map[string]*mcp.InputRequest{"k": nameInput("k")})
		if err != nil {
			return nil, err
		}
		return text("first=" + name(first, "k") + " second=" + name(second, "k")), nil
	})
	add("elicit", optional, func(ctx context.Context, r *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		res, err := r.Elicit(ctx, &mcp.ElicitParams{
			Message: "Name for elicit?",
			RequestedSchema: &mcp.ElicitSchema{
				Properties: []mcp.ElicitProperty{{Name: "name", Schema: &mcp.PrimitiveSchema{Type: "string"}}},
				Required:   []string{"name"},
			},
		})
		if err != nil {
			g.asked <- err
			return nil, err
		}
		return text("elicited " + string(res.Content)), nil
	})
	add("sample", optional, func(ctx context.Context, r *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		res, err := r.CreateMessage(ctx, &mcp.CreateMessageParams{
			Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContents{&mcp.TextContent{Text: "Hi"}}}},
			MaxTokens: 10,
		})
		if err != nil {
			g.asked <- err
			return nil, err
		}
		return text("sampled by " + res.Model), nil
	})
	prelude := &mcp.Tool{Name: "prelude", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportRequired}, InputBeforeTask: true}
	if err := srv.AddTool(prelude, func(ctx context.Context, r *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		g.runs.Add(1)
		who, err := r.Input(ctx, map[string]*mcp.InputRequest{"user": nameInput("user")})
		if err != nil {
			return nil, err
		}
		if err := r.BeginTask(); err != nil {
			return nil, err
		}
		res, err := confirm(ctx, r)
		if err != nil {
			return nil, err
		}
		return text("user=" + name(who, "user") + " confirm=" + string(res.Content)), nil
	}); err != nil {
		t.Fatal(err)
	}
	return srv, g
}

// txSchemaSpec is the 2026-07-28 schema with the extension's
// definitions added.
var (
	txSchemaOnce   sync.Once
	txSchemaLoaded *schemaSpec
	txSchemaErr    error
)

const (
	txSchema2026 = "testdata/schema/2026-07-28/schema.json"
	txSchemaExt  = "testdata/schema/tasks-extension/schema.json"
)

func txSchema(t testing.TB) *schemaSpec {
	t.Helper()
	txSchemaOnce.Do(func() {
		spec, err := schemaRead(txSchema2026)
		if err != nil {
			txSchemaErr = err
			return
		}
		data, err := os.ReadFile(txSchemaExt)
		if err != nil {
			txSchemaErr = err
			return
		}
		var ext struct {
			Defs map[string]json.RawMessage `json:"$defs"`
		}
		if err := json.Unmarshal(data, &ext); err != nil {
			txSchemaErr = err
			return
		}
		for name, raw := range ext.Defs {
			if _, dup := spec.loose[name]; dup {
				txSchemaErr = fmt.Errorf("%s redefines %s", txSchemaExt, name)
				return
			}
			var a, b any
			_ = json.Unmarshal(raw, &a)
			_ = json.Unmarshal(raw, &b)
			spec.loose[name], spec.strict[name] = a, b
		}
		txSchemaLoaded = spec
	})
	if txSchemaErr != nil {
		t.Fatalf("loading the schemas: %v", txSchemaErr)
	}
	return txSchemaLoaded
}

// txValidate checks a frame against def, loose and strict.
func txValidate(t testing.TB, def, frame string) {
	t.Helper()
	s := txSchema(t)
	var instance any
	if err := json.Unmarshal([]byte(frame), &instance); err != nil {
		t.Errorf("%s: not JSON: %v\n%s", def, err, frame)
		return
	}
	for _, strict := range []bool{false, true} {
		rs, err := s.resolve(def, strict)
		if err != nil {
			t.Fatal(err)
		}
		if err := rs.Validate(instance); err != nil {
			t.Errorf("does not validate against %s (strict %t):\n%v\ninstance: %s", def, strict, err, frame)
			return
		}
	}
}
