package replicatest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/mcphttp"
)

// Routing is what RunRouting needs: two replicas' views of one shared
// SessionStore, TaskStore and Bus (each may be nil for B: B then uses
// A's).
type Routing struct {
	Store, StoreB mcp.SessionStore
	Tasks, TasksB mcp.TaskStore
	Bus, BusB     mcp.Bus
	// PerRequest makes each replica's Handler with mcphttp.NewHandlerFunc
	// (its getServer always returns the replica's server) instead of
	// NewHandler.
	PerRequest bool
	// TaskKeys, if not nil, returns what the TaskStore's backend still
	// holds of owner's tasks ids (their records and index entries, by
	// name), for the scenario to check that a deletion left nothing.
	TaskKeys func(t *testing.T, owner string, ids []string) []string
}

// NewRouting returns fresh, empty stores and bus.
type NewRouting func(t *testing.T) Routing

// routingServer is a replica's server for RunRouting: "ask" elicits a
// name and returns it; "block" reports that it runs on started and
// waits for its context, then reports that on cancelled.
type routingServer struct {
	srv       *mcp.Server
	started   chan string
	cancelled chan string
}

func newRoutingServer(name string, store mcp.SessionStore, tasks mcp.TaskStore, bus mcp.Bus) *routingServer {
	rs := &routingServer{started: make(chan string, 4), cancelled: make(chan string, 4)}
	rs.srv = mcp.NewServer(mcp.Implementation{Name: "replica", Version: "1"}, &mcp.ServerOptions{
		SessionStore: store,
		Bus:          bus,
		Tasks:        mcp.TaskOptions{Store: tasks},
	})
	ask := func(ctx context.Context, req *mcp.Request, _ struct{}) (string, error) {
		res, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: &mcp.ElicitSchema{
			Properties: []mcp.ElicitProperty{{Name: "name", Schema: &mcp.PrimitiveSchema{Type: "string"}}},
		}})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s on %s: %s", res.Action, name, res.Content), nil
	}
	_ = mcp.AddTool(rs.srv, &mcp.Tool{Name: "ask", Description: "ask"}, ask)
	_ = rs.srv.AddResource(&mcp.Resource{URI: "test://r", Name: "r"}, func(_ context.Context, _ *mcp.Request, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: p.URI, Text: "r"}}}, nil
	})
	block := func(ctx context.Context, _ *mcp.Request, _ struct{}) (string, error) {
		rs.started <- name
		<-ctx.Done()
		rs.cancelled <- name
		return "", ctx.Err()
	}
	_ = mcp.AddTool(rs.srv, &mcp.Tool{Name: "block", Description: "block"}, block)
	optional := &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	_ = mcp.AddTool(rs.srv, &mcp.Tool{Name: "task-ask", Description: "ask, as a task", Execution: optional}, ask)
	_ = mcp.AddTool(rs.srv, &mcp.Tool{Name: "task-block", Description: "block, as a task", Execution: optional}, block)
	_ = mcp.AddTool(rs.srv, &mcp.Tool{Name: "task-done", Description: "done at once, as a task", Execution: optional}, func(context.Context, *mcp.Request, struct{}) (string, error) {
		return "done on " + name, nil
	})
	return rs
}

type routingReplica struct {
	replica
	rs *routingServer
}

func newRoutingCluster(t *testing.T, newRouting NewRouting) (a, b *routingReplica) {
	t.Helper()
	a, b, _ = newRoutingClusterOf(t, newRouting)
	return a, b
}

