package stream_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver/stream"
)

// A server upgrades a request to a WebSocket speaking
// v5.channel.k8s.io and echoes one message; a client dials it over a
// plain connection.
func Example() {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := stream.Upgrade(w, r, []string{"v5.channel.k8s.io", "channel.k8s.io"})
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		defer c.Close()
		op, msg, err := c.ReadMessage()
		if err != nil {
			return
		}
		_ = c.WriteMessage(op, append([]byte("echo: "), msg...))
	}))
	defer ts.Close()

	u, _ := url.Parse(ts.URL)
	nc, err := net.Dial("tcp", u.Host)
	if err != nil {
		panic(err)
	}
	defer nc.Close()
	c, err := stream.Dial(nc, u.Host, "/exec", nil, "v5.channel.k8s.io")
	if err != nil {
		panic(err)
	}
	fmt.Println("protocol:", c.Protocol())
	if err := c.WriteMessage(stream.OpBinary, []byte("\x01hello")); err != nil {
		panic(err)
	}
	_, msg, err := c.ReadMessage()
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", msg)
	// Output:
	// protocol: v5.channel.k8s.io
	// "echo: \x01hello"
}
