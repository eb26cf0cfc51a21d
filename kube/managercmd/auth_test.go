package managercmd

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// reviewer is an API server's TokenReview and SubjectAccessReview: the
// token "good" is alice, who may get /metrics only; it counts the
// reviews and fails them while down.
type reviewer struct {
	tokens, access int
	down           bool
}

func (r *reviewer) clientset() *fake.Clientset {
	cs := fake.NewClientset()
	cs.PrependReactor("create", "tokenreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		r.tokens++
		if r.down {
			return true, nil, errors.New("connection refused")
		}
		tr := a.(k8stesting.CreateAction).GetObject().(*authnv1.TokenReview)
		if tr.Spec.Token == "good" {
			tr.Status = authnv1.TokenReviewStatus{Authenticated: true, User: authnv1.UserInfo{Username: "alice"}}
		}
		return true, tr, nil
	})
	cs.PrependReactor("create", "subjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		r.access++
		if r.down {
			return true, nil, errors.New("connection refused")
		}
		sar := a.(k8stesting.CreateAction).GetObject().(*authzv1.SubjectAccessReview)
		sar.Status.Allowed = sar.Spec.NonResourceAttributes.Path == "/metrics"
		return true, sar, nil
	})
	return cs
}

func code(err error) int {
	if err == nil {
		return http.StatusOK
	}
	var ae *AuthError
	if errors.As(err, &ae) {
		return ae.Code
	}
	return -1
}

// DelegatedAuth reuses answers for AuthCacheTTL, as kcm does: accepted
// and rejected tokens, allowed and denied requests; errors are asked
// again at once.
func TestDelegatedAuthCaches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		var r reviewer
		a := NewDelegatedAuth(r.clientset())
		for range 3 {
			require.Equal(t, 200, code(a.Check(ctx, "good", "get", "/metrics")))
			require.Equal(t, 403, code(a.Check(ctx, "good", "get", "/debug/pprof/")))
			require.Equal(t, 401, code(a.Check(ctx, "bad", "get", "/metrics")))
		}
		require.Equal(t, 2, r.tokens, "one review per token")
		require.Equal(t, 2, r.access, "one review per path")

		time.Sleep(AuthCacheTTL)
		require.Equal(t, 200, code(a.Check(ctx, "good", "get", "/metrics")))
		require.Equal(t, 3, r.tokens, "asked again once the answer expired")
		require.Equal(t, 3, r.access)

		r.down = true
		time.Sleep(AuthCacheTTL)
		for range 2 {
			require.Equal(t, 503, code(a.Check(ctx, "good", "get", "/metrics")))
		}
		require.Equal(t, 5, r.tokens, "an error is not cached")
		r.down = false
		require.Equal(t, 200, code(a.Check(ctx, "good", "get", "/metrics")))
	})
}

// The caches are bounded: many tokens keep at most AuthCacheSize
// answers, and the tokens themselves are not kept.
func TestDelegatedAuthCacheBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var r reviewer
		a := NewDelegatedAuth(r.clientset())
		for i := range AuthCacheSize + 100 {
			require.Equal(t, 401, code(a.Check(t.Context(), fmt.Sprintf("token-%d", i), "get", "/metrics")))
			if i%100 == 0 {
				time.Sleep(100 * time.Millisecond) // expiry times differ: the oldest goes first
			}
		}
		require.Equal(t, AuthCacheSize, a.tokens.len())
		for k := range a.tokens.m {
			require.Len(t, k, 64, "a SHA-256 digest, not a token")
		}
		// The newest answer is still there; the oldest was dropped.
		n := r.tokens
		require.Equal(t, 401, code(a.Check(t.Context(), fmt.Sprintf("token-%d", AuthCacheSize+99), "get", "/metrics")))
		require.Equal(t, n, r.tokens)
		require.Equal(t, 401, code(a.Check(t.Context(), "token-0", "get", "/metrics")))
		require.Equal(t, n+1, r.tokens)
	})
}
