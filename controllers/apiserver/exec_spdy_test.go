package apiserver_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver/stream"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// spdyExecClient is a remote command client over SPDY/3.1, as
// client-go's SPDY executor: it opens typed streams and collects what
// the server sends on each until the streams ended.
type spdyExecClient struct {
	t      *testing.T
	fr     *stream.Framer
	next   uint32
	types  map[uint32]string
	frames chan *stream.Frame
	proto  string
}

func dialSPDYExec(t *testing.T, ts *httptest.Server, path string, protocols ...string) *spdyExecClient {
	t.Helper()
	nc, br, resp := spdyUpgrade(t, ts, path, protocols...)
	require.Equal(t, http.StatusSwitchingProtocols, resp.StatusCode)
	c := &spdyExecClient{t: t, fr: stream.NewFramer(br, nc), next: 1, types: map[uint32]string{},
		frames: make(chan *stream.Frame, 64), proto: resp.Header.Get("X-Stream-Protocol-Version")}
	go func() {
		defer close(c.frames)
		for {
			f, err := c.fr.ReadFrame()
			if err != nil {
				return
			}
			c.frames <- f
		}
	}()
	return c
}

// open opens a stream of type typ and returns its ID.
func (c *spdyExecClient) open(typ string) uint32 {
	c.t.Helper()
	id := c.next
	c.next += 2
	c.types[id] = typ
	require.NoError(c.t, c.fr.WriteFrame(&stream.Frame{Type: stream.SPDYSynStream, StreamID: id, Headers: http.Header{"Streamtype": {typ}}}))
	return id
}

func (c *spdyExecClient) send(id uint32, data string, fin bool) {
	c.t.Helper()
	f := &stream.Frame{Type: stream.SPDYData, StreamID: id, Data: []byte(data)}
	if fin {
		f.Flags = stream.SPDYFlagFin
	}
	require.NoError(c.t, c.fr.WriteFrame(f))
}

// collect reads until the server ended the streams of the given types
// (their FIN) and returns each type's data; resets are recorded as
// "RST".
func (c *spdyExecClient) collect(types ...string) map[string]string {
	c.t.Helper()
	out := map[string]string{}
	open := map[string]bool{}
	for _, typ := range types {
		open[typ] = true
	}
	for len(open) > 0 {
		f, ok := <-c.frames
		require.True(c.t, ok, "connection ended with %v open: %v", open, out)
		typ := c.types[f.StreamID]
		switch f.Type {
		case stream.SPDYData:
			out[typ] += string(f.Data)
			if f.Flags&stream.SPDYFlagFin != 0 {
				delete(open, typ)
			}
		case stream.SPDYRstStream:
			out[typ] += "RST"
			delete(open, typ)
		}
	}
	return out
}

// close says GOAWAY, as client-go when the command ended.
func (c *spdyExecClient) close() {
	_ = c.fr.WriteFrame(&stream.Frame{Type: stream.SPDYGoAway})
}

