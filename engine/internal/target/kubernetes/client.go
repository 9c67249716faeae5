package kubernetes

import (
	"context"
	"fmt"
	"os"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// Environment variables that override the config's kubernetes section,
// for CI systems that hand out a cluster per job.
const (
	envContext   = "PERFGATE_KUBE_CONTEXT"
	envNamespace = "PERFGATE_KUBE_NAMESPACE"
)

// cluster is a connection to the API server.
type cluster struct {
	rest      *rest.Config
	clientset *kubernetes.Clientset
	context   string
	// namespace is the configured one, "" when perfgate should create its
	// own; contextNamespace is the kubeconfig context's, the fallback.
	namespace        string
	contextNamespace string
	version          string
}

// connect loads the kubeconfig the way kubectl does (kubernetes.kubeconfig,
// else KUBECONFIG, else ~/.kube/config), selects the context, and asks the
// server its version. A kubeconfig or context that does not exist is a
// configuration error; a server that does not answer is not. fromConfig
// says k is perfgate.yml's, which a pull request can change, and not
// perfgate's own (the kind target's cluster, whose kubeconfig perfgate
// wrote where only root may read).
func connect(ctx context.Context, k config.Kubernetes, fromConfig bool) (*cluster, error) {
	contextName := firstSet(os.Getenv(envContext), k.Context)
	overrides := &clientcmd.ConfigOverrides{CurrentContext: contextName}
	var loader clientcmd.ClientConfig
	if k.Kubeconfig != "" && fromConfig {
		if _, err := os.Stat(k.Kubeconfig); err != nil {
			return nil, &target.ConfigError{Err: fmt.Errorf("kubernetes.kubeconfig: %q cannot be read (%w); point it at a kubeconfig file or remove it to use KUBECONFIG", k.Kubeconfig, err)}
		}
		// perfgate.yml names it and perfgate may be root: it and the
		// files it refers to are read once, as the invoker, and handed
		// to client-go in memory.
		cfg, err := kubeconfigAsInvoker(k.Kubeconfig, contextName)
		if err != nil {
			return nil, &target.ConfigError{Err: fmt.Errorf("kubernetes.kubeconfig: %w; give a kubeconfig file of that user's", err)}
		}
		loader = clientcmd.NewNonInteractiveClientConfig(*cfg, contextName, overrides, nil)
	} else {
		// perfgate's own kubeconfig (ExplicitPath), else KUBECONFIG or
		// ~/.kube/config (an empty ExplicitPath), as kubectl loads them.
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		rules.ExplicitPath = k.Kubeconfig
		loader = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	}
	raw, err := loader.RawConfig()
	if err != nil {
		return nil, &target.ConfigError{Err: fmt.Errorf("target kubernetes: the kubeconfig does not load: %w", err)}
	}
	if err := refuseRootPlugins(k.Kubeconfig, raw, fromConfig && os.Geteuid() == 0); err != nil {
		return nil, err
	}
	if contextName == "" {
		contextName = raw.CurrentContext
	}
	if _, ok := raw.Contexts[contextName]; !ok {
		return nil, &target.ConfigError{Err: fmt.Errorf(
			"kubernetes.context: %q is not a context of the kubeconfig (%s); use one of %v, or set %s", contextName, kubeconfigWhere(k), contextNames(raw.Contexts), envContext)}
	}
	restConfig, err := loader.ClientConfig()
	if err != nil {
		return nil, &target.ConfigError{Err: fmt.Errorf("target kubernetes: context %q of the kubeconfig (%s) is unusable: %w", contextName, kubeconfigWhere(k), err)}
	}
	restConfig.QPS, restConfig.Burst = 50, 100
	restConfig.UserAgent = "perfgate"
	clientset, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return nil, &target.ConfigError{Err: fmt.Errorf("target kubernetes: context %q: %w", contextName, err)}
	}
	version, err := clientset.Discovery().ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("target kubernetes: the API server of context %q (%s) does not answer: %w", contextName, restConfig.Host, err)
	}
	contextNamespace, _, err := loader.Namespace()
	if err != nil || contextNamespace == "" {
		contextNamespace = "default"
	}
	return &cluster{
		rest: restConfig, clientset: clientset, context: contextName, version: version.GitVersion, contextNamespace: contextNamespace,
		namespace: firstSet(os.Getenv(envNamespace), k.Namespace),
	}, nil
}

func kubeconfigWhere(k config.Kubernetes) string {
	if k.Kubeconfig != "" {
		return k.Kubeconfig
	}
	if env := os.Getenv("KUBECONFIG"); env != "" {
		return "KUBECONFIG=" + env
	}
	return clientcmd.RecommendedHomeFile
}

func contextNames[V any](contexts map[string]V) []string {
	names := make([]string, 0, len(contexts))
	for name := range contexts {
		names = append(names, name)
	}
	return names
}

func firstSet(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
