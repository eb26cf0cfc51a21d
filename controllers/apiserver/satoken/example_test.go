package satoken_test

import (
	"fmt"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver/satoken"
)

func Example() {
	issuer, err := satoken.New(satoken.Options{})
	if err != nil {
		panic(err)
	}
	now := time.Now()
	tok, err := issuer.Sign(satoken.Claims{
		Subject:   satoken.Username("team", "builder"),
		Audience:  issuer.Audiences(),
		IssuedAt:  now.Unix(),
		NotBefore: now.Unix(),
		Expiry:    now.Add(time.Hour).Unix(),
		Kubernetes: satoken.Private{Namespace: "team",
			ServiceAccount: satoken.Ref{Name: "builder", UID: "0d7c…"}},
	})
	if err != nil {
		panic(err)
	}
	c, err := issuer.Verify(tok, now)
	fmt.Println(c.Subject, c.Issuer, err)
	_, err = issuer.Verify(tok, now.Add(2*time.Hour))
	fmt.Println(err)
	_, err = issuer.Verify(tok+"x", now)
	fmt.Println(err == satoken.ErrNotMine)
	// Output:
	// system:serviceaccount:team:builder https://kubernetes.default.svc.cluster.local <nil>
	// service account token has expired
	// true
}
