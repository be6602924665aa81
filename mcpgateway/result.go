package mcpgateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/agentready/agentready/internal/gatewaydecl"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxResult caps the body of a called capability's answer a tool's result
// carries: past it the call is an error result, never a truncated JSON
// value a client would read as whole.
const maxResult = 1 << 20

// answer holds what the called capability's handler answered: its
// status, header and body up to maxResult bytes (over says it wrote
// more). It is the ResponseWriter of the in-process call.
type answer struct {
	header http.Header
	status int
	body   bytes.Buffer
	over   bool
}

func newAnswer() *answer { return &answer{header: http.Header{}} }

func (a *answer) Header() http.Header { return a.header }

func (a *answer) WriteHeader(code int) {
	if a.status == 0 {
		a.status = code
	}
}

func (a *answer) Write(p []byte) (int, error) {
	a.WriteHeader(http.StatusOK)
	if room := maxResult - a.body.Len(); len(p) > room {
		a.body.Write(p[:max(room, 0)])
		a.over = true
		return len(p), nil // the handler finishes; the result is an error
	}
	return a.body.Write(p)
}

// result is the tool's result for the answer: a 2xx JSON body as
// structured content (with its text, as MCP asks of a tool that returns
// structured content, 2025-06-18 Tools, "Structured Content"), any other
// 2xx body as text, and a 4xx or 5xx an error result naming the status
// and, from a problem document (RFC 9457), its title and detail.
func (a *answer) result(t *gatewaydecl.Tool) *mcp.CallToolResult {
	status := a.status
	if status == 0 {
		status = http.StatusOK
	}
	if a.over {
		return errorResult(fmt.Sprintf("the answer of the call (status %d) is longer than %d bytes, which a tool result carries at most", status, maxResult))
	}
	body := a.body.Bytes()
	media, _, _ := mime.ParseMediaType(a.header.Get("Content-Type"))
	isJSON := media == "application/json" || strings.HasSuffix(media, "+json")
	if status >= 400 {
		msg := fmt.Sprintf("the call was answered %d %s", status, http.StatusText(status))
		var p struct{ Title, Detail string }
		if isJSON && json.Unmarshal(body, &p) == nil && (p.Title != "" || p.Detail != "") {
			msg += ": " + strings.TrimSpace(p.Title+". "+p.Detail)
		} else if len(body) > 0 {
			msg += ": " + string(body)
		}
		return errorResult(msg)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}
	if isJSON && json.Valid(body) {
		// Where the tool has an output schema, structured content MUST
		// conform to it (MCP 2025-06-18 Tools, "Output Schema"): an
		// answer that does not is an error result, not a broken one.
		if err := t.ValidateOutput(body); err != nil {
			return errorResult("the answer of the call does not conform to the tool's output schema: " + err.Error())
		}
		res.StructuredContent = json.RawMessage(body)
	}
	return res
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}
