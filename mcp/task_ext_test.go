package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// Tests of the tasks extension of the stateless era (SEP-2663,
// io.modelcontextprotocol/tasks), over Host.ServeStateless and the
// in-memory transport. Most run in a synctest bubble, where the clock
// starts at 2000-01-01T00:00:00Z and moves only when every goroutine
// waits, so that timestamps and TTLs are exact; every frame is compared
// whole and checked against the extension's shapes (and the 2026-07-28
// schema they refer to).

// mask replaces a task id in a frame with "ID".
func mask(frame, id string) string { return strings.ReplaceAll(frame, id, "ID") }

func TestTasksExtDiscover(t *testing.T) {
	caps := func(srv *mcp.Server) string {
		t.Helper()
		resp := txCall(t, srv, 1, "server/discover", txNone, "")
		var r struct {
			Result struct {
				Capabilities json.RawMessage `json:"capabilities"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(resp), &r); err != nil {
			t.Fatal(err)
		}
		return string(r.Result.Capabilities)
	}

	srv, _ := txServer(t, nil)
	// Declared as an extension; the session era's tasks capability is gone.
	txWant(t, "with task tools", caps(srv), `{"tools":{"listChanged":true},"extensions":{"io.modelcontextprotocol/tasks":{}}}`)

	plain := mcp.NewServer(mcp.Implementation{Name: "tx-server", Version: "1.0.0"}, nil)
	if err := plain.AddTool(&mcp.Tool{Name: "plain"}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	txWant(t, "without task tools", caps(plain), `{"tools":{"listChanged":true}}`)
	// Not offered: its methods do not exist.
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		resp, refused, _ := txServe(t, plain, `{"jsonrpc":"2.0","id":2,"method":"`+method+`","params":`+txParams(txExt, `,"taskId":"x","inputResponses":{}`)+`}`, nil)
		txWant(t, method+" not offered", resp, txErr(2, -32601, "Method not found", `"`+method+`"`))
		if !refused {
			t.Errorf("%s not offered: not refused", method)
		}
	}

	// Capabilities set by hand: the extension is declared when they name
	// it.
	named := mcp.NewServer(mcp.Implementation{Name: "tx-server", Version: "1.0.0"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Extensions: map[string]json.RawMessage{mcp.TasksExtensionID: json.RawMessage(`{}`)}},
	})
	txWant(t, "named in ServerOptions.Capabilities", caps(named), `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`)
}

func TestTasksExtLifecycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := txServer(t, nil)
		id, created := txStart(t, srv, 1, "work", txExt)
		txWant(t, "CreateTaskResult", created,
			`{"jsonrpc":"2.0","id":1,"result":{`+txInfo+`,"resultType":"task",`+txTask("working", "", "")+`}}`)
		txValidate(t, "ExtCreateTaskResponse", created)

		// Durably created: tasks/get resolves at once.
		got := mask(txCall(t, srv, 2, "tasks/get", txExt, `,"taskId":"`+id+`"`), id)
		txWant(t, "tasks/get working", got, txGet(2, "working", "", "", ""))
		txValidate(t, "ExtGetTaskResponse", got)

		time.Sleep(time.Second)
		close(g.release)
		synctest.Wait()
		got = mask(txCall(t, srv, 3, "tasks/get", txExt, `,"taskId":"`+id+`"`), id)
		txWant(t, "tasks/get completed", got, txGet(3, "completed", "2000-01-01T00:00:01Z", "",
			`,"result":{"resultType":"complete","content":[{"type":"text","text":"worked"}]}`))
		txValidate(t, "ExtGetTaskResponse", got)

		// Cancelling a terminal task is acknowledged and changes nothing.
		got = txCall(t, srv, 4, "tasks/cancel", txExt, `,"taskId":"`+id+`"`)
		txWant(t, "tasks/cancel of a completed task", got, txAck(4))
		txValidate(t, "ExtAckResponse", got)
		got = mask(txCall(t, srv, 5, "tasks/get", txExt, `,"taskId":"`+id+`"`), id)
		txWant(t, "tasks/get after the cancel", got, txGet(5, "completed", "2000-01-01T00:00:01Z", "",
			`,"result":{"resultType":"complete","content":[{"type":"text","text":"worked"}]}`))
	})
}

func TestTasksExtWithoutDeclaration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, _ := txServer(t, nil)
		// An optional tool runs inline.
		got := txCall(t, srv, 1, "tools/call", txNone, `,"name":"quick","arguments":{}`)
		txWant(t, "optional tool", got, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",`+txInfo+`,"content":[{"type":"text","text":"quick"}]}}`)
		// A required one cannot be served: -32021 naming the extension, a
		// refusal (HTTP 400).
		got = txRefused(t, srv, 2, "tools/call", txNone, `,"name":"job","arguments":{}`)
		txWant(t, "required tool", got, txMissingExt(2))
		txValidate(t, "MissingRequiredClientCapabilityError", got)
		// The extension's methods need the declaration too.
		for i, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
			got := txRefused(t, srv, 3+i, method, `{"sampling":{}}`, `,"taskId":"gate-test","inputResponses":{}`)
			txWant(t, method, got, txMissingExt(3+i))
		}
		// So do task notifications on a listen stream.
		got = txRefused(t, srv, 6, "subscriptions/listen", txNone, `,"notifications":{"taskIds":["x"]}`)
		txWant(t, "listen for tasks", got, txMissingExt(6))
		// An extension named with a value that is not an object is not
		// declared.
		got = txRefused(t, srv, 7, "tools/call", `{"extensions":{"io.modelcontextprotocol/tasks":null}}`, `,"name":"job","arguments":{}`)
		txWant(t, "declared as null", got, txMissingExt(7))

		// The session era's task param is ignored: a tool that never runs
		// as a task runs inline, with or without it.
		got = txCall(t, srv, 8, "tools/call", txExt, `,"name":"plain","arguments":{},"task":{"ttl":60000,"pollInterval":100}`)
		txWant(t, "legacy task param", got, `{"jsonrpc":"2.0","id":8,"result":{"resultType":"complete",`+txInfo+`,"content":[{"type":"text","text":"plain"}]}}`)

		// tasks/result and tasks/list are not part of the extension.
		for _, method := range []string{"tasks/result", "tasks/list"} {
			resp, refused, _ := txServe(t, srv, `{"jsonrpc":"2.0","id":9,"method":"`+method+`","params":`+txParams(txExt, `,"taskId":"x"`)+`}`, nil)
			txWant(t, method, resp, txErr(9, -32601, "Method not found", `"`+method+`"`))
			if !refused {
				t.Errorf("%s: not refused", method)
			}
		}
	})
}

