package cli

import (
	"bytes"
	"context"
	"flag"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// `ctrlkit up --help` (and `ctrlkit help`) documents every flag `up`
// registers, each with its usage.
func TestHelpListsEveryFlag(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"up", "--help"}} {
		var out, errOut bytes.Buffer
		code := Main(context.Background(), args, &out, &errOut, Options{})
		help := out.String() + errOut.String()
		require.Equal(t, 0, code, "%q", args)
		n := 0
		upFlags(io.Discard, &upConfig{}).VisitAll(func(f *flag.Flag) {
			n++
			require.Regexp(t, `\n  -`+regexp.QuoteMeta(f.Name)+`[ \n]`, help, "%q: --%s", args, f.Name)
			first := strings.SplitN(f.Usage, "\n", 2)[0]
			require.Contains(t, help, first[:min(len(first), 60)], "%q: --%s", args, f.Name)
		})
		require.GreaterOrEqual(t, n, 18)
		require.Contains(t, help, "insecure-http-no-auth")
	}
}