// Issue 32: exec and attach over SPDY/3.1 (kubectl's and client-go's
// fallback): the kubelet's protocols v4 (a Status on the error stream),
// v3 (with a resize stream), v2 and v1 (the error's text); the streams
// the client opens named by streamType; stdin and its close; a tty's
// size from the resize stream; refused negotiations as Statuses.
func TestExecSPDY(t *testing.T) {
	c, ts := start(t, cluster.Options{})
	runningPod(t, c, map[string]string{"sim.ctrlkit.io/log.web": "hello"})
	const exec = "/api/v1/namespaces/default/pods/p/exec?container=web&"

	// v4 (client-go offers v5 first: not over SPDY), exit code as a
	// Status cause.
	cl := dialSPDYExec(t, ts, exec+url.Values{"command": {"sh", "-c", "echo out; cat /nope; exit 3"}, "stdout": {"true"}, "stderr": {"true"}}.Encode(),
		"v5.channel.k8s.io", "v4.channel.k8s.io", "v3.channel.k8s.io")
	require.Equal(t, "v4.channel.k8s.io", cl.proto)
	cl.open("error")
	cl.open("stdout")
	cl.open("stderr")
	got := cl.collect("error", "stdout", "stderr")
	cl.close()
	require.Equal(t, "out\n", got["stdout"])
	require.Equal(t, "cat: can't open '/nope': No such file or directory\n", got["stderr"])
	var st map[string]any
	require.NoError(t, json.Unmarshal([]byte(got["error"]), &st))
	require.Equal(t, "Failure", st["status"])
	require.Equal(t, "NonZeroExitCode", st["reason"])
	require.Equal(t, []any{map[string]any{"reason": "ExitCode", "message": "3"}}, st["details"].(map[string]any)["causes"])

	// v4 success; stdin until its FIN; a stream of an unknown type is
	// reset and does not count.
	cl = dialSPDYExec(t, ts, exec+"command=cat&stdin=true&stdout=true", "v4.channel.k8s.io")
	cl.open("error")
	cl.open("bogus")
	in := cl.open("stdin")
	cl.open("stdout")
	cl.send(in, "typed ", false)
	cl.send(in, "in\n", true)
	got = cl.collect("error", "stdout", "bogus")
	cl.close()
	require.Equal(t, "typed in\n", got["stdout"])
	require.Equal(t, "RST", got["bogus"])
	require.NoError(t, json.Unmarshal([]byte(got["error"]), &st))
	require.Equal(t, "Success", st["status"])

	// v3 with a tty: the resize stream's last size is what stty says;
	// no stderr stream with a tty.
	cl = dialSPDYExec(t, ts, exec+"command=sh&stdin=true&stdout=true&stderr=true&tty=true", "v3.channel.k8s.io")
	require.Equal(t, "v3.channel.k8s.io", cl.proto)
	cl.open("error")
	in = cl.open("stdin")
	require.Equal(t, uint32(5), cl.open("stdout"))
	rs := cl.open("resize")
	outID := uint32(5)
	var screen string
	// prompt reads the screen up to the next prompt.
	prompt := func() string {
		t.Helper()
		screen = ""
		for f := range cl.frames {
			if f.Type == stream.SPDYData && f.StreamID == outID {
				screen += string(f.Data)
				if strings.HasSuffix(screen, "/ # ") {
					return screen
				}
			}
		}
		t.Fatalf("connection ended: %q", screen)
		return ""
	}
	// line types a line and returns the screen up to the next prompt.
	line := func(text string) string {
		t.Helper()
		cl.send(in, text+"\r", false)
		return prompt()
	}
	require.Equal(t, "/ # ", prompt())
	for _, size := range []string{"24 80", "43 132"} {
		var rows, cols int
		_, err := fmt.Sscan(size, &rows, &cols)
		require.NoError(t, err)
		cl.send(rs, fmt.Sprintf(`{"Width":%d,"Height":%d}`, cols, rows), false)
		// The resize stream is read apart from stdin: ask until the
		// size arrived.
		for i := 0; ; i++ {
			require.Less(t, i, 1000, "stty size never said %s: %q", size, screen)
			if line("stty size") == "stty size\r\n"+size+"\r\n/ # " {
				break
			}
		}
	}
	cl.send(in, "exit 4\r", false)
	got = cl.collect("error", "stdout")
	cl.close()
	require.Equal(t, "exit 4\r\n", got["stdout"])
	require.Equal(t, "command terminated with non-zero exit code: error executing command [sh], exit code 4", got["error"])

	// v2 and v1: an error's text; nothing on success.
	for _, proto := range []string{"v2.channel.k8s.io", "channel.k8s.io"} {
		cl = dialSPDYExec(t, ts, exec+"command=false&stdout=true", proto)
		require.Equal(t, proto, cl.proto)
		cl.open("error")
		cl.open("stdout")
		got = cl.collect("error", "stdout")
		cl.close()
		require.Equal(t, "command terminated with non-zero exit code: error executing command [false], exit code 1", got["error"])
		cl = dialSPDYExec(t, ts, exec+"command=true&stdout=true", proto)
		cl.open("error")
		cl.open("stdout")
		got = cl.collect("error", "stdout")
		cl.close()
		require.Empty(t, got["error"])
	}

	// attach: the container's log on stdout.
	cl = dialSPDYExec(t, ts, "/api/v1/namespaces/default/pods/p/attach?container=web&stdout=true&stdin=true", "v4.channel.k8s.io")
	cl.open("error")
	in = cl.open("stdin")
	out := cl.open("stdout")
	cl.send(in, "dropped\n", true)
	var log string
	for f := range cl.frames {
		if f.Type == stream.SPDYData && f.StreamID == out {
			log += string(f.Data)
			if len(log) >= len("[ctrlkit] container web started: image nginx, restart 1\nhello\n[ctrlkit] container web is ready\n") {
				break
			}
		}
	}
	require.Equal(t, "[ctrlkit] container web started: image nginx, restart 1\nhello\n[ctrlkit] container web is ready\n", log)
	cl.close()

	// Refusals: Statuses before any upgrade.
	_, _, resp := spdyUpgrade(t, ts, exec+"command=true&stdout=true", "v5.channel.k8s.io", "v9.channel.k8s.io")
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Equal(t, []string{"v4.channel.k8s.io", "v3.channel.k8s.io", "v2.channel.k8s.io", "channel.k8s.io"}, resp.Header.Values("X-Accepted-Stream-Protocol-Versions"))
	body, _ := io.ReadAll(resp.Body)
	require.Contains(t, string(body), "unable to upgrade: unable to negotiate protocol: client supports [v5.channel.k8s.io v9.channel.k8s.io], server accepts [v4.channel.k8s.io v3.channel.k8s.io v2.channel.k8s.io channel.k8s.io]")
	_, _, resp = spdyUpgrade(t, ts, exec+"command=true&stdout=true")
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	body, _ = io.ReadAll(resp.Body)
	require.Contains(t, string(body), "unable to upgrade: header X-Stream-Protocol-Version does not exist")
	for _, tc := range []struct{ path, message string }{
		{"/api/v1/namespaces/default/pods/p/exec?command=true&stdout=true&container=nope", "container nope is not valid for pod p"},
		{"/api/v1/namespaces/default/pods/p/exec?container=side&stdout=true", "you must specify at least one command for the container"},
	} {
		_, _, resp = spdyUpgrade(t, ts, tc.path, "v4.channel.k8s.io")
		require.Equal(t, http.StatusBadRequest, resp.StatusCode)
		body, _ = io.ReadAll(resp.Body)
		require.Contains(t, string(body), tc.message)
	}
	r := do(t, ts, "POST", exec+"command=true&stdout=true", "", "")
	require.Equal(t, 400, r.code)
	require.Contains(t, r.body["message"], "unable to upgrade: missing upgrade headers in request")
}
