package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentready/agentready/internal/mcplist"
	"github.com/agentready/agentready/internal/mcprpc"
)

// Each agent sees what it may call (issue 35): the tools/list answers of
// the official Go SDK's server (v1.8.0), filtered by internal/mcplist
// behind a wrapper that does what the enforcer does with it, read by the
// SDK's client: stateful (MCP 2025-11-25, SSE answers), stateless (MCP
// 2026-07-28) with SSE and with JSON answers, across pages.

// listFilter serves every POST whose JSON-RPC request is a tools/list
// through an mcplist.Writer for allow and its id, a batch with a
// tools/list and every GET (a stream a server may replay a POST's answers
// on) through one for any id, as the enforcer does; everything else
// reaches next untouched.
func listFilter(next http.Handler, allow func(string) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			lw := mcplist.New(w, nil, allow, 0)
			next.ServeHTTP(lw, r)
			_ = lw.Finish()
			return
		}
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		msgs, batch, err := mcprpc.Parse(body)
		lists := err == nil && slices.ContainsFunc(msgs, func(m mcprpc.Message) bool { return m.Method == "tools/list" })
		if !lists {
			next.ServeHTTP(w, r)
			return
		}
		id := msgs[0].ID
		if batch {
			id = nil // the answer of a batch: every response filtered
		}
		r.Header.Del("Accept-Encoding") // an answer mcplist can read
		lw := mcplist.New(w, id, allow, 0)
		next.ServeHTTP(lw, r)
		_ = lw.Finish()
	})
}

type listIn struct {
	Query string `json:"query" jsonschema:"what to look for"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many results at most"`
}

type listOut struct {
	Results []string `json:"results"`
}

// listServer has the tools tool00 to tool{n-1}, pageSize a page (0: the
// SDK's default). A tools/list with a progress token is answered after a
// progress notification related to it, which travels on the request's
// own stream.
func listServer(n, pageSize int) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "catalog", Version: "1.0.0"}, &mcp.ServerOptions{PageSize: pageSize})
	for i := range n {
		listAddTool(s, i)
	}
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.ListToolsParams); ok && p != nil && method == "tools/list" && p.GetProgressToken() != nil {
				ss, _ := req.GetSession().(*mcp.ServerSession)
				if err := ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: p.GetProgressToken(), Progress: 1, Message: "listing"}); err != nil {
					return nil, err
				}
			}
			return next(ctx, method, req)
		}
	})
	return s
}

func listAddTool(s *mcp.Server, i int) {
	name := fmt.Sprintf("tool%02d", i)
	mcp.AddTool(s, &mcp.Tool{Name: name, Description: "looks things up in section " + name},
		func(ctx context.Context, req *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, listOut, error) {
			return nil, listOut{Results: []string{name + ":" + in.Query}}, nil
		})
}

// even: the caller may call the tools of even number.
func even(name string) bool {
	var i int
	_, err := fmt.Sscanf(name, "tool%d", &i)
	return err == nil && i%2 == 0
}

type listMode struct {
	name               string
	stateless, jsonAns bool
	version            string
}

var listModes = []listMode{
	{"stateful 2025-11-25 SSE", false, false, "2025-11-25"},
	{"stateless 2026-07-28 SSE", true, false, "2026-07-28"},
	{"stateless 2026-07-28 JSON", true, true, "2026-07-28"},
}

