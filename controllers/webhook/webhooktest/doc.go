// Package webhooktest serves an admission webhook inside a test: over
// HTTPS with a fresh self-signed certificate, on an in-memory network,
// so that the webhook, the cluster calling it and the test run in one
// testing/synctest bubble, in virtual time, with no port opened.
//
//	s := webhooktest.Start(t, handler)
//	cp, err := controlplane.Start(ctx, controlplane.Options{Webhooks: &webhook.Options{DialContext: s.Dial}})
//	// a ValidatingWebhookConfiguration with clientConfig.url s.URL and caBundle s.CABundle
//
// Every connection Dial opens reaches the server, whatever the address;
// the certificate is valid for Host. Start's server stops when the test
// ends; New's when Close is called.
package webhooktest
