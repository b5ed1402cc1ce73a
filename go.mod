module github.com/prospectdata/svc

go 1.26.8

require (
	go.etcd.io/bbolt v1.5.0
	golang.org/x/crypto v0.58.0
)

require golang.org/x/sys v0.49.0 // indirect
