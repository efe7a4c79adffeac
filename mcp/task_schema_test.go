package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// Schema rows for every task message
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks),
// server and client side.
func init() {
	schemaCases = append(schemaCases,
		schemaCase{name: "initialize declaring tasks", message: "JSONRPCResultResponse", result: "InitializeResult",
			produce: func(t *testing.T) []byte {
				srv, _ := newTaskServer(t, nil)
				frame := schemaConnect(t, srv).initialize(mcp.LatestVersion)
				if !strings.Contains(string(frame), `"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`) {
					t.Errorf("no tasks capability in %s", frame)
				}
				return frame
			}},
		schemaCase{name: "tools/list with taskSupport optional and required", message: "JSONRPCResultResponse", result: "ListToolsResult",
			produce: taskSchemaServer(func(c *schemaConn) []byte { return c.call("tools/list", "") })},
		schemaCase{name: "tools/call as a task: CreateTaskResult", message: "JSONRPCResultResponse", result: "CreateTaskResult",
			produce: taskSchemaServer(func(c *schemaConn) []byte {
				resp, _ := taskSchemaCall(c, "tools/call", `{"name":"gate","arguments":{},"task":{"ttl":60000}}`)
				return resp
			})},
		schemaCase{name: "tasks/get while working", message: "JSONRPCResultResponse", result: "GetTaskResult",
			produce: taskSchemaServer(func(c *schemaConn) []byte {
				id := taskSchemaStart(c, "gate")
				resp, _ := taskSchemaCall(c, "tasks/get", `{"taskId":"`+id+`"}`)
				return resp
			})},
		schemaCase{name: "tasks/get failed with a statusMessage", message: "JSONRPCResultResponse", result: "GetTaskResult",
			produce: taskSchemaServer(func(c *schemaConn) []byte {
				id := taskSchemaStart(c, "tool_fail")
				taskSchemaCall(c, "tasks/result", `{"taskId":"`+id+`"}`)
				resp, _ := taskSchemaCall(c, "tasks/get", `{"taskId":"`+id+`"}`)
				if !strings.Contains(string(resp), `"statusMessage":`) {
					c.t.Errorf("no statusMessage in %s", resp)
				}
				return resp
			})},
		schemaCase{name: "tasks/result of a completed task", message: "JSONRPCResultResponse", result: "GetTaskPayloadResult",
			produce: taskSchemaServer(func(c *schemaConn) []byte {
				id := taskSchemaStart(c, "quick")
				resp, _ := taskSchemaCall(c, "tasks/result", `{"taskId":"`+id+`"}`)
				return resp
			})},
		schemaCase{name: "tasks/result is a CallToolResult with related-task _meta", message: "JSONRPCResultResponse", result: "CallToolResult",
			produce: taskSchemaServer(func(c *schemaConn) []byte {
				id := taskSchemaStart(c, "quick")
				resp, _ := taskSchemaCall(c, "tasks/result", `{"taskId":"`+id+`"}`)
				if !strings.Contains(string(resp), `"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"`+id+`"}}`) {
					c.t.Errorf("no related-task _meta in %s", resp)
				}
				return resp
			})},
		schemaCase{name: "tasks/result of a tool error (isError)", message: "JSONRPCResultResponse", result: "CallToolResult",
			produce: taskSchemaServer(func(c *schemaConn) []byte {
				id := taskSchemaStart(c, "tool_fail")
				resp, _ := taskSchemaCall(c, "tasks/result", `{"taskId":"`+id+`"}`)
				return resp
			})},
		schemaCase{name: "tasks/list with nextCursor", message: "JSONRPCResultResponse", result: "ListTasksResult",
			produce: func(t *testing.T) []byte {
				srv, _ := newTaskServer(t, &mcp.ServerOptions{PageSize: 1})
				c := schemaReady(t, srv)
				taskSchemaStart(c, "quick")
				taskSchemaStart(c, "gate")
				resp, _ := taskSchemaCall(c, "tasks/list", "")
				if !strings.Contains(string(resp), `"nextCursor":`) {
					t.Errorf("no nextCursor in %s", resp)
				}
				return resp
			}},
		schemaCase{name: "tasks/list empty", message: "JSONRPCResultResponse", result: "ListTasksResult",
			produce: taskSchemaServer(func(c *schemaConn) []byte { return c.call("tasks/list", `{}`) })},
		schemaCase{name: "tasks/cancel", message: "JSONRPCResultResponse", result: "CancelTaskResult",
			produce: taskSchemaServer(func(c *schemaConn) []byte {
				id := taskSchemaStart(c, "gate")
				resp, _ := taskSchemaCall(c, "tasks/cancel", `{"taskId":"`+id+`"}`)
				return resp
			})},
		schemaCase{name: "notifications/tasks/status", message: "TaskStatusNotification", method: "notifications/tasks/status",
			produce: taskSchemaServer(func(c *schemaConn) []byte {
				id := taskSchemaStart(c, "gate")
				_, others := taskSchemaCall(c, "tasks/cancel", `{"taskId":"`+id+`"}`)
				if len(others) != 1 {
					c.t.Fatalf("want one status notification before the answer, got %q", others)
				}
				return others[0]
			})},
		schemaCase{name: "task's request to the client with related-task _meta", message: "PingRequest", method: "ping",
			produce: taskSchemaServer(func(c *schemaConn) []byte {
				c.request("tools/call", `{"name":"asks","task":{}}`)
				for {
					frame := c.read()
					if strings.Contains(string(frame), `"method":"ping"`) {
						return frame
					}
				}
			})},
		schemaCase{name: "method not found: required tool without a task", message: "JSONRPCErrorResponse", code: jsonrpc.CodeMethodNotFound,
			produce: taskSchemaServer(func(c *schemaConn) []byte { return c.call("tools/call", `{"name":"required"}`) })},
		schemaCase{name: "method not found: forbidden tool as a task", message: "JSONRPCErrorResponse", code: jsonrpc.CodeMethodNotFound,
			produce: taskSchemaServer(func(c *schemaConn) []byte { return c.call("tools/call", `{"name":"plain","task":{}}`) })},
		schemaCase{name: "invalid params: unknown task", message: "JSONRPCErrorResponse", code: jsonrpc.CodeInvalidParams,
			produce: taskSchemaServer(func(c *schemaConn) []byte { return c.call("tasks/get", `{"taskId":"nope"}`) })},
		schemaCase{name: "invalid params: cancelling a terminal task", message: "JSONRPCErrorResponse", code: jsonrpc.CodeInvalidParams,
			produce: taskSchemaServer(func(c *schemaConn) []byte {
				id := taskSchemaStart(c, "quick")
				taskSchemaCall(c, "tasks/result", `{"taskId":"`+id+`"}`)
				resp, _ := taskSchemaCall(c, "tasks/cancel", `{"taskId":"`+id+`"}`)
				return resp
			})},
		schemaCase{name: "tasks/result of a failed request: its JSON-RPC error", message: "JSONRPCErrorResponse", code: -32050,
			produce: taskSchemaServer(func(c *schemaConn) []byte {
				id := taskSchemaStart(c, "rpc_fail")
				resp, _ := taskSchemaCall(c, "tasks/result", `{"taskId":"`+id+`"}`)
				return resp
			})},
		schemaCase{name: "invalid request: too many tasks", message: "JSONRPCErrorResponse", code: jsonrpc.CodeInvalidRequest,
			produce: func(t *testing.T) []byte {
				srv, _ := newTaskServer(t, &mcp.ServerOptions{Tasks: mcp.TaskOptions{MaxRunning: 1}})
				c := schemaReady(t, srv)
				taskSchemaStart(c, "gate")
				resp, _ := taskSchemaCall(c, "tools/call", `{"name":"gate","task":{}}`)
				return resp
			}},

		// Messages the Client sends.
		schemaCase{name: "client tools/call as a task", message: "CallToolRequest", method: "tools/call",
			produce: taskSchemaClientCall(`{"task":{"taskId":"t-1","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000,"pollInterval":5000}}`,
				func(ctx context.Context, cs *mcp.ClientSession) error {
					ttl := int64(60000)
					_, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{
						Meta: &mcp.RequestMeta{ProgressToken: jsonrpc.StringID("p-1")},
						Name: "slow", Arguments: json.RawMessage(`{"n":1}`), Task: &mcp.TaskMetadata{TTL: &ttl},
					})
					return err
				})},
		schemaCase{name: "client tools/call as a task without ttl", message: "CallToolRequest", method: "tools/call",
			produce: taskSchemaClientCall(`{"task":{"taskId":"t-1","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":null}}`,
				func(ctx context.Context, cs *mcp.ClientSession) error {
					_, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "slow"})
					return err
				})},
		schemaCase{name: "client tasks/get", message: "GetTaskRequest", method: "tasks/get",
			produce: taskSchemaClientCall(`{"taskId":"t-1","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000}`,
				func(ctx context.Context, cs *mcp.ClientSession) error {
					_, err := cs.GetTask(ctx, &mcp.TaskParams{TaskID: "t-1"})
					return err
				})},
		schemaCase{name: "client tasks/result", message: "GetTaskPayloadRequest", method: "tasks/result",
			produce: taskSchemaClientCall(`{"content":[],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t-1"}}}`,
				func(ctx context.Context, cs *mcp.ClientSession) error {
					var res mcp.CallToolResult
					return cs.GetTaskResult(ctx, &mcp.TaskParams{TaskID: "t-1"}, &res)
				})},
		schemaCase{name: "client tasks/list", message: "ListTasksRequest", method: "tasks/list",
			produce: taskSchemaClientCall(`{"tasks":[]}`, func(ctx context.Context, cs *mcp.ClientSession) error {
				_, err := cs.ListTasks(ctx, nil)
				return err
			})},
		schemaCase{name: "client tasks/list with a cursor", message: "ListTasksRequest", method: "tasks/list",
			produce: taskSchemaClientCall(`{"tasks":[]}`, func(ctx context.Context, cs *mcp.ClientSession) error {
				_, err := cs.ListTasks(ctx, &mcp.PaginatedParams{Cursor: "c-2"})
				return err
			})},
		schemaCase{name: "client tasks/cancel", message: "CancelTaskRequest", method: "tasks/cancel",
			produce: taskSchemaClientCall(`{"taskId":"t-1","status":"cancelled","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:31:00Z","ttl":60000}`,
				func(ctx context.Context, cs *mcp.ClientSession) error {
					_, err := cs.CancelTask(ctx, &mcp.TaskParams{TaskID: "t-1"})
					return err
				})},
		schemaCase{name: "client method not found for the server's tasks/get", message: "JSONRPCErrorResponse", code: jsonrpc.CodeMethodNotFound,
			produce: func(t *testing.T) []byte {
				p := taskSchemaClientConnect(t)
				p.send(`{"jsonrpc":"2.0","id":"s-1","method":"tasks/get","params":{"taskId":"x"}}`)
				return p.read()
			}},
	)
}