// listServe serves s on 127.0.0.1, filtered by allow when allow is not
// nil.
func listServe(t testing.TB, s *mcp.Server, mode listMode, allow func(string) bool) *httptest.Server {
	t.Helper()
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: mode.stateless, JSONResponse: mode.jsonAns})
	if allow != nil {
		h = listFilter(h, allow)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

func listConnect(t *testing.T, ctx context.Context, url string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, opts).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// pages lists every page with ListTools, following nextCursor.
func pages(t *testing.T, ctx context.Context, cs *mcp.ClientSession) (names [][]string, cursors []string) {
	t.Helper()
	p := &mcp.ListToolsParams{}
	for {
		res, err := cs.ListTools(ctx, p)
		if err != nil {
			t.Fatalf("ListTools(cursor %q): %v", p.Cursor, err)
		}
		var page []string
		for _, tl := range res.Tools {
			page = append(page, tl.Name)
		}
		names, cursors = append(names, page), append(cursors, res.NextCursor)
		if res.NextCursor == "" {
			return names, cursors
		}
		p = &mcp.ListToolsParams{Cursor: res.NextCursor}
	}
}

func iterate(t *testing.T, ctx context.Context, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tl, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("Tools: %v", err)
		}
		names = append(names, tl.Name)
	}
	return names
}

func TestMCPListFiltered(t *testing.T) {
	var wantEven []string
	for i := 0; i < 50; i += 2 {
		wantEven = append(wantEven, fmt.Sprintf("tool%02d", i))
	}
	for _, mode := range listModes {
		t.Run(mode.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			s := listServer(50, 7)
			bare := listConnect(t, ctx, listServe(t, s, mode, nil).URL, nil)
			cs := listConnect(t, ctx, listServe(t, s, mode, even).URL, nil)
			if v := cs.InitializeResult().ProtocolVersion; v != mode.version {
				t.Fatalf("negotiated %s, want %s", v, mode.version)
			}

			// Each page filtered on its own, the server's cursors kept.
			barePages, bareCursors := pages(t, ctx, bare)
			got, cursors := pages(t, ctx, cs)
			if len(barePages) != 8 || !slices.Equal(cursors, bareCursors) {
				t.Fatalf("cursors %q, want the server's %q (8 pages)", cursors, bareCursors)
			}
			for i := range got {
				var want []string
				for _, n := range barePages[i] {
					if even(n) {
						want = append(want, n)
					}
				}
				if !slices.Equal(got[i], want) {
					t.Errorf("page %d: %v, want %v", i+1, got[i], want)
				}
			}
			if names := iterate(t, ctx, cs); !slices.Equal(names, wantEven) {
				t.Errorf("the iterator: %v, want %v", names, wantEven)
			}
			if names := iterate(t, ctx, bare); len(names) != 50 {
				t.Errorf("unfiltered: %d tools, want 50", len(names))
			}

			// Pages left empty by the filter still lead to the next.
			last := listConnect(t, ctx, listServe(t, s, mode, func(n string) bool { return n == "tool49" }).URL, nil)
			if names := iterate(t, ctx, last); !slices.Equal(names, []string{"tool49"}) {
				t.Errorf("granted tool49 alone: %v", names)
			}
			none := listConnect(t, ctx, listServe(t, s, mode, func(string) bool { return false }).URL, nil)
			if names := iterate(t, ctx, none); len(names) != 0 {
				t.Errorf("granted nothing: %v", names)
			}
		})
	}
}

// TestMCPListChanged: notifications/tools/list_changed reaches a client
// that listens, on the GET stream (2025-11-25) or the subscriptions/listen
// stream (2026-07-28), through the wrapper; a notification the server
// relates to a tools/list travels on that request's filtered stream and
// reaches the client too; and the list asked for after the change shows
// the new tool only to a caller who may call it.
func TestMCPListChanged(t *testing.T) {
	for _, mode := range listModes {
		t.Run(mode.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			s := listServer(4, 0)
			changed, progress := make(chan struct{}, 8), make(chan struct{}, 8)
			cs := listConnect(t, ctx, listServe(t, s, mode, even).URL, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
				ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
					if r.Params.Message == "listing" {
						progress <- struct{}{}
					}
				},
			})
			// A JSON answer carries the response alone: the SDK sends a
			// notification related to it nowhere, and so the server sends
			// none.
			p := &mcp.ListToolsParams{}
			if !mode.jsonAns {
				p.SetProgressToken("list-1")
			}
			res, err := cs.ListTools(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if names := toolNames(res.Tools); !slices.Equal(names, []string{"tool00", "tool02"}) {
				t.Fatalf("tools %v", names)
			}
			if !mode.jsonAns {
				select { // the client handles notifications apart from the response
				case <-progress:
				case <-ctx.Done():
					t.Fatal("the progress notification of the tools/list did not reach the client")
				}
			}
			for _, i := range []int{4, 5} {
				listAddTool(s, i)
				select {
				case <-changed:
				case <-ctx.Done():
					t.Fatalf("no notifications/tools/list_changed after adding tool%02d", i)
				}
				want := []string{"tool00", "tool02", "tool04"}
				if names := iterate(t, ctx, cs); !slices.Equal(names, want) {
					t.Errorf("after adding tool%02d: %v, want %v", i, names, want)
				}
			}
		})
	}
}

