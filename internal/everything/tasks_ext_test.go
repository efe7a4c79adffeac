package everything

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
)

// Tests of the tasks-* fixtures as the conformance suite drives them: in
// the stateless era, through Host.ServeStateless, in a synctest
// bubble (the clock starts at 2000-01-01T00:00:00Z and moves only when
// every goroutine waits).

const (
	extCaps   = `{"elicitation":{},"sampling":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	extNoCaps = `{}`
	extInfo   = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ext-test","version":"1.0.0"}}`
)

// extServer is a server with only the tasks-* fixtures, registered by the
// hook NewServer calls.
func extServer(t *testing.T) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(mcp.Implementation{Name: "ext-test", Version: "1.0.0"}, nil)
	if len(fixtureHooks) == 0 {
		t.Fatal("no fixture hook registered")
	}
	for _, add := range fixtureHooks {
		add(s)
	}
	return s
}

// extCall sends method with params (raw members after _meta) declaring
// caps, and returns the response frame.
func extCall(t *testing.T, s *mcp.Server, id int, method, caps, rest string) string {
	t.Helper()
	frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s,"io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"}}%s}}`,
		id, method, caps, rest)
	msg, _, err := jsonrpc.Decode([]byte(frame))
	if err != nil {
		t.Fatal(err)
	}
	resp, _, _ := s.Host().ServeStateless(context.Background(), nil, msg.(*jsonrpc.Request), nil, nil)
	b, err := jsonrpc.Encode(resp)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var extIDRE = regexp.MustCompile(`"taskId":"([^"]*)"`)

// extTask calls tool with args as a task and returns its id.
func extTask(t *testing.T, s *mcp.Server, id int, tool, args string) string {
	t.Helper()
	resp := extCall(t, s, id, "tools/call", extCaps, `,"name":"`+tool+`","arguments":`+args)
	m := extIDRE.FindStringSubmatch(resp)
	if m == nil || !strings.Contains(resp, `"resultType":"task"`) {
		t.Fatalf("%s created no task: %s", tool, resp)
	}
	return m[1]
}

// extGet is tasks/get of task id with the id replaced by "ID".
func extGet(t *testing.T, s *mcp.Server, n int, id string) string {
	t.Helper()
	return strings.ReplaceAll(extCall(t, s, n, "tasks/get", extCaps, `,"taskId":"`+id+`"`), id, "ID")
}

