package main

import (
	"encoding/json"
	"strings"
	"testing"
)

const testPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="

func TestResourcesList(t *testing.T) {
	code, out, errOut := client(t, "resources", "list")
	// The reference server's embedded skills, then its conformance fixtures.
	want := "" +
		"skill://code-review/SKILL.md              text/markdown       Review a change to an mcpkit server the way its maintainers do, from the wire bytes to the tests.\n" +
		"skill://code-review/checklist.md          text/markdown       \n" +
		"skill://code-review/security/SKILL.md     text/markdown       A security pass over a change to an MCP server, nested in code-review.\n" +
		"skill://code-review/security/rules.md     text/markdown       \n" +
		"skill://release-notes/SKILL.md            text/markdown       Draft release notes for the changes since the last tag, with a script that lists them.\n" +
		"skill://release-notes/scripts/collect.sh  text/x-shellscript  \n" +
		"test://static-binary                      image/png           A static binary resource, a 1x1 PNG image (conformance fixture).\n" +
		"test://static-text                        text/plain          A static text resource (conformance fixture).\n" +
		"test://watched-resource                   text/plain          A resource clients may subscribe to (conformance fixture).\n" +
		"test://template/{id}/data                 application/json    JSON data for any id (conformance fixture).\n"
	if code != 0 || out != want || errOut != "" {
		t.Errorf("exit %d, stdout\n%s\nstderr %q; want 0 and\n%s", code, out, errOut, want)
	}

	code, out, errOut = client(t, "resources", "list", "--json")
	if code != 0 || errOut != "" {
		t.Fatalf("--json: exit %d, stderr %q", code, errOut)
	}
	var res struct {
		Resources []struct {
			URI string `json:"uri"`
		} `json:"resources"`
		ResourceTemplates []struct {
			URITemplate string `json:"uriTemplate"`
		} `json:"resourceTemplates"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("--json output %q: %v", out, err)
	}
	if len(res.Resources) != 9 || res.Resources[7].URI != "test://static-text" || len(res.ResourceTemplates) != 1 || res.ResourceTemplates[0].URITemplate != "test://template/{id}/data" {
		t.Errorf("--json output = %s", out)
	}
}

func TestResourcesRead(t *testing.T) {
	for _, tc := range []struct {
		uri  string
		json bool
		want string
	}{
		{"test://static-text", false, "This is the content of the static text resource.\n"},
		{"test://static-binary", false, "[blob test://static-binary, image/png, 70 bytes]\n"},
		{"test://template/123/data", false, `{"id":"123","templateTest":true,"data":"Data for ID: 123"}` + "\n"},
		{"test://static-text", true, `{"resultType":"complete","ttlMs":300000,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcpkit-everything","title":"mcpkit reference server","version":"0.1.0","description":"Every feature of mcpkit and every fixture of the MCP conformance suite."}},"contents":[{"uri":"test://static-text","mimeType":"text/plain","text":"This is the content of the static text resource."}]}` + "\n"},
		{"test://static-binary", true, `{"resultType":"complete","ttlMs":300000,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcpkit-everything","title":"mcpkit reference server","version":"0.1.0","description":"Every feature of mcpkit and every fixture of the MCP conformance suite."}},"contents":[{"uri":"test://static-binary","mimeType":"image/png","blob":"` + testPNG + `"}]}` + "\n"},
	} {
		args := []string{"resources", "read", tc.uri}
		if tc.json {
			args = append(args, "--json")
		}
		code, out, errOut := client(t, args...)
		if code != 0 || out != tc.want || errOut != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 0, %q", args, code, out, errOut, tc.want)
		}
	}
	// An unknown resource is -32602 in the stateless era, -32002 in the
	// session era.
	code, out, errOut := client(t, "resources", "read", "test://nope")
	want := `mcpkit: resources/read test://nope: jsonrpc error -32602: Resource not found: {"uri":"test://nope"}` + "\n"
	if code != 1 || out != "" || errOut != want {
		t.Errorf("unknown URI: exit %d, stdout %q, stderr %q; want 1, \"\", %q", code, out, errOut, want)
	}
	code, out, errOut = client(t, "resources", "read", "--era", "legacy", "test://nope")
	want = `mcpkit: resources/read test://nope: jsonrpc error -32002: Resource not found: {"uri":"test://nope"}` + "\n"
	if code != 1 || out != "" || errOut != want {
		t.Errorf("unknown URI, legacy era: exit %d, stdout %q, stderr %q; want 1, \"\", %q", code, out, errOut, want)
	}
}