func toolNames(tools []*mcp.Tool) []string {
	names := make([]string, len(tools))
	for i, tl := range tools {
		names[i] = tl.Name
	}
	return names
}

// BenchmarkToolsList: a tools/list of 50 tools, as a client sends it over
// loopback HTTP, to the Go SDK's stateless server, answered in JSON and in
// SSE, bare (filter=off) and through the wrapper letting half the tools
// through (filter=on; the wrapper reads and parses the body as the
// enforcer does). The budget: filter=on at most 1.5x filter=off.
//
//	go test -run '^$' -bench BenchmarkToolsList -count 9 . | tee list.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /filter list.txt
func BenchmarkToolsList(b *testing.B) {
	const body = `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	s := listServer(50, 0)
	for _, answer := range []struct {
		name string
		json bool
	}{{"json", true}, {"sse", false}} {
		mode := listMode{stateless: true, jsonAns: answer.json}
		for _, f := range []struct {
			name  string
			allow func(string) bool
		}{{"off", nil}, {"on", even}} {
			b.Run("answer="+answer.name+"/filter="+f.name, func(b *testing.B) {
				ts := listServe(b, s, mode, f.allow)
				client := ts.Client()
				want := 50
				if f.allow != nil {
					want = 25
				}
				b.ReportAllocs()
				for b.Loop() {
					req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Accept", "application/json, text/event-stream")
					req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
					req.Header.Set("Mcp-Method", "tools/list")
					res, err := client.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					out, err := io.ReadAll(res.Body)
					res.Body.Close()
					if err != nil || res.StatusCode != http.StatusOK || strings.Count(string(out), `"name":"tool`) != want {
						b.Fatalf("%d %v: %.300s", res.StatusCode, err, out)
					}
				}
			})
		}
	}
}