// newRoutingClusterOf is newRoutingCluster that also returns the stores
// and bus newRouting made.
func newRoutingClusterOf(t *testing.T, newRouting NewRouting) (a, b *routingReplica, r Routing) {
	t.Helper()
	r = newRouting(t)
	mk := func(name string, store mcp.SessionStore, tasks mcp.TaskStore, bus mcp.Bus) *routingReplica {
		rs := newRoutingServer(name, store, tasks, bus)
		h := mcphttp.NewHandler(rs.srv, nil)
		if r.PerRequest {
			h = mcphttp.NewHandlerFunc(func(*http.Request) *mcp.Server { return rs.srv }, nil)
		}
		ts := httptest.NewServer(h)
		t.Cleanup(func() {
			ts.Close()
			_ = h.Close()
		})
		return &routingReplica{replica: replica{name: name, srv: rs.srv, h: h, ts: ts}, rs: rs}
	}
	storeB, tasksB, busB := r.StoreB, r.TasksB, r.BusB
	if storeB == nil {
		storeB = r.Store
	}
	if tasksB == nil {
		tasksB = r.Tasks
	}
	if busB == nil {
		busB = r.Bus
	}
	return mk("A", r.Store, r.Tasks, r.Bus), mk("B", storeB, tasksB, busB), r
}

const initElicit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"router","version":"1"}}}`

// sse is an open SSE response.
type sse struct {
	resp *http.Response
	br   *bufio.Reader
}

// post sends body to rep on session sid and returns the open SSE stream
// of its answer.
func (rep *replica) postSSE(t *testing.T, sid, body string) *sse {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, rep.ts.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := rep.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("POST to %s: %d %q", rep.name, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return &sse{resp: resp, br: bufio.NewReader(resp.Body)}
}

// modernMeta is the _meta of the scenario's 2026-07-28 requests.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}},"io.modelcontextprotocol/clientInfo":{"name":"router","version":"1"}}`

// postModern sends a 2026-07-28 request (no session) to rep, with ctx,
// and returns its open SSE stream, or its JSON body with sse nil.
func (rep *replica) postModern(t *testing.T, ctx context.Context, id int, method, name, params string) *sse {
	t.Helper()
	return rep.postModernSession(t, ctx, "", id, method, name, params)
}

