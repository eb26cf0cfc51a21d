package webhook_test

import (
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/webhook"
)

// A webhook that never answers is given up after its timeoutSeconds:
// with failurePolicy Fail the write fails with kube-apiserver's "failed
// calling webhook", with Ignore it goes through. The server and the
// cluster run in a synctest bubble over an in-memory network, so the
// timeout passes in virtual time.
func TestTimeout(t *testing.T) {
	for _, policy := range []api.FailurePolicyType{api.Fail, api.Ignore} {
		t.Run(string(policy), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				pn := newPipeNet()
				cert, ca := selfSigned(t, "hook.example.com")
				called := make(chan struct{}, 1)
				gaveUp := make(chan struct{})
				srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					io.Copy(io.Discard, r.Body)
					called <- struct{}{}
					<-r.Context().Done() // until the caller gives up
					close(gaveUp)
				})}
				go srv.Serve(tls.NewListener(pn, &tls.Config{Certificates: []tls.Certificate{cert}}))
				defer pn.Close()
				defer srv.Close()

				c := newCluster(t, webhook.Options{DialContext: pn.Dial})
				createValidating(t, c, "slow", validating("slow.example.com", "https://hook.example.com/validate", ca, func(w *api.ValidatingWebhook) {
					w.TimeoutSeconds = ptr(int32(2))
					w.FailurePolicy = &policy
				}))
				start := time.Now()
				_, err := c.Pods().Create(t.Context(), pod("default", "p", nil))
				require.Equal(t, 2*time.Second, time.Since(start), "the call is given up at timeoutSeconds")
				<-called
				<-gaveUp
				if policy == api.Ignore {
					require.NoError(t, err)
					return
				}
				var callErr *webhook.CallError
				require.True(t, errors.As(err, &callErr), "%v", err)
				require.ErrorContains(t, err, `failed calling webhook "slow.example.com": failed to call webhook: Post "https://hook.example.com/validate": context deadline exceeded`)
			})
		})
	}
}
