package kubernetes

import (
	"fmt"
	"slices"

	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/perfgate/perfgate/engine/internal/target"
)

// refuseRootPlugins refuses, when perfgate runs as root, a kubeconfig that
// perfgate.yml names (kubernetes.kubeconfig, which a pull request can
// change) whose users would make root run or read something: an exec
// credential plugin (a command client-go starts, found on the runner's
// PATH), an auth-provider (a plugin that refreshes tokens and writes the
// file back), or a tokenFile (a file root reads and sends to the server the
// kubeconfig names). Refusing is simpler and surer than running plugins as
// the invoker: client-go starts them inside its transport, with no hook to
// change their user. A kubeconfig from KUBECONFIG or ~/.kube/config is the
// workflow's, not the pull request's, and is left alone.
func refuseRootPlugins(path string, raw clientcmdapi.Config, root bool) error {
	if !root || path == "" {
		return nil
	}
	names := make([]string, 0, len(raw.AuthInfos))
	for name := range raw.AuthInfos {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		user := raw.AuthInfos[name]
		var field, value string
		switch {
		case user.Exec != nil:
			field, value = "exec", user.Exec.Command
		case user.AuthProvider != nil:
			field, value = "auth-provider", user.AuthProvider.Name
		case user.TokenFile != "":
			field, value = "tokenFile", user.TokenFile
		default:
			continue
		}
		return &target.ConfigError{Err: fmt.Errorf(
			"kubernetes.kubeconfig: %q has user %q with %s %q, which perfgate would run or read as root (it runs as root for cgroups), and the kubeconfig is named in perfgate.yml, which a pull request can change; "+
				"give a kubeconfig with a token or client certificate inline (e.g. kubectl config view --raw --minify --flatten), or remove kubernetes.kubeconfig and set KUBECONFIG in the workflow, or run perfgate without sudo",
			path, name, field, value)}
	}
	return nil
}
