// Command upstream writes the test data of package patch from Kubernetes'
// own code, v0.37.2: it lives in its own module (under testdata, so the Go
// tool of the repository ignores it) because it imports k8s.io, which the
// core module must not. Run from this directory:
//
//	go run . ported > ../apimachinery.json
//	go run . kubectl > ../kubectl_apply.json
//	go run . random > ../random_apply.json
//
// "ported" converts the strategic merge patch test tables of
// k8s.io/apimachinery/pkg/util/strategicpatch/patch_test.go (read from the
// module cache) from YAML to JSON. "kubectl" computes, for the scenarios
// in kubectl.go, the patch `kubectl apply` sends (strategicpatch.
// CreateThreeWayMergePatch of the last-applied configuration, the new
// manifest and the live object, with the typed k8s.io/api struct as
// schema, as kubectl does for built-in kinds) and the object
// kube-apiserver makes of it (strategicpatch.StrategicMergePatch).
// "random" does the same for random edits of random Deployments
// (random.go), with a fixed seed.
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: upstream ported|kubectl")
	}
	var res []any
	switch os.Args[1] {
	case "ported":
		out, err := exec.Command("go", "env", "GOMODCACHE").Output()
		if err != nil {
			log.Fatal(err)
		}
		res = all(ported(filepath.Join(strings.TrimSpace(string(out)),
			"k8s.io/apimachinery@v0.37.2/pkg/util/strategicpatch/patch_test.go")))
	case "kubectl":
		res = all(kubectl())
	case "random":
		res = all(randomApplies(100, 7))
	default:
		log.Fatalf("unknown command %q", os.Args[1])
	}
	// A JSON array, one case a line.
	fmt.Println("[")
	for i, c := range res {
		b, err := json.Marshal(c)
		if err != nil {
			log.Fatal(err)
		}
		sep := ","
		if i == len(res)-1 {
			sep = ""
		}
		fmt.Printf("%s%s\n", b, sep)
	}
	fmt.Println("]")
}

func all[T any](l []T) []any {
	out := make([]any, len(l))
	for i, v := range l {
		out[i] = v
	}
	return out
}