func TestTasksExtOutcomes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, _ := txServer(t, nil)
		for i, c := range []struct {
			tool, status, extra, payload string
		}{
			// Every task-capable tool becomes a task when the client
			// declares the extension, even a quick one.
			{"quick", "completed", "", `,"result":{"resultType":"complete","content":[{"type":"text","text":"quick"}]}`},
			{"job", "completed", "", `,"result":{"resultType":"complete","content":[{"type":"text","text":"job done"}]}`},
			// A tool error completes the task: failed is for JSON-RPC
			// errors.
			{"tool_err", "completed", "", `,"result":{"resultType":"complete","content":[{"type":"text","text":"boom"}],"isError":true}`},
			{"rpc_err", "failed", `"statusMessage":"API rate limit exceeded: retry later",`, `,"error":{"code":-32603,"message":"API rate limit exceeded","data":"retry later"}`},
			// A panic is an internal error, with nothing of it on the wire.
			{"panics", "failed", `"statusMessage":"Internal error",`, `,"error":{"code":-32603,"message":"Internal error"}`},
		} {
			id, _ := txStart(t, srv, 10*i, c.tool, txExt)
			synctest.Wait()
			got := mask(txCall(t, srv, 10*i+1, "tasks/get", txExt, `,"taskId":"`+id+`"`), id)
			txWant(t, c.tool, got, txGet(10*i+1, c.status, "", c.extra, c.payload))
			txValidate(t, "ExtGetTaskResponse", got)
		}
	})
}

func TestTasksExtCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := txServer(t, nil)
		id, _ := txStart(t, srv, 1, "work", txExt)
		time.Sleep(2 * time.Second)
		got := txCall(t, srv, 2, "tasks/cancel", txExt, `,"taskId":"`+id+`"`)
		txWant(t, "tasks/cancel", got, txAck(2))
		txValidate(t, "ExtAckResponse", got)
		// The work is told to stop.
		if err := <-g.ended; !errors.Is(err, context.Canceled) {
			t.Errorf("the work's context ended with %v, want context.Canceled", err)
		}
		synctest.Wait()
		want := txGet(3, "cancelled", "2000-01-01T00:00:02Z", `"statusMessage":"The task was cancelled by request.",`, "")
		got = mask(txCall(t, srv, 3, "tasks/get", txExt, `,"taskId":"`+id+`"`), id)
		txWant(t, "tasks/get cancelled", got, want)
		txValidate(t, "ExtGetTaskResponse", got)
		// Again: the same ack, and the task stays as it was.
		time.Sleep(time.Second)
		txWant(t, "second tasks/cancel", txCall(t, srv, 4, "tasks/cancel", txExt, `,"taskId":"`+id+`"`), txAck(4))
		got = mask(txCall(t, srv, 3, "tasks/get", txExt, `,"taskId":"`+id+`"`), id)
		txWant(t, "tasks/get after a second cancel", got, want)
	})
}

func TestTasksExtProtocolErrors(t *testing.T) {
	srv, _ := txServer(t, nil)
	for _, c := range []struct {
		method, rest, want string
	}{
		{"tasks/get", `,"taskId":"tasks-conformance-nonexistent-12345"`, txErr(1, -32602, "Invalid params", `"Failed to retrieve task: Task not found"`)},
		{"tasks/update", `,"taskId":"nope","inputResponses":{}`, txErr(1, -32602, "Invalid params", `"Failed to update task: Task not found"`)},
		{"tasks/cancel", `,"taskId":"nope"`, txErr(1, -32602, "Invalid params", `"Failed to cancel task: Task not found"`)},
		{"tasks/get", ``, txErr(1, -32602, "Invalid params", `"taskId is required"`)},
		{"tasks/cancel", `,"taskId":""`, txErr(1, -32602, "Invalid params", `"taskId is required"`)},
		{"tasks/update", `,"inputResponses":{}`, txErr(1, -32602, "Invalid params", `"taskId is required and must be a string"`)},
		{"tasks/update", `,"taskId":5,"inputResponses":{}`, txErr(1, -32602, "Invalid params", `"taskId is required and must be a string"`)},
		{"tasks/update", `,"taskId":"nope"`, txErr(1, -32602, "Invalid params", `"inputResponses is required and must be an object of input responses"`)},
		{"tasks/update", `,"taskId":"nope","inputResponses":null`, txErr(1, -32602, "Invalid params", `"inputResponses is required and must be an object of input responses"`)},
		{"tasks/update", `,"taskId":"nope","inputResponses":[]`, txErr(1, -32602, "Invalid params", `"inputResponses is required and must be an object of input responses"`)},
	} {
		txWant(t, c.method+" "+c.rest, txCall(t, srv, 1, c.method, txExt, c.rest), c.want)
	}
}

func TestTasksExtInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, _ := txServer(t, nil)
		id, created := txStart(t, srv, 1, "confirm", txExtAll)
		txWant(t, "CreateTaskResult", created,
			`{"jsonrpc":"2.0","id":1,"result":{`+txInfo+`,"resultType":"task",`+txTask("working", "", "")+`}}`)
		synctest.Wait()
		get := func(n int) string {
			return mask(txCall(t, srv, n, "tasks/get", txExt, `,"taskId":"`+id+`"`), id)
		}
		update := func(n int, responses string) string {
			return txCall(t, srv, n, "tasks/update", txExt, `,"taskId":"`+id+`","inputResponses":`+responses)
		}
		waiting := func(n int) string {
			return txGet(n, "input_required", "", "", `,"inputRequests":{"confirm":`+txConfirmRequest+`}`)
		}
		got := get(2)
		txWant(t, "tasks/get input_required", got, waiting(2))
		txValidate(t, "ExtGetTaskResponse", got)
		// A read changes nothing.
		txWant(t, "tasks/get again", get(3), waiting(3))

		// Keys not outstanding are ignored.
		got = update(4, `{"unknown-key":{"ignored":true}}`)
		txWant(t, "tasks/update with an unknown key", got, txAck(4))
		txValidate(t, "ExtAckResponse", got)
		txWant(t, "after an unknown key", get(5), waiting(5))
		// A malformed answer is refused whole.
		txWant(t, "tasks/update with a bad answer", update(6, `{"confirm":{"action":"maybe"},"other":{}}`),
			txErr(6, -32602, "Invalid params", `"inputResponses[\"confirm\"]: action \"maybe\" is not accept, decline or cancel"`))
		txWant(t, "tasks/update with a number", update(7, `{"confirm":12345}`),
			txErr(7, -32602, "Invalid params", `"inputResponses[\"confirm\"]: must be an object"`))
		txWant(t, "after bad answers", get(8), waiting(8))

		txWant(t, "tasks/update", update(9, `{"confirm":`+txYes+`}`), txAck(9))
		synctest.Wait()
		got = get(10)
		txWant(t, "tasks/get completed", got, txGet(10, "completed", "", "",
			`,"result":{"resultType":"complete","content":[{"type":"text","text":"action=accept content={\"confirm\":true}"}]}`))
		// The request is answered: answering it again is ignored.
		txWant(t, "tasks/update after the end", update(11, `{"confirm":`+txYes+`}`), txAck(11))
	})
}

func TestTasksExtPartialInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, _ := txServer(t, nil)
		id, _ := txStart(t, srv, 1, "two", txExtAll)
		synctest.Wait()
		get := func(n int) string {
			return mask(txCall(t, srv, n, "tasks/get", txExt, `,"taskId":"`+id+`"`), id)
		}
		update := func(n int, responses string) string {
			return txCall(t, srv, n, "tasks/update", txExt, `,"taskId":"`+id+`","inputResponses":`+responses)
		}
		txWant(t, "both asked", get(2), txGet(2, "input_required", "", "",
			`,"inputRequests":{"a":`+txNameRequest("a")+`,"b":`+txNameRequest("b")+`}`))
		// One answer: the other stays outstanding.
		txWant(t, "answer a", update(3, `{"a":`+txName("Ann")+`}`), txAck(3))
		got := get(4)
		txWant(t, "a answered", got, txGet(4, "input_required", "", "", `,"inputRequests":{"b":`+txNameRequest("b")+`}`))
		txValidate(t, "ExtGetTaskResponse", got)
		// Answering a again is ignored.
		txWant(t, "answer a again", update(5, `{"a":`+txName("Zed")+`}`), txAck(5))
		txWant(t, "answer b", update(6, `{"b":`+txName("Bob")+`}`), txAck(6))
		synctest.Wait()
		txWant(t, "both answered", get(7), txGet(7, "completed", "", "",
			`,"result":{"resultType":"complete","content":[{"type":"text","text":"a=Ann b=Bob"}]}`))
	})
}