// TestMCPListResumed: a client that resumes its tools/list stream with
// Last-Event-ID (MCP 2025-11-25, Transports, "Resumability and
// Redelivery") has the server replay the answer on a GET stream: the
// replay is filtered too.
func TestMCPListResumed(t *testing.T) {
	s := listServer(6, 0)
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)})
	for _, tc := range []struct {
		name string
		h    http.Handler
		want []string
	}{
		{"bare: the replay carries the answer", sdk, []string{"tool00", "tool01", "tool02", "tool03", "tool04", "tool05"}},
		{"filtered", listFilter(sdk, even), []string{"tool00", "tool02", "tool04"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewServer(tc.h)
			defer ts.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, _ := rawMCP(t, ctx, ts.URL, http.MethodPost, "", "",
				`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
			session := res.Header.Get("Mcp-Session-Id")
			rawMCP(t, ctx, ts.URL, http.MethodPost, session, "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			_, events := rawMCP(t, ctx, ts.URL, http.MethodPost, session, "", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			if len(events) == 0 || events[0].id == "" {
				t.Fatalf("no event id to resume from: %+v", events)
			}
			if got := answerTools(t, events); !slices.Equal(got, tc.want) {
				t.Errorf("the answer: %v, want %v", got, tc.want)
			}
			_, replay := rawMCP(t, ctx, ts.URL, http.MethodGet, session, events[0].id, "")
			if got := answerTools(t, replay); !slices.Equal(got, tc.want) {
				t.Errorf("the replay: %v, want %v", got, tc.want)
			}
		})
	}
}

type sseEvent struct{ id, data string }

// rawMCP sends one request as a client writes it and reads its events
// until the response to id 2 (a stream ends there for this test).
func rawMCP(t *testing.T, ctx context.Context, url, method, session, lastEvent, body string) (*http.Response, []sseEvent) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	req.Header.Set("Accept", "application/json, text/event-stream")
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	if lastEvent != "" {
		req.Header.Set("Last-Event-ID", lastEvent)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var (
		events []sseEvent
		ev     sseEvent
	)
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id:"):
			ev.id = strings.TrimSpace(line[3:])
		case strings.HasPrefix(line, "data:"):
			ev.data += strings.TrimSpace(line[5:])
		case line == "":
			events = append(events, ev)
			if strings.Contains(ev.data, `"id":2,`) {
				if method == http.MethodPost {
					// Read the POST's stream to its end: the server
					// stores its events and ends the stream after the
					// response, and a replay asked while it is still open
					// can find none (go-sdk v1.8.0). A GET stream stays
					// open: it is left here.
					_, _ = io.Copy(io.Discard, res.Body)
				}
				return res, events
			}
			ev = sseEvent{}
		}
	}
	return res, events
}

// answerTools reads the tools of the response to id 2 among events.
func answerTools(t *testing.T, events []sseEvent) []string {
	t.Helper()
	for _, ev := range events {
		var r listAnswer
		if json.Unmarshal([]byte(ev.data), &r) == nil && r.ID == 2 {
			return toolNames(r.Result.Tools)
		}
	}
	t.Fatalf("no response to id 2 in %+v", events)
	return nil
}

// TestMCPListBatch: at MCP 2025-03-26 a POST may be a batch, and the Go
// SDK v1.8.0 answers one holding a tools/list (an array of responses in
// JSON, an event each in SSE): the answer is filtered as well.
func TestMCPListBatch(t *testing.T) {
	s := listServer(4, 0)
	for _, jsonAns := range []bool{false, true} {
		sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: jsonAns})
		for _, tc := range []struct {
			name string
			h    http.Handler
			want []string
		}{
			{"bare", sdk, []string{"tool00", "tool01", "tool02", "tool03"}},
			{"filtered", listFilter(sdk, even), []string{"tool00", "tool02"}},
		} {
			t.Run(fmt.Sprintf("%s, JSON answers %v", tc.name, jsonAns), func(t *testing.T) {
				ts := httptest.NewServer(tc.h)
				defer ts.Close()
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				res, _ := rawMCP(t, ctx, ts.URL, http.MethodPost, "", "",
					`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
				session := res.Header.Get("Mcp-Session-Id")
				rawMCP(t, ctx, ts.URL, http.MethodPost, session, "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL,
					strings.NewReader(`[{"jsonrpc":"2.0","id":6,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`))
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Mcp-Session-Id", session)
				req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var answers []listAnswer
				if jsonAns {
					if err := json.Unmarshal(b, &answers); err != nil {
						t.Fatalf("%v: %s", err, b)
					}
				} else {
					for line := range strings.SplitSeq(string(b), "\n") {
						if data, ok := strings.CutPrefix(line, "data: "); ok {
							var a listAnswer
							if err := json.Unmarshal([]byte(data), &a); err != nil {
								t.Fatalf("%v: %s", err, data)
							}
							answers = append(answers, a)
						}
					}
				}
				i := slices.IndexFunc(answers, func(a listAnswer) bool { return a.ID == 2 })
				if len(answers) != 2 || i < 0 || !slices.Equal(toolNames(answers[i].Result.Tools), tc.want) {
					t.Fatalf("%d answers, the tools/list's %v (want %v): %s", len(answers), answers, tc.want, b)
				}
			})
		}
	}
}

// listAnswer is a response to a tools/list.
type listAnswer struct {
	ID     int `json:"id"`
	Result mcp.ListToolsResult
}
