// Package kubectltest finds the real kubectl the project's tests drive
// against ctrlkit's API server, in every module.
package kubectltest

import (
	"os"
	"os/exec"
	"testing"
)

// Path returns the path of the kubectl on PATH. Without one the test
// fails when $CI is "true" (a CI machine must have it: a missing tool
// must not pass as a skipped test) and is skipped elsewhere.
func Path(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("kubectl")
	if err != nil {
		msg := "kubectl not found on PATH: install kubectl v1.32 or later (https://kubernetes.io/docs/tasks/tools/)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		} else {
			t.Skip(msg)
		}
	}
	return p
}
