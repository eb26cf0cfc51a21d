package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The etcd build runs in real time: etcd does network and disk I/O,
// which a testing/synctest bubble cannot hold. Every wait is bounded:
// each run by runTimeout on its context and by --timeout for settling,
// and the embedded server's start and stop by readyTimeout and
// stopTimeout. Each run takes 5–15 s on two cores.
const runTimeout = 60 * time.Second

func runUp(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), runTimeout)
	defer cancel()
	var out, errOut bytes.Buffer
	start := time.Now()
	code = run(ctx, append([]string{"up", "--once", "--nodes", "2", "--quiet", "3s", "--timeout", "45s"}, args...), &out, &errOut)
	t.Logf("ctrlkit up %v: exit %d after %v", args, code, time.Since(start).Round(time.Millisecond))
	return code, out.String(), errOut.String()
}

// `up --once --etcd-embedded=DIR` settles a Deployment behind a Service
// in an embedded etcd and stops it cleanly; a second run on the same DIR
// finds the Deployment there. The second run applies an empty directory:
// the same manifest again would be reported as AlreadyExists (and
// tolerated).
func TestUpEmbeddedKeepsState(t *testing.T) {
	dir := t.TempDir()

	code, out, errOut := runUp(t, "--etcd-embedded="+dir, "-f", "testdata/app")
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
	require.Regexp(t, `embedded etcd: data in .*, clients at http://127\.0\.0\.1:\d+`, errOut)
	require.NotContains(t, errOut, "apply:")
	require.Regexp(t, `default\s+app\s+2/2\s+2\s+2`, out, "the Deployment is available")
	require.Regexp(t, `default\s+app\s+ClusterIP\s+10\.96\.\d+\.\d+\s+80/TCP\s+10\.244\.\d+\.\d+:80,10\.244`, out, "the Service has both endpoints")
	require.Contains(t, out, "settled after")

	code, out, errOut = runUp(t, "--etcd-embedded", dir, "-f", t.TempDir())
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
	require.Regexp(t, `default\s+app\s+2/2\s+2\s+2`, out, "the Deployment is still there")
	require.Contains(t, out, "settled after")
}

func TestRewriteArgs(t *testing.T) {
	for _, tc := range []struct {
		in, want []string
		err      string
	}{
		{in: []string{"up", "--once"}, want: []string{"up", "--once"}},
		{in: []string{"up", "--etcd=http://a:2379"}, want: []string{"up", "--etcd=http://a:2379"}},
		{in: []string{"up", "--once", "--etcd-embedded=d"}, want: []string{"up", "--etcd=embedded:d", "--once"}},
		{in: []string{"up", "-etcd-embedded", "d", "-f", "x"}, want: []string{"up", "--etcd=embedded:d", "-f", "x"}},
		{in: []string{"help", "--etcd-embedded=d"}, want: []string{"help", "--etcd-embedded=d"}},
		{in: []string{"up", "--", "--etcd-embedded=d"}, want: []string{"up", "--", "--etcd-embedded=d"}},
		{in: []string{"up", "--etcd-embedded=d", "--etcd", "x"}, err: "give one"},
		{in: []string{"up", "--etcd-embedded"}, err: "needs an argument"},
		{in: []string{"up", "--etcd-embedded="}, err: "empty"},
		{in: []string{"up", "--etcd-embedded=a", "--etcd-embedded=b"}, err: "twice"},
	} {
		got, err := rewriteArgs(tc.in)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, "%q", tc.in)
			continue
		}
		require.NoError(t, err, "%q", tc.in)
		require.Equal(t, tc.want, got, "%q", tc.in)
	}
}

func TestUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"help"}, &out, &errOut))
	require.Contains(t, out.String(), "-etcd string")
	require.Contains(t, out.String(), "-etcd-embedded string")
	out.Reset()
	require.Equal(t, 0, run(context.Background(), []string{"up", "--help"}, &out, &errOut))
	require.Contains(t, out.String(), "-insecure-http-no-auth")
	require.Contains(t, out.String(), "-etcd-embedded string")
}

// A store that does not answer fails the start within probeTimeout, with
// the endpoint named.
func TestUpUnreachableEtcd(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the probe timeout")
	}
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(t.Context(), runTimeout)
	defer cancel()
	code := run(ctx, []string{"up", "--once", "--etcd=http://127.0.0.1:1"}, &out, &errOut)
	require.Equal(t, 1, code, errOut.String())
	require.Contains(t, errOut.String(), "127.0.0.1:1")
}