// extDetailed is the exact tasks/get frame, without its payload and end.
// Times are seconds after 2000-01-01T00:00:00Z.
func extDetailed(n int, status string, created, updated int, extra string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"resultType":"complete",%s,"taskId":"ID","status":"%s",`, n, extInfo, status) +
		extra + fmt.Sprintf(`"createdAt":"2000-01-01T00:00:%02dZ","lastUpdatedAt":"2000-01-01T00:00:%02dZ","ttlMs":3600000,"pollIntervalMs":1000`, created, updated)
}

func extWant(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n got %s\nwant %s", what, got, want)
	}
}

func TestTasksExtFixturesSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := extServer(t)
		extWant(t, "greet", extCall(t, s, 1, "tools/call", extCaps, `,"name":"greet","arguments":{"name":"World"}`),
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",`+extInfo+`,"content":[{"type":"text","text":"Hello, World!"}]}}`)
		// Without the extension: slow_compute runs inline, failing_job
		// cannot run.
		extWant(t, "slow_compute inline", extCall(t, s, 2, "tools/call", extNoCaps, `,"name":"slow_compute","arguments":{"seconds":0,"label":"capability-no-ext"}`),
			`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete",`+extInfo+`,"content":[{"type":"text","text":"Computed capability-no-ext in 0s."}]}}`)
		extWant(t, "failing_job without the extension", extCall(t, s, 3, "tools/call", extNoCaps, `,"name":"failing_job","arguments":{}`),
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32021,"message":"Missing required client capability: extensions.io.modelcontextprotocol/tasks","data":{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`)
		if d := extCall(t, s, 4, "server/discover", extNoCaps, ""); !strings.Contains(d, `"extensions":{"io.modelcontextprotocol/tasks":{}}`) {
			t.Errorf("server/discover does not declare the tasks extension: %s", d)
		}
	})
}

func TestTasksExtFixturesLifecycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := extServer(t)
		id := extTask(t, s, 1, "slow_compute", `{"seconds":2,"label":"lifecycle-create"}`)
		extWant(t, "working", extGet(t, s, 2, id), extDetailed(2, "working", 0, 0, "")+`}}`)
		time.Sleep(2 * time.Second)
		synctest.Wait()
		extWant(t, "completed", extGet(t, s, 3, id), extDetailed(3, "completed", 0, 2, "")+
			`,"result":{"resultType":"complete","content":[{"type":"text","text":"Computed lifecycle-create in 2s."}]}}}`)

		id = extTask(t, s, 4, "failing_job", `{}`)
		time.Sleep(failingJobDelay)
		synctest.Wait()
		extWant(t, "failing_job", extGet(t, s, 5, id), extDetailed(5, "completed", 2, 3, "")+
			`,"result":{"resultType":"complete","content":[{"type":"text","text":"failing_job failed, as it always does"}],"isError":true}}}`)

		id = extTask(t, s, 6, "protocol_error_job", `{}`)
		synctest.Wait()
		extWant(t, "protocol_error_job", extGet(t, s, 7, id), extDetailed(7, "failed", 3, 3,
			`"statusMessage":"Internal error: protocol_error_job always fails with a protocol error",`)+
			`,"error":{"code":-32603,"message":"Internal error","data":"protocol_error_job always fails with a protocol error"}}}`)

		id = extTask(t, s, 8, "slow_compute", `{"seconds":60,"label":"lifecycle-cancel"}`)
		time.Sleep(time.Second)
		extWant(t, "cancel", extCall(t, s, 9, "tasks/cancel", extCaps, `,"taskId":"`+id+`"`),
			`{"jsonrpc":"2.0","id":9,"result":{"resultType":"complete",`+extInfo+`}}`)
		synctest.Wait()
		extWant(t, "cancelled", extGet(t, s, 10, id), extDetailed(10, "cancelled", 3, 4,
			`"statusMessage":"The task was cancelled by request.",`)+`}}`)
	})
}

func TestTasksExtFixturesInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := extServer(t)
		id := extTask(t, s, 1, "confirm_delete", `{"filename":"mrtr-resume.txt"}`)
		synctest.Wait()
		extWant(t, "confirm_delete asks", extGet(t, s, 2, id), extDetailed(2, "input_required", 0, 0, "")+
			`,"inputRequests":{"confirm":{"method":"elicitation/create","params":{"message":"Delete mrtr-resume.txt?","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean","description":"true to delete the file"}},"required":["confirm"]}}}}}}`)
		extWant(t, "answer", extCall(t, s, 3, "tasks/update", extCaps, `,"taskId":"`+id+`","inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}}`),
			`{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete",`+extInfo+`}}`)
		synctest.Wait()
		extWant(t, "deleted", extGet(t, s, 4, id), extDetailed(4, "completed", 0, 0, "")+
			`,"result":{"resultType":"complete","content":[{"type":"text","text":"Deleted mrtr-resume.txt."}]}}}`)

		id = extTask(t, s, 5, "multi_input", `{}`)
		synctest.Wait()
		ask := func(which string) string {
			return `{"method":"elicitation/create","params":{"message":"The ` + which + ` input?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"},"confirm":{"type":"boolean"}}}}}`
		}
		extWant(t, "multi_input asks", extGet(t, s, 6, id), extDetailed(6, "input_required", 0, 0, "")+
			`,"inputRequests":{"first":`+ask("first")+`,"second":`+ask("second")+`}}}`)
		extCall(t, s, 7, "tasks/update", extCaps, `,"taskId":"`+id+`","inputResponses":{"first":{"action":"accept","content":{"name":"partial-1","confirm":true}}}`)
		extWant(t, "one answered", extGet(t, s, 8, id), extDetailed(8, "input_required", 0, 0, "")+
			`,"inputRequests":{"second":`+ask("second")+`}}}`)
		extCall(t, s, 9, "tasks/update", extCaps, `,"taskId":"`+id+`","inputResponses":{"second":{"action":"accept","content":{"name":"partial-2","confirm":true}}}`)
		synctest.Wait()
		extWant(t, "both answered", extGet(t, s, 10, id), extDetailed(10, "completed", 0, 0, "")+
			`,"result":{"resultType":"complete","content":[{"type":"text","text":"first=partial-1 (accept), second=partial-2 (accept)"}]}}}`)

		// Without the extension, confirm_delete asks by a multi
		// round-trip request instead.
		resp := extCall(t, s, 11, "tools/call", extNoCaps[:1]+`"elicitation":{}`+extNoCaps[1:], `,"name":"confirm_delete","arguments":{"filename":"x"}`)
		if !strings.HasPrefix(resp, `{"jsonrpc":"2.0","id":11,"result":{`+extInfo+`,"resultType":"input_required","inputRequests":{"confirm":`) {
			t.Errorf("confirm_delete inline: %s", resp)
		}
	})
}

// TestTasksExtFixturesInputBeforeTask drives test_tool_with_task as the
// tasks-mrtr-composition scenario does: an input_required result without
// a taskId, then, on the retry with the answer, a CreateTaskResult
// without requestState nor inputRequests, and a task whose result has the
// name given (SEP-2663, "Composition with Multi Round-Trip Requests").
func TestTasksExtFixturesInputBeforeTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := extServer(t)
		call := func(id int, rest string) string {
			return extCall(t, s, id, "tools/call", extCaps, `,"name":"test_tool_with_task","arguments":{}`+rest)
		}
		resp := call(1, "")
		m := regexp.MustCompile(`,"requestState":"([^"]+)"}}$`).FindStringSubmatch(resp)
		if m == nil {
			t.Fatalf("round 1 has no requestState: %s", resp)
		}
		extWant(t, "round 1", strings.Replace(resp, m[1], "STATE", 1),
			`{"jsonrpc":"2.0","id":1,"result":{`+extInfo+`,"resultType":"input_required","inputRequests":{"user_name":{"method":"elicitation/create","params":{"message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}},"requestState":"STATE"}}`)
		resp = call(2, `,"inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}}},"requestState":"`+m[1]+`"`)
		id := extIDRE.FindStringSubmatch(resp)
		if id == nil {
			t.Fatalf("round 2 created no task: %s", resp)
		}
		extWant(t, "round 2", strings.ReplaceAll(resp, id[1], "ID"),
			`{"jsonrpc":"2.0","id":2,"result":{`+extInfo+`,"resultType":"task","taskId":"ID","status":"working","createdAt":"2000-01-01T00:00:00Z","lastUpdatedAt":"2000-01-01T00:00:00Z","ttlMs":3600000,"pollIntervalMs":1000}}`)
		synctest.Wait()
		extWant(t, "completed", extGet(t, s, 3, id[1]), extDetailed(3, "completed", 0, 0, "")+
			`,"result":{"resultType":"complete","content":[{"type":"text","text":"Hello, Alice!"}]}}}`)
	})
}
