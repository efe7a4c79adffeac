package mcp

// The stateless era's result encoder against the bytes main's byte
// stamping (stampResult and its per-method variants, now gone) wrote for
// the same values: each want below is main's output, as a transport
// encodes the response.

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

type headCase struct {
	name, method string
	v            any
}

type headUser struct {
	B          int    `json:"b"`
	ResultType string `json:"resultType"`
	A          string `json:"a"`
}

func headCases(list any) []headCase {
	ttl := int64(60000)
	at := time.Date(2026, 7, 28, 1, 2, 3, 0, time.UTC)
	text := []Content{&TextContent{Text: "hi <there>"}}
	return []headCase{
		{"tool text", "tools/call", &CallToolResult{Content: text}},
		{"tool empty content", "tools/call", &CallToolResult{Content: []Content{}}},
		{"tool nil content", "tools/call", &CallToolResult{}},
		{"tool structured error", "tools/call", &CallToolResult{Content: text, StructuredContent: json.RawMessage(`{"a":1}`), IsError: true}},
		{"tool structured html", "tools/call", &CallToolResult{Content: text, StructuredContent: json.RawMessage(`{"a":"<"}`)}},
		{"tool meta", "tools/call", &CallToolResult{Meta: Meta{"z": json.RawMessage(`1`), "a": json.RawMessage(`"x"`)}, Content: text}},
		{"tool empty meta", "tools/call", &CallToolResult{Meta: Meta{}, Content: text}},
		{"tool own serverInfo", "tools/call", &CallToolResult{Meta: Meta{metaKeyServerInfo: json.RawMessage(`{"name":"o","version":"2"}`)}, Content: text}},
		{"tool image", "tools/call", &CallToolResult{Content: []Content{&ImageContent{Data: "AAAA", MIMEType: "image/png"}}}},
		{"tool result for tools/list", "tools/list", &CallToolResult{Content: text}},
		{"read text", "resources/read", &ReadResourceResult{Contents: []*ResourceContents{{URI: "file:///a", MIMEType: "text/plain", Text: "a\"b"}}}},
		{"read blob", "resources/read", &ReadResourceResult{Contents: []*ResourceContents{{URI: "file:///b", BlobData: []byte{1, 2, 3}}, {URI: "file:///c", Blob: "AQID"}}}},
		{"read empty", "resources/read", &ReadResourceResult{Contents: []*ResourceContents{}}},
		{"read meta", "resources/read", &ReadResourceResult{Meta: Meta{"k": json.RawMessage(`true`)}, Contents: []*ResourceContents{{URI: "file:///a", Text: "x"}}}},
		{"read content meta", "resources/read", &ReadResourceResult{Contents: []*ResourceContents{{URI: "file:///a", Text: "x", Meta: Meta{"k": json.RawMessage(`1`)}}}}},
		{"read for tools/call", "tools/call", &ReadResourceResult{Contents: []*ResourceContents{{URI: "file:///a", Text: "x"}}}},
		{"prompt", "prompts/get", &GetPromptResult{Description: "d<", Messages: []*PromptMessage{{Role: "user", Content: &TextContent{Text: "q"}}}}},
		{"prompt no description", "prompts/get", &GetPromptResult{Messages: []*PromptMessage{}}},
		{"prompt image", "prompts/get", &GetPromptResult{Messages: []*PromptMessage{{Role: "user", Content: &ImageContent{Data: "AAAA", MIMEType: "image/png"}}}}},
		{"prompt meta", "prompts/get", &GetPromptResult{Meta: Meta{"k": json.RawMessage(`1`)}, Messages: []*PromptMessage{}}},
		{"list cached", "tools/list", list},
		{"list cached for tools/call", "tools/call", list},
		{"list meta", "tools/list", &ListToolsResult{Meta: Meta{"k": json.RawMessage(`1`)}, Tools: []*Tool{}}},
		{"list uncached", "tools/list", &ListToolsResult{Tools: []*Tool{}, NextCursor: "c"}},
		{"prompts list", "prompts/list", &ListPromptsResult{Prompts: []*Prompt{{Name: "p"}}}},
		{"resources list", "resources/list", &ListResourcesResult{Resources: []*Resource{{Name: "r", URI: "file:///r"}}}},
		{"templates list", "resources/templates/list", &ListResourceTemplatesResult{ResourceTemplates: []*ResourceTemplate{}}},
		{"complete", "completion/complete", &CompleteResult{Completion: Completion{Values: []string{"a"}, Total: 1}}},
		{"complete meta", "completion/complete", &CompleteResult{Meta: Meta{"k": json.RawMessage(`1`)}, Completion: Completion{Values: []string{}}}},
		{"discover", "server/discover", &DiscoverResult{SupportedVersions: []string{"2026-07-28"}, Instructions: "i"}},
		{"task created", "tools/call", &detailedTask{ResultType: resultTypeTask, TaskID: "t1", Status: TaskWorking, CreatedAt: at, LastUpdatedAt: at, TTLMs: &ttl}},
		{"task get", "tasks/get", &detailedTask{TaskID: "t1", Status: TaskWorking, CreatedAt: at, LastUpdatedAt: at}},
		{"task get meta", "tasks/get", &detailedTask{Meta: Meta{"k": json.RawMessage(`1`)}, TaskID: "t1", Status: TaskWorking, CreatedAt: at, LastUpdatedAt: at}},
		{"raw listen end", "subscriptions/listen", json.RawMessage(`{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}`)},
		{"raw spaces", "resources/read", json.RawMessage("{ \"contents\" : [ ] ,\n \"x\":1 }")},
		{"raw own type", "resources/read", json.RawMessage(`{"resultType":"input_required"}`)},
		{"raw own complete", "resources/read", json.RawMessage(`{"resultType":"complete"}`)},
		{"raw own ttl", "tools/list", json.RawMessage(`{"ttlMs":5,"tools":[]}`)},
		{"raw own scope", "tools/list", json.RawMessage(`{"cacheScope":"public"}`)},
		{"raw meta null", "tools/call", json.RawMessage(`{"_meta":null}`)},
		{"raw meta string", "tools/list", json.RawMessage(`{"_meta":"x","tools":[]}`)},
		{"raw meta own info", "tools/call", json.RawMessage(`{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"other"}}}`)},
		{"raw meta merge", "tools/call", json.RawMessage(`{"a":1,"_meta":{"k":"v"},"b":2}`)},
		{"raw empty meta", "tools/call", json.RawMessage(`{"_meta":{ }}`)},
		{"raw escaped keys", "tools/call", json.RawMessage(`{"result\u0054ype":"complete","\u005fmeta":{}}`)},
		{"raw array", "tools/call", json.RawMessage(`[]`)},
		{"raw null", "tools/call", json.RawMessage(`null`)},
		{"raw leading space", "tools/call", json.RawMessage(` {"a":1}`)},
		{"raw trailing newline", "tools/call", json.RawMessage("{\"a\":1}\n")},
		{"raw own meta spaces", "tools/call", json.RawMessage(`{ "_meta" : { "k" : 1 } }`)},
		{"raw invalid", "tools/call", json.RawMessage(`{"a":`)},
		{"raw duplicate", "resources/read", json.RawMessage(`{"resultType":"x","resultType":"complete"}`)},
		{"raw html", "tools/call", json.RawMessage(`{"a":"<"}`)},
		{"map", "tools/call", map[string]any{"b": 1, "a": "x", "_meta": map[string]any{"k": 2}}},
		{"user struct", "resources/read", headUser{B: 1, ResultType: "input_required", A: "<"}},
		{"user struct complete", "resources/read", &headUser{B: 1, ResultType: "complete"}},
		{"nil", "tools/call", nil},
		{"nil cacheable", "tools/list", nil},
		{"typed nil", "tools/call", (*CallToolResult)(nil)},
		{"typed nil read", "resources/read", (*ReadResourceResult)(nil)},
	}
}

