package kubernetes

import (
	"fmt"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/perfgate/perfgate/engine/internal/privilege"
)

// maxKubeconfigFile bounds each file read for a kubeconfig that
// perfgate.yml names: a kubeconfig, a certificate or a key is kilobytes.
const maxKubeconfigFile = 4 << 20

// kubeconfigAsInvoker reads the kubeconfig that perfgate.yml names
// (kubernetes.kubeconfig, which a pull request can change) once, with the
// file identity of the user who ran perfgate through sudo, and inlines the
// files its context refers to (certificate-authority, client-certificate,
// client-key), read the same way: the context contextName names, else its
// current-context, the only one perfgate uses. client-go then gets the
// config in memory and root never opens a path the config chose: checking
// a path as the invoker and letting client-go read it again as root would
// leave the time between the two to swap the file, and the files a
// kubeconfig refers to were read as root unchecked. Without sudo it reads
// as perfgate's own user, as client-go would. Relative paths are resolved
// against the kubeconfig's directory, as kubectl does.
func kubeconfigAsInvoker(path, contextName string) (*clientcmdapi.Config, error) {
	data, err := privilege.ReadAsInvoker(path, maxKubeconfigFile)
	if err != nil {
		return nil, err
	}
	cfg, err := clientcmd.Load(data)
	if err != nil {
		return nil, fmt.Errorf("%s does not load as a kubeconfig: %w", path, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	for _, cluster := range cfg.Clusters {
		cluster.LocationOfOrigin = abs
	}
	for _, user := range cfg.AuthInfos {
		user.LocationOfOrigin = abs
	}
	if err := clientcmd.ResolveLocalPaths(cfg); err != nil {
		return nil, err
	}
	// A context that does not exist is connect's to report, with the
	// contexts there are.
	used, ok := cfg.Contexts[firstSet(contextName, cfg.CurrentContext)]
	if !ok {
		return cfg, nil
	}
	if cluster, ok := cfg.Clusters[used.Cluster]; ok {
		if err := inline(&cluster.CertificateAuthority, &cluster.CertificateAuthorityData, path, "cluster "+used.Cluster, "certificate-authority"); err != nil {
			return nil, err
		}
	}
	if user, ok := cfg.AuthInfos[used.AuthInfo]; ok {
		if err := inline(&user.ClientCertificate, &user.ClientCertificateData, path, "user "+used.AuthInfo, "client-certificate"); err != nil {
			return nil, err
		}
		if err := inline(&user.ClientKey, &user.ClientKeyData, path, "user "+used.AuthInfo, "client-key"); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// inline replaces a file reference with the file's content, read as the
// invoker. One that also has the content inline is refused, as client-go
// would refuse it, but before client-go opens the file as root to say so.
func inline(file *string, data *[]byte, kubeconfig, who, field string) error {
	if *file == "" {
		return nil
	}
	if len(*data) > 0 {
		return fmt.Errorf("%s: %s has both %s and %s-data; keep one", kubeconfig, who, field, field)
	}
	content, err := privilege.ReadAsInvoker(*file, maxKubeconfigFile)
	if err != nil {
		return fmt.Errorf("%s: %s's %s: %w", kubeconfig, who, field, err)
	}
	*data, *file = content, ""
	return nil
}