func TestTasksExtInputKeysAreNeverReused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, _ := txServer(t, nil)
		id, _ := txStart(t, srv, 1, "again", txExtAll)
		synctest.Wait()
		get := func(n int) string {
			return mask(txCall(t, srv, n, "tasks/get", txExt, `,"taskId":"`+id+`"`), id)
		}
		update := func(n int, responses string) string {
			return txCall(t, srv, n, "tasks/update", txExt, `,"taskId":"`+id+`","inputResponses":`+responses)
		}
		txWant(t, "first", get(2), txGet(2, "input_required", "", "", `,"inputRequests":{"k":`+txNameRequest("k")+`}`))
		txWant(t, "answer k", update(3, `{"k":`+txName("Ann")+`}`), txAck(3))
		synctest.Wait()
		// The handler asks under "k" again; on the wire it is a new key.
		txWant(t, "second", get(4), txGet(4, "input_required", "", "", `,"inputRequests":{"k#2":`+txNameRequest("k")+`}`))
		txWant(t, "answer k again", update(5, `{"k":`+txName("Zed")+`}`), txAck(5))
		txWant(t, "still second", get(6), txGet(6, "input_required", "", "", `,"inputRequests":{"k#2":`+txNameRequest("k")+`}`))
		txWant(t, "answer k#2", update(7, `{"k#2":`+txName("Bob")+`}`), txAck(7))
		synctest.Wait()
		txWant(t, "done", get(8), txGet(8, "completed", "", "",
			`,"result":{"resultType":"complete","content":[{"type":"text","text":"first=Ann second=Bob"}]}`))
	})
}

// A tool with Tool.InputBeforeTask gathers input by input_required
// results and retries before its task exists, and gets its task on the
// round that has the answers: no taskId before, no requestState nor
// inputRequests on the CreateTaskResult, the answers reaching the work,
// and the task's own input keys separate from the earlier phase's
// (SEP-2663, "Task Creation" and "Composition with Multi Round-Trip
// Requests").
func TestTasksExtInputBeforeTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := txServer(t, nil)
		stateRE := regexp.MustCompile(`"requestState":"([^"]*)"`)
		call := func(id int, caps, rest string) (frame, state string) {
			t.Helper()
			frame = txCall(t, srv, id, "tools/call", caps, `,"name":"prelude","arguments":{}`+rest)
			if m := stateRE.FindStringSubmatch(frame); m != nil {
				return strings.Replace(frame, m[1], "STATE", 1), m[1]
			}
			return frame, ""
		}
		userAsked := func(id int) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{%s,"resultType":"input_required","inputRequests":{"user":%s},"requestState":"STATE"}}`,
				id, txInfo, txNameRequest("user"))
		}

		// Round 1: input_required, no task.
		got, state := call(1, txExtAll, "")
		txWant(t, "round 1", got, userAsked(1))
		if state == "" {
			t.Fatal("round 1 has no requestState")
		}
		// A retry without the answer asks again, still without a task.
		got, _ = call(2, txExtAll, `,"inputResponses":{},"requestState":"`+state+`"`)
		txWant(t, "retry without the answer", got, userAsked(2))
		// A bad answer is refused as any retry's is.
		got, _ = call(3, txExtAll, `,"inputResponses":{"user":{"action":"accept","content":{"name":7}}}`)
		if !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,`) {
			t.Errorf("a bad answer: %s", got)
		}
		// Round 2, with the answer: the task.
		got, _ = call(4, txExtAll, `,"inputResponses":{"user":`+txName("Ann")+`},"requestState":"`+state+`"`)
		m := txIDRE.FindStringSubmatch(got)
		if m == nil {
			t.Fatalf("round 2 created no task: %s", got)
		}
		id := m[1]
		txWant(t, "round 2 (CreateTaskResult)", mask(got, id),
			`{"jsonrpc":"2.0","id":4,"result":{`+txInfo+`,"resultType":"task",`+txTask("working", "", "")+`}}`)
		synctest.Wait()
		get := func(n int) string {
			return mask(txCall(t, srv, n, "tasks/get", txExt, `,"taskId":"`+id+`"`), id)
		}
		// The work has "user" from round 2 and asks only "confirm".
		got = get(5)
		txWant(t, "tasks/get", got, txGet(5, "input_required", "", "", `,"inputRequests":{"confirm":`+txConfirmRequest+`}`))
		txValidate(t, "ExtGetTaskResponse", got)
		txWant(t, "tasks/update", txCall(t, srv, 6, "tasks/update", txExt, `,"taskId":"`+id+`","inputResponses":{"confirm":`+txYes+`}`), txAck(6))
		synctest.Wait()
		txWant(t, "completed", get(7), txGet(7, "completed", "", "",
			`,"result":{"resultType":"complete","content":[{"type":"text","text":"user=Ann confirm={\"confirm\":true}"}]}`))
		// Rounds 1 to 4 before the task (the bad answer stopped the
		// handler at its Input), then once as the task's work.
		if n := g.runs.Load(); n != 5 {
			t.Errorf("the handler ran %d times, want 5", n)
		}

		// Without the extension a required tool is refused before its
		// handler runs.
		txWant(t, "without the extension", txRefused(t, srv, 8, "tools/call", `{"elicitation":{}}`, `,"name":"prelude","arguments":{}`), txMissingExt(8))
		if n := g.runs.Load(); n != 5 {
			t.Errorf("the handler ran %d times, want 5", n)
		}
	})
}

