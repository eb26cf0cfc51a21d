module github.com/ctrlkit/ctrlkit

go 1.26.0

require (
	github.com/google/btree v1.1.3
	github.com/stretchr/testify v1.12.1
	golang.org/x/time v0.16.0
	sigs.k8s.io/yaml v1.6.0
)

require (
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
