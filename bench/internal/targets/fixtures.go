package targets

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
)

// The realistic-payload fixtures every target serves beside echo (issue
// 19): a tool with nested arguments and structured output, a 1 MB text and
// a 1 MB blob resource, 500 tools with real schemas, and a prompt with
// arguments. The load generator (package load) builds its requests and
// checks its replies from the same definitions.

// Fixture names and URIs.
const (
	NestedTool  = "order_quote"
	TextURI     = "bench://text/1mb"
	BlobURI     = "bench://blob/1mb"
	FanoutURI   = "bench://fanout"
	FloodURI    = "bench://flood"
	ReviewName  = "code_review"
	ManyTools   = 500
	TextSize    = 1 << 20
	BlobSize    = 1 << 20
	OutputRepls = 4 // structuredContent holds the order this many times
)

// Address is part of NestedIn.
type Address struct {
	Street  string `json:"street"`
	City    string `json:"city"`
	Country string `json:"country"`
	Postal  string `json:"postal"`
}

// Customer is part of NestedIn.
type Customer struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Email   string   `json:"email"`
	Billing Address  `json:"billing"`
	Ship    Address  `json:"shipping"`
	Tags    []string `json:"tags"`
}

// Item is one line of an order.
type Item struct {
	SKU      string            `json:"sku"`
	Title    string            `json:"title"`
	Quantity int               `json:"quantity"`
	Price    float64           `json:"price"`
	Attrs    map[string]string `json:"attrs"`
	Note     string            `json:"note"`
}

// Order is the nested tool's argument.
type Order struct {
	ID       string   `json:"id"`
	Customer Customer `json:"customer"`
	Items    []Item   `json:"items"`
	Notes    string   `json:"notes"`
	Rush     bool     `json:"rush"`
}

// NestedIn is the nested tool's arguments: about 2 KB of JSON with
// non-ASCII text and characters JSON escapes.
type NestedIn struct {
	Order Order `json:"order"`
}

// Quote is one priced copy of the order in NestedOut.
type Quote struct {
	Variant string  `json:"variant"`
	Order   Order   `json:"order"`
	Total   float64 `json:"total"`
	Lines   int     `json:"lines"`
}

// NestedOut is the nested tool's structured output: about 8 KB.
type NestedOut struct {
	Quotes []Quote `json:"quotes"`
}

var variants = [OutputRepls]string{"standard", "express", "économique", "同日配送"}

// Quoted is the nested tool's logic, shared by every target: the order
// priced in OutputRepls variants.
func Quoted(in NestedIn) NestedOut {
	total := 0.0
	for _, it := range in.Order.Items {
		total += float64(it.Quantity) * it.Price
	}
	out := NestedOut{Quotes: make([]Quote, OutputRepls)}
	for i := range out.Quotes {
		out.Quotes[i] = Quote{Variant: variants[i], Order: in.Order, Total: total * float64(i+1), Lines: len(in.Order.Items)}
	}
	return out
}

// NestedArgs returns the nested tool's arguments for request seq: the same
// shape every time, with seq in the order id so that no reply can be
// replayed.
func NestedArgs(seq int64) NestedIn {
	addr := Address{Street: "12 rue de l'Église, bât. «B»", City: "Zürich", Country: "CH", Postal: "8001"}
	items := make([]Item, 6)
	for i := range items {
		items[i] = Item{
			SKU:      fmt.Sprintf("SKU-%04d-ß", i),
			Title:    fmt.Sprintf("Größe %d — \"deluxe\" édition\tcafé ☕", i),
			Quantity: i + 1,
			Price:    9.5 + float64(i),
			Attrs:    map[string]string{"colour": "rouge/红", "size": "XL", "path": `C:\data\items`},
			Note:     "line 1\nline 2 <b>&amp;</b> 😀",
		}
	}
	return NestedIn{Order: Order{
		ID: fmt.Sprintf("order-%d", seq),
		Customer: Customer{ID: "cus_42", Name: "Zoë Ångström-Müller", Email: "zoe@example.com",
			Billing: addr, Ship: addr, Tags: []string{"vip", "früh", "日本"}},
		Items: items,
		Notes: "Bitte \"vorsichtig\" liefern.\r\nΣημείωση: fragile \\ handle with care \u2028 end",
		Rush:  seq%2 == 0,
	}}
}

// NestedSchema is the nested tool's input schema, for the targets that
// take one written by hand.
var NestedSchema = json.RawMessage(`{"type":"object","properties":{"order":{"type":"object","properties":{` +
	`"id":{"type":"string"},"customer":{"type":"object"},"items":{"type":"array","items":{"type":"object"}},` +
	`"notes":{"type":"string"},"rush":{"type":"boolean"}},"required":["id","customer","items"]}},"required":["order"]}`)

// Text is the 1 MB text resource: lines of prose and code with quotes,
// backslashes, tabs and non-ASCII, as a source file would have.
var Text = func() string {
	var b strings.Builder
	lines := []string{
		"func (s *Server) handle(ctx context.Context, req *Request) error {\n",
		"\tif err := s.check(req); err != nil { return fmt.Errorf(\"check: %w\", err) }\n",
		"// Größenordnung: «naïve» café — 東京 ☕ path C:\\Users\\zoë\\notes.txt\n",
		"The quick brown fox jumps over the lazy dog; \"quoted\" and 'single' <tags> & more.\n",
	}
	for i := 0; b.Len() < TextSize; i++ {
		b.WriteString(lines[i%len(lines)])
	}
	return b.String()[:TextSize]
}()

// Blob is the 1 MB blob resource: random bytes (fixed seed).
var Blob = func() []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, BlobSize)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}()

// BlobBase64 is Blob as the wire carries it.
var BlobBase64 = base64.StdEncoding.EncodeToString(Blob)

// ToolName is the name of the i-th of the ManyTools tools.
func ToolName(i int) string { return fmt.Sprintf("tool_%03d", i) }

// ToolSchema is the input schema of the i-th of the ManyTools tools: a
// schema of the size and shape real tools have (nested object, enum,
// bounds, array, descriptions).
func ToolSchema(i int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
		`"query":{"type":"string","description":"What to search for in repository %d; supports \"quoted phrases\"."},`+
		`"limit":{"type":"integer","minimum":1,"maximum":100,"default":10,"description":"Maximum results."},`+
		`"sort":{"type":"string","enum":["relevance","newest","oldest"],"description":"Order of results."},`+
		`"filters":{"type":"object","properties":{"language":{"type":"string"},"path":{"type":"string","pattern":"^[a-z/]+$"},`+
		`"since":{"type":"string","format":"date-time"}},"additionalProperties":false},`+
		`"labels":{"type":"array","items":{"type":"string"},"maxItems":20}},"required":["query"]}`, i))
}

// ToolDescription is the description of the i-th of the ManyTools tools.
func ToolDescription(i int) string {
	return fmt.Sprintf("Searches code in repository %d and returns matching files with line numbers and context.", i)
}

// ReviewText is the prompt's one user message for its arguments.
func ReviewText(code, language string) string {
	return "Review the following " + language + " code. Point out bugs, unclear names and missing tests.\n\n```" +
		language + "\n" + code + "\n```"
}

// ReviewDescription is the prompt's description.
const ReviewDescription = "Asks the model to review a piece of code"

// Notifier is the fan-out hook of the server process: it tells every
// subscriber of uri that the resource changed (ResourceUpdated). It is
// set by the target's server when it is built.
var Notifier atomic.Pointer[func(ctx context.Context, uri string) error]

func setNotifier(f func(ctx context.Context, uri string) error) { Notifier.Store(&f) }
