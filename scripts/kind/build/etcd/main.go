// Command etcd is etcd v3.5.16, the version kubeadm v1.32 names for its
// static pod (registry.k8s.io/etcd:3.5.16-0), built from the Go module
// proxy: the upstream command's main package only calls etcdmain.Main, and
// its module cannot be built from the proxy as it is (it replaces its
// submodules with local paths).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