// taskSchemaServer returns a produce func that runs f on an initialized
// session of the task fixture server.
func taskSchemaServer(f func(c *schemaConn) []byte) func(t *testing.T) []byte {
	return func(t *testing.T) []byte {
		srv, _ := newTaskServer(t, nil)
		return f(schemaReady(t, srv))
	}
}

// taskSchemaCall sends a request and returns its response, and the other
// frames read before it (a task's messages may come first).
func taskSchemaCall(c *schemaConn, method, params string) (resp []byte, others [][]byte) {
	c.t.Helper()
	id := c.request(method, params)
	for {
		frame := c.read()
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal(frame, &m); err != nil {
			c.t.Fatalf("frame %s: %v", frame, err)
		}
		if m.Method == "" && string(m.ID) == id {
			return frame, others
		}
		others = append(others, frame)
	}
}

// taskSchemaStart calls a tool as a task and returns the task's id.
func taskSchemaStart(c *schemaConn, tool string) string {
	c.t.Helper()
	resp, _ := taskSchemaCall(c, "tools/call", `{"name":"`+tool+`","task":{}}`)
	var r struct {
		Result mcp.CreateTaskResult `json:"result"`
	}
	if err := json.Unmarshal(resp, &r); err != nil || r.Result.Task.TaskID == "" {
		c.t.Fatalf("tools/call as a task: %s", resp)
	}
	return r.Result.Task.TaskID
}

// taskSchemaClientConnect connects a Client to a raw peer that declares
// task-augmented tools/call.
func taskSchemaClientConnect(t testing.TB) *schemaPeer {
	t.Helper()
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
		cs, err := mcp.NewClient(mcp.Implementation{Name: "schema-client", Version: "0.9.0"}, legacy(nil)).Connect(context.Background(), clientT)
		done <- connected{cs, err}
	}()
	p := &schemaPeer{t: t, conn: conn}
	p.initialize = p.read()
	p.reply(p.initialize, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"peer","version":"1.0.0"}}`)
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

// taskSchemaClientCall is schemaClientCall against a peer that declares
// tasks.
func taskSchemaClientCall(result string, call func(ctx context.Context, cs *mcp.ClientSession) error) func(t *testing.T) []byte {
	return func(t *testing.T) []byte {
		p := taskSchemaClientConnect(t)
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
