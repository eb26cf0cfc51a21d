package apiextensions

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// cvCAPEM returns a self-signed CA certificate in PEM.
func cvCAPEM(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ca"}, IsCA: true,
		BasicConstraintsValid: true, NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<32, 0)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// A conversion webhook's CA bundle and review versions: kube-apiserver
// accepts a bad bundle until the CRD is established and keeps accepting
// what an older CRD already had.
func TestValidateCRDConversionWebhook(t *testing.T) {
	good := cvCAPEM(t)
	bad := []byte("not a certificate")
	withWebhook := func(bundle []byte, reviews ...string) *api.CustomResourceDefinition {
		c := cvWidgetCRD()
		c.Spec.Conversion = &api.CustomResourceConversion{Strategy: api.WebhookConverter, Webhook: &api.WebhookConversion{
			ClientConfig:             &api.ConversionWebhookClientConfig{URL: cvPtr("https://conv.example.com/convert"), CABundle: bundle},
			ConversionReviewVersions: reviews,
		}}
		DefaultCRD(c)
		return c
	}
	established := func(c *api.CustomResourceDefinition) *api.CustomResourceDefinition {
		c.Status.Conditions = []api.CustomResourceDefinitionCondition{{Type: api.Established, Status: api.ConditionTrue}}
		return c
	}
	const badBundle = "spec.conversion.webhookClientConfig.caBundle: Invalid value: unable to load root certificates: unable to parse bytes as PEM block"
	const unknownReviews = `spec.conversion.conversionReviewVersions: Invalid value: "v2": must include at least one of v1, v1beta1`
	tests := []struct {
		name string
		old  *api.CustomResourceDefinition // nil: a create
		crd  *api.CustomResourceDefinition
		want []string
	}{
		{"create with a good bundle", nil, withWebhook(good, "v1"), nil},
		{"create with a bad bundle", nil, withWebhook(bad, "v1"), nil},
		{"create with unknown review versions", nil, withWebhook(good, "v2"), []string{unknownReviews}},
		{"bad bundle before establishment", withWebhook(good, "v1"), withWebhook(bad, "v1"), nil},
		{"bad bundle once established", established(withWebhook(good, "v1")), withWebhook(bad, "v1"), []string{badBundle}},
		{"bad bundle kept", established(withWebhook(bad, "v1")), withWebhook(bad, "v1"), nil},
		{"bad bundle over none", established(withWebhook(nil, "v1")), withWebhook(bad, "v1"), []string{badBundle}},
		{"unknown review versions kept", established(withWebhook(good, "v2")), withWebhook(good, "v2", "v3"), nil},
		{"unknown review versions introduced", established(withWebhook(good, "v1")), withWebhook(good, "v2"), []string{unknownReviews}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errs []api.FieldError
			if tt.old == nil {
				errs = ValidateCRD(tt.crd)
			} else {
				errs = ValidateCRDUpdate(tt.old, tt.crd)
			}
			if got := cvErrorStrings(errs); !slices.Equal(got, tt.want) {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
