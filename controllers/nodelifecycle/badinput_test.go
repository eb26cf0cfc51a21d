package nodelifecycle_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/nodelifecycle"
	"github.com/ctrlkit/ctrlkit/informer"
)

func TestNewBadInput(t *testing.T) {
	c, err := cluster.New(t.Context(), cluster.Options{})
	require.NoError(t, err)
	f := informer.NewFactory(informer.FactoryOptions{Logger: discard})
	_, err = nodelifecycle.New(nil, f, nodelifecycle.Options{})
	require.ErrorContains(t, err, "client is nil")
	_, err = nodelifecycle.New(c, nil, nodelifecycle.Options{})
	require.ErrorContains(t, err, "factory is nil")
	_, err = nodelifecycle.New(c, f, nodelifecycle.Options{MonitorPeriod: -time.Second})
	require.ErrorContains(t, err, "invalid options")
	_, err = nodelifecycle.New(c, f, nodelifecycle.Options{MonitorPeriod: time.Minute})
	require.ErrorContains(t, err, "must exceed")
	nc, err := nodelifecycle.New(c, f, nodelifecycle.Options{Logger: discard})
	require.NoError(t, err)
	var nilCtx context.Context
	require.ErrorContains(t, nc.Run(nilCtx), "context is nil")
}