// An optional tool with Tool.InputBeforeTask called without the tasks
// extension runs inline: BeginTask returns nil and every Input is a
// round of input_required results.
func TestTasksExtInputBeforeTaskInline(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "tx-server", Version: "1.0.0"}, nil)
	var begin []error
	tool := &mcp.Tool{Name: "inline", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}, InputBeforeTask: true}
	if err := srv.AddTool(tool, func(ctx context.Context, r *mcp.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		begin = append(begin, r.BeginTask())
		if _, err := r.Input(ctx, map[string]*mcp.InputRequest{"ok": mcp.RootsInput()}); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "inline"}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	got := txCall(t, srv, 1, "tools/call", `{"roots":{}}`, `,"name":"inline","arguments":{},"inputResponses":{"ok":{"roots":[]}}`)
	txWant(t, "inline", got, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",`+txInfo+`,"content":[{"type":"text","text":"inline"}]}}`)
	if len(begin) != 1 || begin[0] != nil {
		t.Errorf("BeginTask returned %v, want [<nil>]", begin)
	}
	// A tool that never runs as a task cannot ask for it.
	err := srv.AddTool(&mcp.Tool{Name: "never", InputBeforeTask: true}, func(context.Context, *mcp.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return nil, nil
	})
	if want := `mcp: tool "never": InputBeforeTask needs execution.taskSupport "optional" or "required"`; err == nil || err.Error() != want {
		t.Errorf("AddTool = %v, want %s", err, want)
	}
}

func TestTasksExtElicitAndCapabilities(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := txServer(t, nil)
		// Request.Elicit asks under an automatic key.
		id, _ := txStart(t, srv, 1, "elicit", txExtAll)
		synctest.Wait()
		got := mask(txCall(t, srv, 2, "tasks/get", txExt, `,"taskId":"`+id+`"`), id)
		txWant(t, "elicit", got, txGet(2, "input_required", "", "", `,"inputRequests":{"elicitation/create#1":`+txNameRequest("elicit")+`}`))
		txWant(t, "answer", txCall(t, srv, 3, "tasks/update", txExt, `,"taskId":"`+id+`","inputResponses":{"elicitation/create#1":`+txName("Eve")+`}`), txAck(3))
		synctest.Wait()
		got = mask(txCall(t, srv, 4, "tasks/get", txExt, `,"taskId":"`+id+`"`), id)
		txWant(t, "elicited", got, txGet(4, "completed", "", "",
			`,"result":{"resultType":"complete","content":[{"type":"text","text":"elicited {\"name\":\"Eve\"}"}]}`))

		// Input the creating request did not declare it can give is not
		// asked for: the task fails with -32021.
		id, _ = txStart(t, srv, 5, "sample", txExt)
		synctest.Wait()
		if err := <-g.asked; !errors.Is(err, mcp.ErrCapabilityNotDeclared) || err.Error() != "mcp: sampling/createMessage not sent: the client did not declare the sampling capability" {
			t.Errorf("CreateMessage without sampling: %v, want ErrCapabilityNotDeclared for sampling", err)
		}
		got = mask(txCall(t, srv, 6, "tasks/get", txExt, `,"taskId":"`+id+`"`), id)
		txWant(t, "sampling not declared", got, txGet(6, "failed", "", `"statusMessage":"Missing required client capability: sampling",`,
			`,"error":{"code":-32021,"message":"Missing required client capability: sampling","data":{"requiredCapabilities":{"sampling":{}}}}`))
		txValidate(t, "ExtGetTaskResponse", got)
	})
}

func TestTasksExtCancelWhileWaitingForInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := txServer(t, nil)
		id, _ := txStart(t, srv, 1, "confirm", txExtAll)
		synctest.Wait()
		txWant(t, "tasks/cancel", txCall(t, srv, 2, "tasks/cancel", txExt, `,"taskId":"`+id+`"`), txAck(2))
		if err := <-g.asked; !errors.Is(err, context.Canceled) {
			t.Errorf("Request.Input returned %v, want context.Canceled", err)
		}
		synctest.Wait()
		got := mask(txCall(t, srv, 3, "tasks/get", txExt, `,"taskId":"`+id+`"`), id)
		txWant(t, "cancelled", got, txGet(3, "cancelled", "", `"statusMessage":"The task was cancelled by request.",`, ""))
		txWant(t, "tasks/update of a cancelled task", txCall(t, srv, 4, "tasks/update", txExt, `,"taskId":"`+id+`","inputResponses":{"confirm":`+txYes+`}`), txAck(4))
	})
}

func TestTasksExtStatusMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := txServer(t, nil)
		id, _ := txStart(t, srv, 1, "status", txExt)
		synctest.Wait()
		got := mask(txCall(t, srv, 2, "tasks/get", txExt, `,"taskId":"`+id+`"`), id)
		txWant(t, "status message", got, txGet(2, "working", "", `"statusMessage":"halfway",`, ""))
		close(g.release)
		synctest.Wait()
		got = mask(txCall(t, srv, 3, "tasks/get", txExt, `,"taskId":"`+id+`"`), id)
		txWant(t, "completed", got, txGet(3, "completed", "", "", `,"result":{"resultType":"complete","content":[{"type":"text","text":"done"}]}`))
	})
}

func TestTasksExtTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := txServer(t, &mcp.ServerOptions{Tasks: mcp.TaskOptions{DefaultTTL: time.Minute, PollInterval: 250 * time.Millisecond}})
		id, created := txStart(t, srv, 1, "work", txExt)
		txWant(t, "CreateTaskResult", created, `{"jsonrpc":"2.0","id":1,"result":{`+txInfo+`,"resultType":"task",`+
			`"taskId":"ID","status":"working","createdAt":"`+txT0+`","lastUpdatedAt":"`+txT0+`","ttlMs":60000,"pollIntervalMs":250}}`)
		time.Sleep(time.Minute - time.Millisecond)
		got := mask(txCall(t, srv, 2, "tasks/get", txExt, `,"taskId":"`+id+`"`), id)
		txWant(t, "before the TTL", got, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete",`+txInfo+`,`+
			`"taskId":"ID","status":"working","createdAt":"`+txT0+`","lastUpdatedAt":"`+txT0+`","ttlMs":60000,"pollIntervalMs":250}}`)
		time.Sleep(time.Millisecond)
		// The TTL stops the work and the task is gone.
		if err := <-g.ended; !errors.Is(err, context.Canceled) {
			t.Errorf("the work's context ended with %v, want context.Canceled", err)
		}
		synctest.Wait()
		txWant(t, "after the TTL", txCall(t, srv, 3, "tasks/get", txExt, `,"taskId":"`+id+`"`),
			txErr(3, -32602, "Invalid params", `"Failed to retrieve task: Task not found"`))
	})
}

// TestTasksExtMaxRunning: without TaskOptions.Owner nothing tells
// stateless-era requestors apart, so MaxRunning (per owner) does not apply
// to them: MaxRunningTotal, the server's bound, does.
func TestTasksExtMaxRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := txServer(t, &mcp.ServerOptions{Tasks: mcp.TaskOptions{MaxRunning: 1, MaxRunningTotal: 2}})
		txStart(t, srv, 1, "work", txExt)
		txStart(t, srv, 2, "work", txExt) // MaxRunning is not theirs
		txWant(t, "third task", txCall(t, srv, 2, "tools/call", txExt, `,"name":"work","arguments":{}`),
			txErr(2, -32600, "Invalid Request", `"Invalid Request: too many tasks running: at most 2 at once on this server (TaskOptions.MaxRunningTotal)"`))
		close(g.release)
		synctest.Wait()
		txStart(t, srv, 3, "quick", txExt)
		synctest.Wait()
	})
}

// txListen opens a subscriptions/listen stream with filter; stop ends it
// and returns the final response frame.
func txListen(t *testing.T, srv *mcp.Server, id int, caps, filter string, extra *mcp.RequestExtra) (w *modWriter, stop func() string) {
	t.Helper()
	frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":%s}`, id, txParams(caps, `,"notifications":`+filter))
	msg, _, err := jsonrpc.Decode([]byte(frame))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w = &modWriter{}
	done := make(chan string, 1)
	go func() {
		resp, _, _ := srv.Host().ServeStateless(ctx, nil, msg.(*jsonrpc.Request), w, extra)
		b, _ := jsonrpc.Encode(resp)
		done <- string(b)
	}()
	synctest.Wait()
	return w, func() string {
		cancel()
		return <-done
	}
}

