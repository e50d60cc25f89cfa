// Command etcd is the stock etcd server (same entry point as etcd's own
// main.go), built from go.etcd.io/etcd/server/v3 because no registry ships an
// etcd binary recent enough for the pinned kube-apiserver.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
