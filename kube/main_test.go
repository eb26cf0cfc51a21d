package kube_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/ctrlkit/ctrlkit/kube/internal/testserver"
)

// server is the one API server of this test binary (see
// internal/testserver), shared by every test: starting one takes
// seconds, and each test works in namespaces of its own.
var server *testserver.Server

func TestMain(m *testing.M) {
	s, err := testserver.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	server = s
	code := m.Run()
	s.Close()
	os.Exit(code)
}
