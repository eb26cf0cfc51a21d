// Package manager is ctrlkit's kube-controller-manager: it runs a chosen
// set of controllers over one client (the client contract of package
// controllers/client), with one informer factory
// they share, behind one leader election, and serves their health,
// metrics and profiles over HTTP.
//
// # What New and Run do, in kube-controller-manager's order
//
//  1. New selects the controllers from Options.Controllers with the
//     semantics of kcm's --controllers flag ("*" for every controller on
//     by default, "foo" to add one, "-foo" to remove one; the names are
//     kcm's, its old short names accepted as aliases) and builds each from
//     its Descriptor, with its worker count (kcm's --concurrent-*-syncs
//     defaults, overridden per name by Options.Workers) and an event
//     recorder whose component is the controller's name. Building a
//     controller registers its informers in the shared factory.
//  2. Run starts the factory and waits for every cache to sync — on a
//     standby replica too, so that a hand-over does not relist the world.
//  3. Run campaigns through Options.Elector; when it leads, it waits
//     until every cache holds what the store holds at that moment
//     (Factory.WaitForLatest: a warm cache may lag, and the previous
//     leader's last writes must be seen), then starts every controller
//     with a context that ends with the term.
//  4. When the term ends, every controller is stopped and has returned
//     before the term is resigned, so a successor's controllers do not
//     start while this replica's still act. Run then returns
//     ErrLeadershipLost: as kcm exits on a lost lease (and is restarted
//     by its supervisor), a Manager's controllers run in at most one
//     term.
//
// # Never leaderless
//
// Until its controllers start, nothing transient ends Run. A catch-up
// that fails (one List of the store is enough) resigns the term at once,
// so that a warm standby can take over, and Run campaigns again after a
// back-off: 1 s doubling at each failure up to 30 s, less a random part
// of up to half, so replicas failing together do not campaign in step
// (the reflector's back-off, in round numbers). A Campaign error is
// retried the same way, as client-go's leader election retries forever
// (an Elector should retry its own transient failures; this is the
// manager's guard against one that does not). A term that ends during
// the catch-up is resigned and campaigned for again at once: no
// controller acted, so it is not lost leadership. Resigning rather than
// retrying the catch-up within the term is what kcm does too: a replica
// that cannot start its controllers exits, giving up its lease, and
// campaigns again when restarted with a back-off, while a standby leads.
// So while Run runs, a replica that has not led yet is campaigning or
// about to, and only a nil Term (a broken Elector) or ctx's end stops
// it.
//
// Handler serves /healthz, /readyz (ready once the caches synced; the
// body tells whether this replica leads), /metrics (a handler the
// caller provides, such as the prometheus module's) and /debug/pprof/.
//
// # Which controllers
//
// Descriptors lists the controllers ctrlkit ships, and a caller appends
// its own Descriptor to run an operator's controllers under the same
// election and caches. The scheduler, the simulated kubelets and
// kube-proxy are not controllers of the manager, as they are not in
// Kubernetes: package controlplane runs them beside it.
//
// # The client, and replicas over a shared backend
//
// New takes a client.Client, and each Descriptor's New gets it as
// Context.Client: the manager and its controllers depend on the client
// contract and informers only. The manager builds no cluster. A highly
// available pair of replicas — two managers over one shared backend, each
// with its own in-process cluster over it (cluster.Options.Backend) and a
// common Elector — is wired by the caller: package controlplane (which
// may import the cluster) builds each replica's *cluster.Cluster and
// passes it to New as the client, as `ctrlkit up` does; any other client
// (a real API server's) works the same way.
//
// # Bad input
//
// A nil client or context, an unknown or duplicate name, a negative
// worker count and a failing constructor are errors from New or Run,
// never panics.
package manager
