package main

import (
	"os"
	"strings"
	"testing"
)

// The README's quick start is this program, byte for byte, so that what a
// newcomer copies builds and runs.
func TestREADMEQuickStartIsThisProgram(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	prog, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "## Quick start\n")
	if !ok {
		t.Fatal(`README.md has no "## Quick start" section`)
	}
	_, block, ok := strings.Cut(after, "```go\n")
	if !ok {
		t.Fatal("the quick start has no go code block")
	}
	block, _, ok = strings.Cut(block, "```\n")
	if !ok {
		t.Fatal("the quick start's code block is not closed")
	}
	if block != string(prog) {
		t.Errorf("README.md's quick start differs from examples/readme/main.go; copy main.go into the README")
	}
}

func Example_run() {
	if err := run(); err != nil {
		panic(err)
	}
	// Output:
	// a is red
	// a is blue
	// a is gone
}