func TestTasksExtNotifications(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, _ := txServer(t, nil)
		id, _ := txStart(t, srv, 1, "confirm", txExtAll)
		other, _ := txStart(t, srv, 2, "confirm", txExtAll)
		synctest.Wait()
		w, stop := txListen(t, srv, 7, txExt, `{"taskIds":["`+id+`"]}`, nil)
		// Another stream follows the other task only.
		w2, stop2 := txListen(t, srv, 8, txExt, `{"taskIds":["`+other+`"]}`, nil)

		const sub = `{"io.modelcontextprotocol/subscriptionId":7}`
		note := func(task string) string {
			return `{"jsonrpc":"2.0","method":"notifications/tasks","params":{"_meta":` + sub + `,` + task + `}}`
		}
		txWant(t, "acknowledged", mask(strings.Join(w.all(), "\n"), id),
			`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":`+sub+`,"notifications":{"taskIds":["ID"]}}}`)

		time.Sleep(time.Second)
		txWant(t, "tasks/update", txCall(t, srv, 3, "tasks/update", txExt, `,"taskId":"`+id+`","inputResponses":{"confirm":`+txYes+`}`), txAck(3))
		synctest.Wait()
		frames := w.all()
		want := []string{
			note(txTask("working", "2000-01-01T00:00:01Z", "")),
			note(txTask("completed", "2000-01-01T00:00:01Z", "") + `,"result":{"resultType":"complete","content":[{"type":"text","text":"action=accept content={\"confirm\":true}"}]}`),
		}
		if len(frames) != 1+len(want) {
			t.Fatalf("listen stream:\n\t%s\nwant the acknowledgement and %d notifications", strings.Join(frames, "\n\t"), len(want))
		}
		for i, f := range frames[1:] {
			txWant(t, fmt.Sprintf("notification %d", i), mask(f, id), want[i])
			txValidate(t, "ExtTaskStatusNotification", f)
		}

		// The other task's notifications go to the other stream only.
		txWant(t, "cancel the other", txCall(t, srv, 4, "tasks/cancel", txExt, `,"taskId":"`+other+`"`), txAck(4))
		synctest.Wait()
		if n := len(w.all()); n != 3 {
			t.Errorf("the first stream got %d frames, want 3", n)
		}
		frames2 := w2.all()
		if len(frames2) != 2 {
			t.Fatalf("second stream:\n\t%s\nwant the acknowledgement and one notification", strings.Join(frames2, "\n\t"))
		}
		txWant(t, "other cancelled", mask(frames2[1], other),
			`{"jsonrpc":"2.0","method":"notifications/tasks","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":8},`+
				txTask("cancelled", "2000-01-01T00:00:01Z", `"statusMessage":"The task was cancelled by request.",`)+`}}`)
		txValidate(t, "ExtTaskStatusNotification", frames2[1])

		for i, end := range []string{stop(), stop2()} {
			if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"tx-server","version":"1.0.0"},"io.modelcontextprotocol/subscriptionId":%d}}}`, 7+i, 7+i); end != want {
				t.Errorf("end of stream %d:\n got %s\nwant %s", i, end, want)
			}
		}
	})
}

func TestTasksExtNotificationOfInputRequired(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, _ := txServer(t, nil)
		w, stop := txListen(t, srv, 7, txExt, `{"taskIds":["will-not-match"]}`, nil)
		// A task the stream did not name sends nothing to it.
		id, _ := txStart(t, srv, 1, "again", txExtAll)
		synctest.Wait()
		if frames := w.all(); len(frames) != 1 {
			t.Errorf("stream:\n\t%s\nwant only the acknowledgement", strings.Join(frames, "\n\t"))
		}
		stop()

		w, stop = txListen(t, srv, 9, txExt, `{"taskIds":["`+id+`"]}`, nil)
		txWant(t, "answer k", txCall(t, srv, 2, "tasks/update", txExt, `,"taskId":"`+id+`","inputResponses":{"k":`+txName("Ann")+`}`), txAck(2))
		synctest.Wait()
		txWant(t, "answer k#2", txCall(t, srv, 3, "tasks/update", txExt, `,"taskId":"`+id+`","inputResponses":{"k#2":`+txName("Bob")+`}`), txAck(3))
		synctest.Wait()
		note := func(task string) string {
			return `{"jsonrpc":"2.0","method":"notifications/tasks","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":9},` + task + `}}`
		}
		// Each answer moves the task back to working before its work asks
		// again or ends.
		want := []string{
			note(txTask("working", "", "")),
			note(txTask("input_required", "", "") + `,"inputRequests":{"k#2":` + txNameRequest("k") + `}`),
			note(txTask("working", "", "")),
			note(txTask("completed", "", "") + `,"result":{"resultType":"complete","content":[{"type":"text","text":"first=Ann second=Bob"}]}`),
		}
		frames := w.all()
		if len(frames) != 1+len(want) {
			t.Fatalf("stream:\n\t%s\nwant the acknowledgement and %d notifications", strings.Join(frames, "\n\t"), len(want))
		}
		for i, f := range frames[1:] {
			txWant(t, fmt.Sprintf("notification %d", i), mask(f, id), want[i])
			txValidate(t, "ExtTaskStatusNotification", f)
		}
		stop()
	})
}

func TestTasksExtOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := txServer(t, &mcp.ServerOptions{Tasks: mcp.TaskOptions{Owner: func(r *mcp.Request) string {
			if r.Extra == nil {
				return ""
			}
			who := r.Extra.Auth.Subject
			return who
		}}})
		as := func(who string) *mcp.RequestExtra { return &mcp.RequestExtra{Auth: &mcp.TokenInfo{Subject: who}} }
		call := func(who string, id int, method, rest string) string {
			t.Helper()
			resp, _, _ := txServe(t, srv, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, txParams(txExt, rest)), as(who))
			return resp
		}
		resp := call("alice", 1, "tools/call", `,"name":"work","arguments":{}`)
		m := txIDRE.FindStringSubmatch(resp)
		if m == nil {
			t.Fatalf("no task: %s", resp)
		}
		id := m[1]
		// Another authorization context does not see the task.
		txWant(t, "bob's tasks/get", call("bob", 2, "tasks/get", `,"taskId":"`+id+`"`),
			txErr(2, -32602, "Invalid params", `"Failed to retrieve task: Task not found"`))
		txWant(t, "bob's tasks/cancel", call("bob", 3, "tasks/cancel", `,"taskId":"`+id+`"`),
			txErr(3, -32602, "Invalid params", `"Failed to cancel task: Task not found"`))
		txWant(t, "bob's tasks/update", call("bob", 4, "tasks/update", `,"taskId":"`+id+`","inputResponses":{}`),
			txErr(4, -32602, "Invalid params", `"Failed to update task: Task not found"`))
		// Nor its notifications.
		w, stop := txListen(t, srv, 5, txExt, `{"taskIds":["`+id+`"]}`, as("bob"))
		txWant(t, "bob's listen", strings.Join(w.all(), "\n"),
			`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":5},"notifications":{}}}`)
		stop()
		w, stop = txListen(t, srv, 6, txExt, `{"taskIds":["`+id+`"]}`, as("alice"))
		txWant(t, "alice's listen", mask(strings.Join(w.all(), "\n"), id),
			`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":6},"notifications":{"taskIds":["ID"]}}}`)
		stop()
		txWant(t, "alice's tasks/get", mask(call("alice", 7, "tasks/get", `,"taskId":"`+id+`"`), id), txGet(7, "working", "", "", ""))
		close(g.release)
		synctest.Wait()
	})
}

// txReply reads frames from c until the response with id (its JSON
// text), skipping notifications (the session era's
// notifications/tasks/status travel on the same connection).
func txReply(t *testing.T, c *schemaConn, id string) string {
	t.Helper()
	for {
		f := string(c.read())
		if strings.HasPrefix(f, `{"jsonrpc":"2.0","id":`+id+`,`) {
			return f
		}
		if !strings.HasPrefix(f, `{"jsonrpc":"2.0","method":"notifications/`) {
			t.Fatalf("waiting for the response %s, got %s", id, f)
		}
	}
}