// headWants is main's wire bytes for each headCase, by whether the
// server has a CacheHint hook (TTL 5 s, public) and the case's name.
var headWants = []struct {
	hook       bool
	name, want string
}{
	{false, "tool text", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"content\":[{\"type\":\"text\",\"text\":\"hi \\u003cthere\\u003e\"}]}}"},
	{false, "tool empty content", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"content\":[]}}"},
	{false, "tool nil content", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"content\":null}}"},
	{false, "tool structured error", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"content\":[{\"type\":\"text\",\"text\":\"hi \\u003cthere\\u003e\"}],\"structuredContent\":{\"a\":1},\"isError\":true}}"},
	{false, "tool structured html", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"content\":[{\"type\":\"text\",\"text\":\"hi \\u003cthere\\u003e\"}],\"structuredContent\":{\"a\":\"\\u003c\"}}}"},
	{false, "tool meta", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"},\"a\":\"x\",\"z\":1},\"content\":[{\"type\":\"text\",\"text\":\"hi \\u003cthere\\u003e\"}]}}"},
	{false, "tool empty meta", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"content\":[{\"type\":\"text\",\"text\":\"hi \\u003cthere\\u003e\"}]}}"},
	{false, "tool own serverInfo", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"o\",\"version\":\"2\"}},\"content\":[{\"type\":\"text\",\"text\":\"hi \\u003cthere\\u003e\"}]}}"},
	{false, "tool image", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"content\":[{\"type\":\"image\",\"data\":\"AAAA\",\"mimeType\":\"image/png\"}]}}"},
	{false, "tool result for tools/list", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":0,\"cacheScope\":\"private\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"content\":[{\"type\":\"text\",\"text\":\"hi \\u003cthere\\u003e\"}]}}"},
	{false, "read text", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":0,\"cacheScope\":\"private\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"contents\":[{\"uri\":\"file:///a\",\"mimeType\":\"text/plain\",\"text\":\"a\\\"b\"}]}}"},
	{false, "read blob", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":0,\"cacheScope\":\"private\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"contents\":[{\"uri\":\"file:///b\",\"blob\":\"AQID\"},{\"uri\":\"file:///c\",\"blob\":\"AQID\"}]}}"},
	{false, "read empty", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":0,\"cacheScope\":\"private\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"contents\":[]}}"},
	{false, "read meta", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":0,\"cacheScope\":\"private\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"},\"k\":true},\"contents\":[{\"uri\":\"file:///a\",\"text\":\"x\"}]}}"},
	{false, "read content meta", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":0,\"cacheScope\":\"private\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"contents\":[{\"uri\":\"file:///a\",\"_meta\":{\"k\":1},\"text\":\"x\"}]}}"},
	{false, "read for tools/call", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"contents\":[{\"uri\":\"file:///a\",\"text\":\"x\"}]}}"},
	{false, "prompt", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"description\":\"d\\u003c\",\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"q\"}}]}}"},
	{false, "prompt no description", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"messages\":[]}}"},
	{false, "prompt image", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"image\",\"data\":\"AAAA\",\"mimeType\":\"image/png\"}}]}}"},
	{false, "prompt meta", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"},\"k\":1},\"messages\":[]}}"},
	{false, "list cached", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":0,\"cacheScope\":\"private\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"tools\":[{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"}}]}}"},
	// main served the page as headed for tools/list just before (its
	// cache of the headed page ignored the method); tools/call is not
	// cacheable, so no ttlMs or cacheScope.
	{false, "list cached for tools/call", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"tools\":[{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"}}]}}"},
	{false, "list meta", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":0,\"cacheScope\":\"private\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"},\"k\":1},\"tools\":[]}}"},
	{false, "list uncached", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":0,\"cacheScope\":\"private\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"tools\":[],\"nextCursor\":\"c\"}}"},
	{false, "prompts list", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":0,\"cacheScope\":\"private\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"prompts\":[{\"name\":\"p\"}]}}"},
	{false, "resources list", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":0,\"cacheScope\":\"private\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"resources\":[{\"uri\":\"file:///r\",\"name\":\"r\"}]}}"},
	{false, "templates list", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":0,\"cacheScope\":\"private\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"resourceTemplates\":[]}}"},
	{false, "complete", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"completion\":{\"values\":[\"a\"],\"total\":1}}}"},
	{false, "complete meta", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"},\"k\":1},\"completion\":{\"values\":[]}}}"},
	{false, "discover", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":0,\"cacheScope\":\"private\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{},\"instructions\":\"i\"}}"},
	{false, "task created", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"resultType\":\"task\",\"taskId\":\"t1\",\"status\":\"working\",\"createdAt\":\"2026-07-28T01:02:03Z\",\"lastUpdatedAt\":\"2026-07-28T01:02:03Z\",\"ttlMs\":60000}}"},
	{false, "task get", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"taskId\":\"t1\",\"status\":\"working\",\"createdAt\":\"2026-07-28T01:02:03Z\",\"lastUpdatedAt\":\"2026-07-28T01:02:03Z\",\"ttlMs\":null}}"},
	{false, "task get meta", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"},\"k\":1},\"taskId\":\"t1\",\"status\":\"working\",\"createdAt\":\"2026-07-28T01:02:03Z\",\"lastUpdatedAt\":\"2026-07-28T01:02:03Z\",\"ttlMs\":null}}"},
	{false, "raw listen end", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"},\"io.modelcontextprotocol/subscriptionId\":7}}}"},
	{false, "raw spaces", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":0,\"cacheScope\":\"private\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"contents\":[],\"x\":1}}"},
	{false, "raw own type", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"resultType\":\"input_required\"}}"},
	{false, "raw own complete", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ttlMs\":0,\"cacheScope\":\"private\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"resultType\":\"complete\"}}"},
	{false, "raw own ttl", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"cacheScope\":\"private\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"ttlMs\":5,\"tools\":[]}}"},
	{false, "raw own scope", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":0,\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"cacheScope\":\"public\"}}"},
	{false, "raw meta null", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":null}}"},
	{false, "raw meta string", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":0,\"cacheScope\":\"private\",\"_meta\":\"x\",\"tools\":[]}}"},
	{false, "raw meta own info", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"other\"}}}}"},
	{false, "raw meta merge", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"a\":1,\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"},\"k\":\"v\"},\"b\":2}}"},
	{false, "raw empty meta", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}}"},
	{false, "raw escaped keys", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"result\\u0054ype\":\"complete\",\"\\u005fmeta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}}"},
	{false, "raw array", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":[]}"},
	{false, "raw null", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}"},
	{false, "raw leading space", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"a\":1}}"},
	{false, "raw trailing newline", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"a\":1}}"},
	{false, "raw own meta spaces", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"},\"k\":1}}}"},
	{false, "raw invalid", "error: jsonrpc: raw member is not valid JSON"},
	{false, "raw duplicate", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ttlMs\":0,\"cacheScope\":\"private\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"resultType\":\"x\",\"resultType\":\"complete\"}}"},
	{false, "raw html", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"a\":\"<\"}}"},
	{false, "map", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"},\"k\":2},\"a\":\"x\",\"b\":1}}"},
	{false, "user struct", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"b\":1,\"resultType\":\"input_required\",\"a\":\"\\u003c\"}}"},
	{false, "user struct complete", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ttlMs\":0,\"cacheScope\":\"private\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"b\":1,\"resultType\":\"complete\",\"a\":\"\"}}"},
	{false, "nil", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}}"},
	{false, "nil cacheable", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":0,\"cacheScope\":\"private\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}}"},
	{false, "typed nil", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}"},
	{false, "typed nil read", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}"},
	{true, "tool text", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"content\":[{\"type\":\"text\",\"text\":\"hi \\u003cthere\\u003e\"}]}}"},
	{true, "tool empty content", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"content\":[]}}"},
	{true, "tool nil content", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"content\":null}}"},
	{true, "tool structured error", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"content\":[{\"type\":\"text\",\"text\":\"hi \\u003cthere\\u003e\"}],\"structuredContent\":{\"a\":1},\"isError\":true}}"},
	{true, "tool structured html", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"content\":[{\"type\":\"text\",\"text\":\"hi \\u003cthere\\u003e\"}],\"structuredContent\":{\"a\":\"\\u003c\"}}}"},
	{true, "tool meta", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"},\"a\":\"x\",\"z\":1},\"content\":[{\"type\":\"text\",\"text\":\"hi \\u003cthere\\u003e\"}]}}"},
	{true, "tool empty meta", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"content\":[{\"type\":\"text\",\"text\":\"hi \\u003cthere\\u003e\"}]}}"},
	{true, "tool own serverInfo", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"o\",\"version\":\"2\"}},\"content\":[{\"type\":\"text\",\"text\":\"hi \\u003cthere\\u003e\"}]}}"},
	{true, "tool image", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"content\":[{\"type\":\"image\",\"data\":\"AAAA\",\"mimeType\":\"image/png\"}]}}"},
	{true, "tool result for tools/list", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":5000,\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"content\":[{\"type\":\"text\",\"text\":\"hi \\u003cthere\\u003e\"}]}}"},
	{true, "read text", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":5000,\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"contents\":[{\"uri\":\"file:///a\",\"mimeType\":\"text/plain\",\"text\":\"a\\\"b\"}]}}"},
	{true, "read blob", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":5000,\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"contents\":[{\"uri\":\"file:///b\",\"blob\":\"AQID\"},{\"uri\":\"file:///c\",\"blob\":\"AQID\"}]}}"},
	{true, "read empty", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":5000,\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"contents\":[]}}"},
	{true, "read meta", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":5000,\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"},\"k\":true},\"contents\":[{\"uri\":\"file:///a\",\"text\":\"x\"}]}}"},
	{true, "read content meta", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":5000,\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"contents\":[{\"uri\":\"file:///a\",\"_meta\":{\"k\":1},\"text\":\"x\"}]}}"},
	{true, "read for tools/call", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"contents\":[{\"uri\":\"file:///a\",\"text\":\"x\"}]}}"},
	{true, "prompt", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"description\":\"d\\u003c\",\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"q\"}}]}}"},
	{true, "prompt no description", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"messages\":[]}}"},
	{true, "prompt image", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"image\",\"data\":\"AAAA\",\"mimeType\":\"image/png\"}}]}}"},
	{true, "prompt meta", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"},\"k\":1},\"messages\":[]}}"},
	{true, "list cached", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":5000,\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"tools\":[{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"}}]}}"},
	// main served the page as headed for tools/list just before (its
	// cache of the headed page ignored the method); tools/call is not
	// cacheable, so no ttlMs or cacheScope.
	{true, "list cached for tools/call", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"tools\":[{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"}}]}}"},
	{true, "list meta", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":5000,\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"},\"k\":1},\"tools\":[]}}"},
	{true, "list uncached", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":5000,\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"tools\":[],\"nextCursor\":\"c\"}}"},
	{true, "prompts list", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":5000,\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"prompts\":[{\"name\":\"p\"}]}}"},
	{true, "resources list", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":5000,\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"resources\":[{\"uri\":\"file:///r\",\"name\":\"r\"}]}}"},
	{true, "templates list", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":5000,\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"resourceTemplates\":[]}}"},
	{true, "complete", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"completion\":{\"values\":[\"a\"],\"total\":1}}}"},
	{true, "complete meta", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"},\"k\":1},\"completion\":{\"values\":[]}}}"},
	{true, "discover", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":5000,\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{},\"instructions\":\"i\"}}"},
	{true, "task created", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"resultType\":\"task\",\"taskId\":\"t1\",\"status\":\"working\",\"createdAt\":\"2026-07-28T01:02:03Z\",\"lastUpdatedAt\":\"2026-07-28T01:02:03Z\",\"ttlMs\":60000}}"},
	{true, "task get", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"taskId\":\"t1\",\"status\":\"working\",\"createdAt\":\"2026-07-28T01:02:03Z\",\"lastUpdatedAt\":\"2026-07-28T01:02:03Z\",\"ttlMs\":null}}"},
	{true, "task get meta", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"},\"k\":1},\"taskId\":\"t1\",\"status\":\"working\",\"createdAt\":\"2026-07-28T01:02:03Z\",\"lastUpdatedAt\":\"2026-07-28T01:02:03Z\",\"ttlMs\":null}}"},
	{true, "raw listen end", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"},\"io.modelcontextprotocol/subscriptionId\":7}}}"},
	{true, "raw spaces", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":5000,\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"contents\":[],\"x\":1}}"},
	{true, "raw own type", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"resultType\":\"input_required\"}}"},
	{true, "raw own complete", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ttlMs\":5000,\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"resultType\":\"complete\"}}"},
	{true, "raw own ttl", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"ttlMs\":5,\"tools\":[]}}"},
	{true, "raw own scope", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":5000,\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"cacheScope\":\"public\"}}"},
	{true, "raw meta null", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":null}}"},
	{true, "raw meta string", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":5000,\"cacheScope\":\"public\",\"_meta\":\"x\",\"tools\":[]}}"},
	{true, "raw meta own info", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"other\"}}}}"},
	{true, "raw meta merge", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"a\":1,\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"},\"k\":\"v\"},\"b\":2}}"},
	{true, "raw empty meta", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}}"},
	{true, "raw escaped keys", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"result\\u0054ype\":\"complete\",\"\\u005fmeta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}}"},
	{true, "raw array", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":[]}"},
	{true, "raw null", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}"},
	{true, "raw leading space", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"a\":1}}"},
	{true, "raw trailing newline", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"a\":1}}"},
	{true, "raw own meta spaces", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"},\"k\":1}}}"},
	{true, "raw invalid", "error: jsonrpc: raw member is not valid JSON"},
	{true, "raw duplicate", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ttlMs\":5000,\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"resultType\":\"x\",\"resultType\":\"complete\"}}"},
	{true, "raw html", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"a\":\"<\"}}"},
	{true, "map", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"},\"k\":2},\"a\":\"x\",\"b\":1}}"},
	{true, "user struct", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"b\":1,\"resultType\":\"input_required\",\"a\":\"\\u003c\"}}"},
	{true, "user struct complete", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ttlMs\":5000,\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"b\":1,\"resultType\":\"complete\",\"a\":\"\"}}"},
	{true, "nil", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}}"},
	{true, "nil cacheable", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"ttlMs\":5000,\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}}"},
	{true, "typed nil", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}"},
	{true, "typed nil read", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}"},
}

