module github.com/ctrlkit/ctrlkit

go 1.26