// postModernSession is postModern carrying Mcp-Session-Id sid, unless sid
// is empty.
func (rep *replica) postModernSession(t *testing.T, ctx context.Context, sid string, id int, method, name, params string) *sse {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s,%s}}`, id, method, modernMeta, params)
	// A missing event fails the test (its read ends) instead of hanging it.
	ctx, cancel := context.WithTimeout(ctx, streamTimeout)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rep.ts.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := rep.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s to %s: %d %s", method, rep.name, resp.StatusCode, b)
	}
	return &sse{resp: resp, br: bufio.NewReader(resp.Body)}
}

// one returns the whole answer of a request: its JSON body, or the last
// event of its SSE stream.
func (s *sse) one(t *testing.T) string {
	t.Helper()
	if strings.HasPrefix(s.resp.Header.Get("Content-Type"), "application/json") {
		b, err := io.ReadAll(s.br)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	last := ""
	for d := s.next(t); d != ""; d = s.next(t) {
		last = d
	}
	return last
}

// next returns the data of the stream's next event; "" once it ends.
func (s *sse) next(t *testing.T) string {
	t.Helper()
	var data []string
	for {
		line, err := s.br.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		if d, ok := strings.CutPrefix(line, "data:"); ok {
			data = append(data, strings.TrimPrefix(d, " "))
		}
		if line == "" && len(data) > 0 {
			return strings.Join(data, "\n")
		}
		if err != nil {
			return ""
		}
	}
}

// RunRouting runs the scenario of messages that must reach the replica
// where something waits, on stores and a bus made by newRouting.
func RunRouting(t *testing.T, newRouting NewRouting) {
	t.Run("an elicitation answered on B reaches the tool waiting on A", func(t *testing.T) {
		a, b := newRoutingCluster(t, newRouting)
		r := a.do(t, http.MethodPost, "", "", initElicit)
		sid := r.header.Get("Mcp-Session-Id")
		if r.status != http.StatusOK || sid == "" {
			t.Fatalf("initialize on A: %d %q %s", r.status, sid, r.body)
		}
		b.do(t, http.MethodPost, sid, "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`).want(t, "notifications/initialized on B", http.StatusAccepted, "")
		s := a.postSSE(t, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
		ask := s.next(t)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal([]byte(ask), &m); err != nil || m.Method != "elicitation/create" || len(m.ID) == 0 {
			t.Fatalf("A's stream: %s, want elicitation/create", ask)
		}
		if want := `{"message":"name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`; string(m.Params) != want {
			t.Errorf("elicitation params %s\nwant %s", m.Params, want)
		}
		answer := `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"action":"accept","content":{"name":"Gopher"}}}`
		b.do(t, http.MethodPost, sid, "", answer).want(t, "the answer on B", http.StatusAccepted, "")
		if got, want := s.next(t), `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"accept on A: {\"name\":\"Gopher\"}"}]}}`; got != want {
			t.Fatalf("A's result: %s\nwant %s", got, want)
		}
		if got := s.next(t); got != "" {
			t.Fatalf("A's stream goes on after the result: %s", got)
		}
	})

	t.Run("a cancel POSTed to B cancels the handler on A", func(t *testing.T) {
		a, b := newRoutingCluster(t, newRouting)
		r := a.do(t, http.MethodPost, "", "", initElicit)
		sid := r.header.Get("Mcp-Session-Id")
		if r.status != http.StatusOK || sid == "" {
			t.Fatalf("initialize on A: %d %q %s", r.status, sid, r.body)
		}
		a.do(t, http.MethodPost, sid, "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`).want(t, "notifications/initialized on A", http.StatusAccepted, "")
		s := a.postSSE(t, sid, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
		if got := <-a.rs.started; got != "A" {
			t.Fatalf("block started on %s", got)
		}
		b.do(t, http.MethodPost, sid, "", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"enough"}}`).want(t, "notifications/cancelled on B", http.StatusAccepted, "")
		if got := <-a.rs.cancelled; got != "A" {
			t.Fatalf("block cancelled on %s", got)
		}
		// A cancelled request is never answered: the stream ends empty.
		if got := s.next(t); got != "" {
			t.Fatalf("A's stream after the cancel: %s, want its end", got)
		}
	})

	t.Run("a listen stream on B receives the changes made on A", func(t *testing.T) {
		a, b := newRoutingCluster(t, newRouting)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s := b.postModern(t, ctx, 1, "subscriptions/listen", "", `"notifications":{"toolsListChanged":true,"resourceSubscriptions":["test://r"]}`)
		if got, want := s.next(t), `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"toolsListChanged":true,"resourceSubscriptions":["test://r"]}}}`; got != want {
			t.Fatalf("B's listen stream: %s\nwant %s", got, want)
		}
		_ = mcp.AddTool(a.srv, &mcp.Tool{Name: "later", Description: "later"}, func(context.Context, *mcp.Request, struct{}) (string, error) { return "", nil })
		if got, want := s.next(t), `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}`; got != want {
			t.Fatalf("B's listen stream after AddTool on A: %s\nwant %s", got, want)
		}
		if err := a.srv.ResourceUpdated(context.Background(), "test://r"); err != nil {
			t.Fatal(err)
		}
		if got, want := s.next(t), `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"uri":"test://r"}}`; got != want {
			t.Fatalf("B's listen stream after ResourceUpdated on A: %s\nwant %s", got, want)
		}
		// A change to a resource B's stream did not ask for is not sent.
		if err := a.srv.ResourceUpdated(context.Background(), "test://other"); err != nil {
			t.Fatal(err)
		}
		_ = mcp.AddTool(b.srv, &mcp.Tool{Name: "here", Description: "here"}, func(context.Context, *mcp.Request, struct{}) (string, error) { return "", nil })
		if got, want := s.next(t), `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}`; got != want {
			t.Fatalf("B's listen stream after AddTool on B: %s\nwant %s", got, want)
		}
	})

	t.Run("an MRTR retry with the requestState A issued is served on B", func(t *testing.T) {
		a, b := newRoutingCluster(t, newRouting)
		ctx := context.Background()
		first := a.postModern(t, ctx, 1, "tools/call", "ask", `"name":"ask","arguments":{}`).one(t)
		var res struct {
			Result struct {
				ResultType    string          `json:"resultType"`
				InputRequests json.RawMessage `json:"inputRequests"`
				RequestState  string          `json:"requestState"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(first), &res); err != nil || res.Result.ResultType != "input_required" || res.Result.RequestState == "" {
			t.Fatalf("ask on A: %s, want input_required with a requestState", first)
		}
		var asks map[string]json.RawMessage
		if err := json.Unmarshal(res.Result.InputRequests, &asks); err != nil || len(asks) != 1 {
			t.Fatalf("inputRequests %s, want one", res.Result.InputRequests)
		}
		var key string
		for k := range asks {
			key = k
		}
		retry := fmt.Sprintf(`"name":"ask","arguments":{},"inputResponses":{%q:{"action":"accept","content":{"name":"Gopher"}}},"requestState":%q`, key, res.Result.RequestState)
		got := b.postModern(t, ctx, 2, "tools/call", "ask", retry).one(t)
		if want := `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"replica","version":"1"}},"content":[{"type":"text","text":"accept on B: {\"name\":\"Gopher\"}"}]}}`; got != want {
			t.Fatalf("retry on B: %s\nwant %s", got, want)
		}
		// A state altered on the way is refused, on either replica.
		bad := strings.Replace(retry, res.Result.RequestState, "x"+res.Result.RequestState, 1)
		if got := b.postModern(t, ctx, 3, "tools/call", "ask", bad).one(t); got != `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params","data":"requestState is not one this server issued, or was altered"}}` {
			t.Fatalf("retry with an altered state on B: %s, want -32602", got)
		}
	})

	t.Run("a task created on A is got, updated and cancelled on B", func(t *testing.T) {
		a, b := newRoutingCluster(t, newRouting)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		id := taskID(t, a.postModern(t, ctx, 1, "tools/call", "task-ask", `"name":"task-ask","arguments":{}`).one(t))
		// B follows the task: its status changes on A arrive through
		// the bus.
		l := b.postModern(t, ctx, 2, "subscriptions/listen", "", `"notifications":{"taskIds":[`+strconv.Quote(id)+`]}`)
		if got := l.next(t); !strings.Contains(got, `"notifications/subscriptions/acknowledged"`) || !strings.Contains(got, `"taskIds":[`+strconv.Quote(id)+`]`) {
			t.Fatalf("B's listen stream: %s", got)
		}
		status := func(n int) (string, string) {
			got := b.postModern(t, ctx, n, "tasks/get", id, `"taskId":`+strconv.Quote(id)).one(t)
			var r struct {
				Result struct {
					Status        string          `json:"status"`
					InputRequests json.RawMessage `json:"inputRequests"`
					Result        json.RawMessage `json:"result"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(got), &r); err != nil {
				t.Fatalf("tasks/get on B: %s", got)
			}
			detail := string(r.Result.InputRequests) + string(r.Result.Result)
			return r.Result.Status, detail
		}
		// until waits on B's listen stream for the task to reach want,
		// unless tasks/get already shows it.
		until := func(n int, want string) string {
			if st, detail := status(n); st == want {
				return detail
			}
			for {
				got := l.next(t)
				if got == "" {
					t.Fatalf("B's listen stream ended before the task was %s", want)
				}
				if strings.Contains(got, `"status":"`+want+`"`) {
					_, detail := status(n)
					return detail
				}
			}
		}
		if got, want := until(3, "input_required"), `{"elicitation/create#1":{"method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}}`; got != want {
			t.Fatalf("the task's inputRequests on B: %s\nwant %s", got, want)
		}
		var asks map[string]json.RawMessage
		_, detail := status(4)
		if err := json.Unmarshal([]byte(detail), &asks); err != nil || len(asks) != 1 {
			t.Fatalf("inputRequests %s", detail)
		}
		var key string
		for k := range asks {
			key = k
		}
		if got := b.postModern(t, ctx, 5, "tasks/update", id, `"taskId":`+strconv.Quote(id)+`,"inputResponses":{`+strconv.Quote(key)+`:{"action":"accept","content":{"name":"Gopher"}}}`).one(t); got != `{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"replica","version":"1"}}}}` {
			t.Fatalf("tasks/update on B: %s", got)
		}
		// Answered on B while A runs the work: B's own tasks/get no longer
		// asks for it (SEP-2663), whether or not A has had the bus message.
		if st, detail := status(50); st == "input_required" && strings.Contains(detail, strconv.Quote(key)) {
			t.Fatalf("tasks/get on B right after tasks/update still asks %s: %s", key, detail)
		}
		if got, want := until(6, "completed"), `{"resultType":"complete","content":[{"type":"text","text":"accept on A: {\"name\":\"Gopher\"}"}]}`; got != want {
			t.Fatalf("the task's result on B: %s\nwant %s", got, want)
		}

		id = taskID(t, a.postModern(t, ctx, 7, "tools/call", "task-block", `"name":"task-block","arguments":{}`).one(t))
		if got := <-a.rs.started; got != "A" {
			t.Fatalf("task-block started on %s", got)
		}
		if got := b.postModern(t, ctx, 8, "tasks/cancel", id, `"taskId":`+strconv.Quote(id)).one(t); got != `{"jsonrpc":"2.0","id":8,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"replica","version":"1"}}}}` {
			t.Fatalf("tasks/cancel on B: %s", got)
		}
		if got := <-a.rs.cancelled; got != "A" {
			t.Fatalf("task-block cancelled on %s", got)
		}
		if st, _ := status(9); st != "cancelled" {
			t.Fatalf("the task is %s on B after tasks/cancel, want cancelled", st)
		}
	})

	t.Run("a session-era task running on A is cancelled on B", func(t *testing.T) {
		a, b := newRoutingCluster(t, newRouting)
		r := a.do(t, http.MethodPost, "", "", initElicit)
		sid := r.header.Get("Mcp-Session-Id")
		if r.status != http.StatusOK || sid == "" || !strings.Contains(r.body, `"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`) {
			t.Fatalf("initialize on A: %d %q %s", r.status, sid, r.body)
		}
		a.do(t, http.MethodPost, sid, "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`).want(t, "notifications/initialized on A", http.StatusAccepted, "")
		created := a.postSSE(t, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"task-block","arguments":{},"task":{}}}`).next(t)
		id := sessionTaskID(t, created, "tools/call as a task on A")
		if got := <-a.rs.started; got != "A" {
			t.Fatalf("task-block started on %s", got)
		}
		got := b.postSSE(t, sid, `{"jsonrpc":"2.0","id":3,"method":"tasks/cancel","params":{"taskId":`+strconv.Quote(id)+`}}`).next(t)
		if !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":3,"result":{"taskId":`+strconv.Quote(id)+`,"status":"cancelled","statusMessage":"The task was cancelled by request."`) {
			t.Fatalf("tasks/cancel on B: %s", got)
		}
		if got := <-a.rs.cancelled; got != "A" {
			t.Fatalf("task-block cancelled on %s", got)
		}
	})
}

// sessionTaskID reads the task id of a session-era CreateTaskResult
// ({"task":{...}}), which must be a working task; what says which call
// made it.
func sessionTaskID(t *testing.T, created, what string) string {
	t.Helper()
	var c struct {
		Result struct {
			Task struct {
				TaskID string `json:"taskId"`
				Status string `json:"status"`
			} `json:"task"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(created), &c); err != nil || c.Result.Task.TaskID == "" || c.Result.Task.Status != "working" {
		t.Fatalf("%s: %s", what, created)
	}
	return c.Result.Task.TaskID
}

// taskID reads the task id of a stateless-era CreateTaskResult.
func taskID(t *testing.T, created string) string {
	t.Helper()
	var r struct {
		Result struct {
			ResultType string `json:"resultType"`
			TaskID     string `json:"taskId"`
			Status     string `json:"status"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(created), &r); err != nil || r.Result.ResultType != "task" || r.Result.TaskID == "" || r.Result.Status != "working" {
		t.Fatalf("tools/call as a task: %s, want a working task", created)
	}
	return r.Result.TaskID
}