func TestStatelessResponseBytes(t *testing.T) {
	headWant := map[bool]map[string]string{false: {}, true: {}}
	for _, w := range headWants {
		headWant[w.hook][w.name] = w.want
	}
	for _, hook := range []bool{false, true} {
		opts := &ServerOptions{}
		if hook {
			opts.CacheHint = func(string) CacheHint { return CacheHint{TTL: 5 * time.Second, Scope: CachePublic} }
		}
		s := NewServer(Implementation{Name: "s", Version: "1"}, opts)
		s.AddTool(&Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *Request, json.RawMessage) (*CallToolResult, error) { return nil, nil })
		list, err := s.dispatch(context.Background(), &Request{Method: "tools/list", ID: jsonrpc.Int64ID(1)})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range headCases(list) {
			want, ok := headWant[hook][tc.name]
			if !ok {
				t.Fatalf("no want for %q", tc.name)
			}
			b, err := jsonrpc.Encode(s.statelessResponse(jsonrpc.Int64ID(1), tc.method, tc.v))
			if err != nil {
				b = []byte("error: " + err.Error())
			}
			if string(b) != want {
				t.Errorf("hook %t, %s:\n\t%s\nwant\n\t%s", hook, tc.name, b, want)
			}
		}
	}
}

// FuzzStatelessRawResult: a result that came as raw JSON is written with
// the head as valid JSON holding each of its members (its _meta with the
// server's identity merged in when it had none), and what is not a JSON
// object is written as it is.
func FuzzStatelessRawResult(f *testing.F) {
	for _, w := range headWants {
		f.Add([]byte(w.name))
	}
	for _, seed := range []string{`{}`, `{"_meta":{"k":1},"a":[1,{"b":2}]}`, `{"resultType":"task"}`, ` { "_meta" : null } `, `[]`, `{"a":`} {
		f.Add([]byte(seed))
	}
	s := NewServer(Implementation{Name: "s", Version: "1"}, nil)
	f.Fuzz(func(t *testing.T, raw []byte) {
		got := s.statelessResponse(jsonrpc.Int64ID(1), "resources/read", json.RawMessage(raw)).Result
		var in map[string]json.RawMessage
		if json.Unmarshal(raw, &in) != nil || in == nil {
			if _, ok := decodeObject(raw); !ok && string(got) != string(raw) {
				t.Fatalf("%q written as %q", raw, got)
			}
			return
		}
		var out map[string]json.RawMessage
		if err := json.Unmarshal(got, &out); err != nil {
			t.Fatalf("%q written as invalid JSON %q: %v", raw, got, err)
		}
		for k, v := range in {
			if k == "_meta" && len(v) > 0 && v[0] == '{' {
				var m map[string]json.RawMessage
				if json.Unmarshal(out[k], &m) != nil || m[metaKeyServerInfo] == nil {
					t.Fatalf("%q: _meta written as %s", raw, out[k])
				}
				continue
			}
			if !jsonEqual(out[k], v) {
				t.Fatalf("%q: member %q written as %s", raw, k, out[k])
			}
		}
		if _, ok := in["resultType"]; !ok && string(out["resultType"]) != `"complete"` {
			t.Fatalf("%q: resultType %s", raw, out["resultType"])
		}
	})
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

func headOf(s *Server, method string) *resultHead {
	var h resultHead
	s.setHead(&h, method)
	return &h
}

// A nil result of a list type is null, as main's session era writes it,
// not a panic.
func TestStatelessResponseNilList(t *testing.T) {
	s := NewServer(Implementation{Name: "s", Version: "1"}, nil)
	for _, v := range []any{(*ListToolsResult)(nil), (*ListPromptsResult)(nil), (*ListResourcesResult)(nil), (*ListResourceTemplatesResult)(nil)} {
		if got := s.statelessResponse(jsonrpc.Int64ID(1), "tools/list", v); got.Error != nil || string(got.Result) != "null" {
			t.Errorf("%T: %s, %v", v, got.Result, got.Error)
		}
	}
}

// Middleware that changes a stateless-era request's method routes it to
// the new method's handler, not to the one found for the method received.
func TestStatelessRouteAfterMiddlewareRenames(t *testing.T) {
	rename := func(next MethodHandler) MethodHandler {
		return func(ctx context.Context, r *Request) (any, error) {
			if r.Method == "tools/list" {
				r.Method = "prompts/list"
			}
			return next(ctx, r)
		}
	}
	s := NewServer(Implementation{Name: "s", Version: "1"}, &ServerOptions{Middleware: []Middleware{rename}})
	if err := s.AddPrompt(&Prompt{Name: "p"}, func(context.Context, *Request, *GetPromptParams) (*GetPromptResult, error) {
		return &GetPromptResult{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	msg, _, err := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + benchModernMeta + `}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, refused := s.serveStateless(context.Background(), msg.(*jsonrpc.Request), nil, nil)
	if refused || resp.Error != nil {
		t.Fatalf("refused %v, error %v", refused, resp.Error)
	}
	var got struct {
		Prompts []struct{ Name string } `json:"prompts"`
		Tools   []json.RawMessage       `json:"tools"`
	}
	if err := json.Unmarshal(resp.Result, &got); err != nil || len(got.Prompts) != 1 || got.Prompts[0].Name != "p" || got.Tools != nil {
		t.Fatalf("result %s (%v): want the prompts/list page", resp.Result, err)
	}
}