func TestPromptsList(t *testing.T) {
	code, out, errOut := client(t, "prompts", "list")
	want := "" +
		"test_input_required_result_prompt                Asks the user for the context to use (elicitation under user_context), then returns a prompt with it (SEP-2322 conformance fixture).\n" +
		"test_prompt_with_arguments          arg1 arg2    A prompt with two required arguments (conformance fixture).\n" +
		"test_prompt_with_embedded_resource  resourceUri  A prompt that embeds the resource it is given (conformance fixture).\n" +
		"test_prompt_with_image                           A prompt with an image (conformance fixture).\n" +
		"test_simple_prompt                               A simple prompt without arguments (conformance fixture).\n"
	if code != 0 || out != want || errOut != "" {
		t.Errorf("exit %d, stdout\n%s\nstderr %q; want 0 and\n%s", code, out, errOut, want)
	}
	code, out, errOut = client(t, "prompts", "list", "--json")
	var res struct {
		Prompts []struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name     string `json:"name"`
				Required bool   `json:"required"`
			} `json:"arguments"`
		} `json:"prompts"`
	}
	if code != 0 || errOut != "" || json.Unmarshal([]byte(out), &res) != nil {
		t.Fatalf("--json: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if len(res.Prompts) != 5 || res.Prompts[1].Name != "test_prompt_with_arguments" || len(res.Prompts[1].Arguments) != 2 || !res.Prompts[1].Arguments[1].Required {
		t.Errorf("--json output = %s", out)
	}
}

func TestPromptsGet(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"test_simple_prompt"}, "user: This is a simple prompt for testing.\n"},
		{[]string{"test_prompt_with_arguments", "--args", `{"arg1":"a","arg2":"b"}`}, "user: Prompt with arguments: arg1='a', arg2='b'\n"},
		{[]string{"--args", `{"resourceUri":"test://x"}`, "test_prompt_with_embedded_resource"},
			"user: [resource test://x, text/plain, 38 bytes of text]\nuser: Please process the embedded resource above.\n"},
		{[]string{"test_prompt_with_image"}, "user: [image image/png, 70 bytes]\nuser: Please analyze the image above.\n"},
		{[]string{"test_simple_prompt", "--json", "--era", "legacy"}, `{"messages":[{"role":"user","content":{"type":"text","text":"This is a simple prompt for testing."}}]}` + "\n"},
	} {
		code, out, errOut := client(t, append([]string{"prompts", "get"}, tc.args...)...)
		if code != 0 || out != tc.want || errOut != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 0, %q", tc.args, code, out, errOut, tc.want)
		}
	}
	code, out, errOut := client(t, "prompts", "get", "test_prompt_with_arguments", "--args", `{"arg1":"a"}`)
	want := `mcpkit: prompts/get test_prompt_with_arguments: jsonrpc error -32602: Invalid params: "Missing required argument for prompt test_prompt_with_arguments: arg2"` + "\n"
	if code != 1 || out != "" || errOut != want {
		t.Errorf("missing argument: exit %d, stdout %q, stderr %q; want 1, \"\", %q", code, out, errOut, want)
	}
	code, _, errOut = client(t, "prompts", "get", "nope")
	if want := `mcpkit: prompts/get nope: jsonrpc error -32602: Invalid params: "Unknown prompt: nope"` + "\n"; code != 1 || errOut != want {
		t.Errorf("unknown prompt: exit %d, stderr %q; want 1, %q", code, errOut, want)
	}
}

func TestResourcesPromptsUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // the first line of stderr
	}{
		{[]string{"resources"}, "mcpkit: resources: want a subcommand: list or read"},
		{[]string{"resources", "frob"}, `mcpkit: resources: unknown subcommand "frob": want list or read`},
		{[]string{"resources", "list", "extra", "--", "x"}, `mcpkit: resources list: unexpected argument "extra" (the server command goes after --)`},
		{[]string{"resources", "read", "--", "x"}, "mcpkit: resources read: want exactly one URI before --, got 0 arguments"},
		{[]string{"resources", "read", "a", "b", "--", "x"}, "mcpkit: resources read: want exactly one URI before --, got 2 arguments"},
		{[]string{"resources", "read", "test://x"}, "mcpkit: no server to talk to: give --url URL, or the command that starts it after --, as in"},
		{[]string{"prompts"}, "mcpkit: prompts: want a subcommand: list or get"},
		{[]string{"prompts", "frob"}, `mcpkit: prompts: unknown subcommand "frob": want list or get`},
		{[]string{"prompts", "list", "--bogus", "--", "x"}, "mcpkit: prompts list: flag provided but not defined: -bogus"},
		{[]string{"prompts", "get", "--", "x"}, "mcpkit: prompts get: want exactly one prompt name before --, got 0 arguments"},
		{[]string{"prompts", "get", "p", "--args", `{"a":1}`, "--", "x"}, `mcpkit: prompts get: --args must be a JSON object of strings (prompt arguments are strings), not {"a":1}`},
		{[]string{"prompts", "get", "p", "--args", `["a"]`, "--", "x"}, `mcpkit: prompts get: --args must be a JSON object, such as '{"name":"value"}', not ["a"]`},
		{[]string{"prompts", "get", "p", "--args", ``, "--", "/nonexistent"}, "mcpkit: cannot start `/nonexistent`: no such file or directory"},
	} {
		code, out, errOut := runCLI(t, "", tc.args...)
		first, _, _ := strings.Cut(errOut, "\n")
		wantCode := 2
		if strings.Contains(tc.want, "cannot start") {
			wantCode = 1
		}
		if code != wantCode || out != "" || first != tc.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, \"\", first line %q", tc.args, code, out, errOut, wantCode, tc.want)
		}
	}
}

// TestResourcesPromptsOverHTTP runs `mcpkit serve --http` in-process and
// uses the resources and prompts verbs with --url.
func TestResourcesPromptsOverHTTP(t *testing.T) {
	srv := startServeHTTP(t)
	url := srv.find(t, `url=(http://127\.0\.0\.1:\d+/mcp)`)

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"resources", "read", "test://template/7/data"}, `{"id":"7","templateTest":true,"data":"Data for ID: 7"}` + "\n"},
		{[]string{"prompts", "get", "test_prompt_with_arguments", "--args", `{"arg1":"x","arg2":"y"}`}, "user: Prompt with arguments: arg1='x', arg2='y'\n"},
	} {
		c, out, errOut := runCLI(t, "", append(tc.args, "--url", url)...)
		if c != 0 || out != tc.want {
			t.Errorf("%q --url: exit %d, stdout %q, stderr %q; want 0, %q", tc.args, c, out, errOut, tc.want)
		}
	}
	for _, args := range [][]string{{"resources", "list"}, {"prompts", "list"}} {
		c, out, errOut := runCLI(t, "", append(args, "--url", url)...)
		if c != 0 || !strings.Contains(out, "test_prompt_with_image") && !strings.Contains(out, "test://static-text") {
			t.Errorf("%q --url: exit %d, stdout %q, stderr %q", args, c, out, errOut)
		}
	}

	srv.end(t)
}
