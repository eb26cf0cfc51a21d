// Package etcdtest runs real etcd servers inside the test process: a
// Cluster of embedded members (go.etcd.io/etcd/server/v3/embed) on
// loopback ports with their data in a temporary directory, members that
// can be stopped and restarted, and a Proxy whose link can be cut to
// simulate a partition between a client and a member.
//
// # Usage
//
//	c := etcdtest.New(t, etcdtest.Options{Members: 3}) // stopped at t's end
//	cli, err := c.Client()                             // all three endpoints
//	defer cli.Close()
//	leader, _ := c.Leader()
//	leader.Stop()                                      // writes go on via the others
//	err = leader.Restart()
//
// Members are tuned for tests: no fsync, a 50ms raft tick and a 500ms
// election timeout (so leases may be as short as one second), no logs.
// A single member starts in well under a second. Clients reach each
// member through a Proxy of its own (Member.ClientURL), so that
// Member.Stop cuts every client connection at once, as a crash would,
// instead of waiting seconds for etcd's graceful shutdown to give up on
// open watch streams.
//
// # Concurrency
//
// Cluster, Member and Proxy are safe for concurrent use. Start and New
// return once every member is ready; Stop and Close return once the
// members have stopped. A Proxy serves from NewProxy until Close.
package etcdtest