// TestTasksExtBesideSessions serves both eras on one in-memory
// connection: the session era's tasks are unchanged (tasks/update does not
// exist there) and a stateless-era request on the same connection gets the
// extension's task.
func TestTasksExtBesideSessions(t *testing.T) {
	srv, g := txServer(t, nil)
	c := schemaReady(t, srv)
	txWant(t, "session-era tasks/update", txReply(t, c, c.request("tasks/update", `{"taskId":"x","inputResponses":{}}`)),
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found","data":"tasks/update"}}`)
	// The session era's task-augmented call still gets the nested task.
	resp := txReply(t, c, c.request("tools/call", `{"name":"quick","arguments":{},"task":{"ttl":60000}}`))
	if !strings.Contains(resp, `"result":{"task":{"taskId":"`) || !strings.Contains(resp, `"ttl":60000`) {
		t.Errorf("session-era CreateTaskResult: %s", resp)
	}

	c.send(`{"jsonrpc":"2.0","id":"m1","method":"tools/call","params":` + txParams(txExt, `,"name":"work","arguments":{}`) + `}`)
	created := txReply(t, c, `"m1"`)
	m := txIDRE.FindStringSubmatch(created)
	if m == nil {
		t.Fatalf("no task: %s", created)
	}
	id := m[1]
	if !strings.HasPrefix(created, `{"jsonrpc":"2.0","id":"m1","result":{`+txInfo+`,"resultType":"task","taskId":"`) || !strings.Contains(created, `"ttlMs":3600000,"pollIntervalMs":1000}}`) {
		t.Errorf("stateless-era CreateTaskResult: %s", created)
	}
	txValidate(t, "ExtCreateTaskResponse", created)
	// The session cannot see the stateless era's task.
	txWant(t, "session-era tasks/get of it", txReply(t, c, c.request("tasks/get", `{"taskId":"`+id+`"}`)),
		`{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid params","data":"Failed to retrieve task: Task not found"}}`)
	c.send(`{"jsonrpc":"2.0","id":"m2","method":"tasks/get","params":` + txParams(txExt, `,"taskId":"`+id+`"`) + `}`)
	got := mask(txReply(t, c, `"m2"`), id)
	if !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":"m2","result":{"resultType":"complete",`+txInfo+`,"taskId":"ID","status":"working",`) {
		t.Errorf("stateless-era tasks/get: %s", got)
	}
	// The task ends before the test does (goleak): cancelled, its work
	// returns at once.
	c.send(`{"jsonrpc":"2.0","id":"m3","method":"tasks/cancel","params":` + txParams(txExt, `,"taskId":"`+id+`"`) + `}`)
	txWant(t, "tasks/cancel", txReply(t, c, `"m3"`), `{"jsonrpc":"2.0","id":"m3","result":{"resultType":"complete",`+txInfo+`}}`)
	if err := <-g.ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the work's context ended with %v, want context.Canceled", err)
	}
}

// TestTasksExtAuthOwner: with TaskOptions.Owner nil, a stateless-era task
// created by a request with a verified token belongs to its user: another
// user's requests and listen streams do not find it, even with its id.
func TestTasksExtAuthOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := txServer(t, nil)
		as := func(who string) *mcp.RequestExtra {
			return &mcp.RequestExtra{Auth: &mcp.TokenInfo{Issuer: "https://as.example", Subject: who}}
		}
		call := func(who string, id int, method, rest string) string {
			t.Helper()
			resp, _, _ := txServe(t, srv, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, txParams(txExt, rest)), as(who))
			return resp
		}
		resp := call("alice", 1, "tools/call", `,"name":"work","arguments":{}`)
		m := txIDRE.FindStringSubmatch(resp)
		if m == nil {
			t.Fatalf("no task: %s", resp)
		}
		id := m[1]
		txWant(t, "bob's tasks/get", call("bob", 2, "tasks/get", `,"taskId":"`+id+`"`),
			txErr(2, -32602, "Invalid params", `"Failed to retrieve task: Task not found"`))
		txWant(t, "bob's tasks/cancel", call("bob", 3, "tasks/cancel", `,"taskId":"`+id+`"`),
			txErr(3, -32602, "Invalid params", `"Failed to cancel task: Task not found"`))
		w, stop := txListen(t, srv, 5, txExt, `{"taskIds":["`+id+`"]}`, as("bob"))
		txWant(t, "bob's listen", strings.Join(w.all(), "\n"),
			`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":5},"notifications":{}}}`)
		stop()
		// The same subject at another issuer is another user.
		resp, _, _ = txServe(t, srv, fmt.Sprintf(`{"jsonrpc":"2.0","id":6,"method":"tasks/get","params":%s}`, txParams(txExt, `,"taskId":"`+id+`"`)),
			&mcp.RequestExtra{Auth: &mcp.TokenInfo{Issuer: "https://other.example", Subject: "alice"}})
		txWant(t, "alice at another issuer", resp, txErr(6, -32602, "Invalid params", `"Failed to retrieve task: Task not found"`))
		txWant(t, "alice's tasks/get", mask(call("alice", 7, "tasks/get", `,"taskId":"`+id+`"`), id), txGet(7, "working", "", "", ""))
		close(g.release)
		synctest.Wait()
	})
}
