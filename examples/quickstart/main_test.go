package main

import (
	"strings"
	"testing"
	"testing/synctest"
)

// The demo converges after every step, issues exactly the writes the
// desired counts call for (expectations and the consistency gate prevent
// duplicates even across the injected faults), and shuts down cleanly.
// It runs in a bubble: backoff after the injected failures is virtual, and
// a goroutine left running would fail the test.
func TestQuickstartConverges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out strings.Builder
		if err := run(&out); err != nil {
			t.Fatalf("run: %v\n%s", err, out.String())
		}
		got := out.String()
		for _, want := range []string{
			"  batch 5/5 pods\n",
			"  web   6/6 pods\n",
			"  api   4/4 pods\n",
			"  batch 0/0 pods\n",
			// 3+2+5 creates, +3 web, -4 batch, +2 api, +1 web-0, -1 batch.
			"pods in the source: 10; creates and deletes by the controller: 21\n",
			"writes refused because the controller acted on a stale cache: 0\n",
			"shut down: every goroutine has exited\n",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("output lacks %q:\n%s", want, got)
			}
		}
	})
}
