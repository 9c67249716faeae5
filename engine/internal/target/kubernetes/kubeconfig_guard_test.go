package kubernetes

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/perfgate/perfgate/engine/internal/config"
	"github.com/perfgate/perfgate/engine/internal/privilege/privilegetest"
	"github.com/perfgate/perfgate/engine/internal/target"
)

// hostileKubeconfig writes testdata/name with MARKER replaced by a path
// that its plugin would create, and returns both.
func hostileKubeconfig(t *testing.T, name string) (kubeconfig, marker string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	marker = filepath.Join(dir, "plugin-ran")
	kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(strings.ReplaceAll(string(data), "MARKER", marker)), 0o644); err != nil {
		t.Fatal(err)
	}
	return kubeconfig, marker
}

// TestKubeconfigFromConfigRunsNoPluginAsRoot: as root, a kubeconfig that
// perfgate.yml names is refused when a user of it has an exec plugin,
// an auth-provider or a tokenFile, with the field and value named, and
// the plugin never runs. (It is the kubernetes target's and `perfgate
// sweep`'s connection alike.)
func TestKubeconfigFromConfigRunsNoPluginAsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the refusal applies to root only")
	}
	for _, c := range []struct{ file, want string }{
		{"kubeconfig-exec-plugin.yaml", `user "plugin" with exec "/bin/sh"`},
		{"kubeconfig-auth-provider.yaml", `user "provider" with auth-provider "oidc"`},
		{"kubeconfig-token-file.yaml", `user "reader" with tokenFile "/etc/shadow"`},
	} {
		kubeconfig, marker := hostileKubeconfig(t, c.file)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err := connect(ctx, config.Kubernetes{Kubeconfig: kubeconfig}, true)
		cancel()
		var ce *target.ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "kubernetes.kubeconfig: "+`"`+kubeconfig+`"`) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "KUBECONFIG") {
			t.Errorf("%s: err = %v; want a configuration error naming kubernetes.kubeconfig, %s and the fix", c.file, err, c.want)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("%s: the kubeconfig's exec plugin ran as root", c.file)
		}
		if _, err := Sweep(context.Background(), config.Kubernetes{Kubeconfig: kubeconfig}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: the sweep connected: %v", c.file, err)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("%s: the sweep ran the kubeconfig's exec plugin as root", c.file)
		}
	}
}

// TestKubeconfigPluginsAllowedOutsideRootOrConfig: the refusal is for
// root and a kubeconfig named in perfgate.yml only; KUBECONFIG is the
// workflow's, and a user's own perfgate runs their plugins as them. That
// the plugin runs here also shows that the marker above would be there
// had connect not refused.
func TestKubeconfigPluginsAllowedOutsideRootOrConfig(t *testing.T) {
	kubeconfig, marker := hostileKubeconfig(t, "kubeconfig-exec-plugin.yaml")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	t.Setenv("KUBECONFIG", kubeconfig)
	if _, err := connect(ctx, config.Kubernetes{}, true); err == nil || strings.Contains(err.Error(), "with exec") {
		t.Errorf("KUBECONFIG's plugin is refused, or a server at 127.0.0.1:1 answered: %v", err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the plugin of KUBECONFIG's kubeconfig did not run: %v", err)
	}
}

// TestKubeconfigFromConfigOnlyWhatTheInvokerCanRead: under sudo, a
// kubeconfig perfgate.yml names that only root may read (/etc/shadow, a
// key) is refused before root opens it: what root reads could come back in
// a parse error.
func TestKubeconfigFromConfigOnlyWhatTheInvokerCanRead(t *testing.T) {
	privilegetest.SudoFromNobody(t)
	secret := filepath.Join(t.TempDir(), "root-only")
	if err := os.WriteFile(secret, []byte("root:$6$secret:19000:0:99999:7:::\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := connect(context.Background(), config.Kubernetes{Kubeconfig: secret}, true)
	var ce *target.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "not readable by uid 65534") || strings.Contains(err.Error(), "$6$") {
		t.Errorf("err = %v; want a configuration error saying the invoker cannot read it, and nothing of its content", err)
	}
}

// TestKubeconfigFromConfigIsReadOnceAsTheInvoker: the kubeconfig that
// perfgate.yml names and the files it refers to are read once, as the
// invoker, and client-go gets them in memory: with every file gone after
// that read, the client's configuration holds the certificate authority,
// the client certificate and key (found relative to the kubeconfig, as
// kubectl finds them), and no path that root would open later; the files
// of a context not used are not read. A field given both as a file and
// inline is refused before any file is opened. Under sudo, a client-key only
// root may read is refused, naming the user and the field, with nothing of
// its content.
func TestKubeconfigFromConfigIsReadOnceAsTheInvoker(t *testing.T) {
	dir := privilegetest.ReachableDir(t, 0o755)
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	kubeconfigWith := func(clientKey string) string {
		return write("kubeconfig", `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1", certificate-authority: ca.crt}
users:
- name: u
  user: {client-certificate: `+dir+`/client.crt, client-key: `+clientKey+`}
- name: unused
  user: {client-certificate: /nonexistent/unused.crt, client-key: /nonexistent/unused.key}
contexts:
- name: x
  context: {cluster: c, user: u}
- name: other
  context: {cluster: c, user: unused}
current-context: x
`, 0o644)
	}
	writeCertificates := func() {
		write("ca.crt", "the CA", 0o644)
		write("client.crt", "the certificate", 0o644)
		write("client.key", "the key", 0o644)
	}
	writeCertificates()
	kubeconfig := kubeconfigWith("client.key")
	// The unused context's files do not exist: only the context used is
	// read, as kubectl reads only it.
	cfg, err := kubeconfigAsInvoker(kubeconfig, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kubeconfig", "ca.crt", "client.crt", "client.key"} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	rest, err := clientcmd.NewNonInteractiveClientConfig(*cfg, "", &clientcmd.ConfigOverrides{}, nil).ClientConfig()
	if err != nil {
		t.Fatalf("the config read once does not stand alone: %v", err)
	}
	tls := rest.TLSClientConfig
	if string(tls.CAData) != "the CA" || string(tls.CertData) != "the certificate" || string(tls.KeyData) != "the key" || tls.CAFile+tls.CertFile+tls.KeyFile != "" {
		t.Errorf("TLS config %+v; want the three files' contents inline and no file names", tls)
	}

	writeCertificates()
	both := write("both", strings.Replace(string(must(os.ReadFile(kubeconfigWith("client.key")))), "certificate-authority: ca.crt", "certificate-authority: ca.crt, certificate-authority-data: Zm9v", 1), 0o644)
	if _, err := kubeconfigAsInvoker(both, ""); err == nil || !strings.Contains(err.Error(), "both certificate-authority and certificate-authority-data") {
		t.Errorf("a CA given both ways: %v, want a refusal naming both", err)
	}

	privilegetest.SudoFromNobody(t)
	secret := write("root-only.key", "root:$6$secret:19000", 0o600)
	_, err = connect(context.Background(), config.Kubernetes{Kubeconfig: kubeconfigWith(secret)}, true)
	var ce *target.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), `user u's client-key`) || !strings.Contains(err.Error(), "not readable by uid 65534") || strings.Contains(err.Error(), "$6$") {
		t.Errorf("err = %v; want a configuration error naming the client-key only root may read, and nothing of its content", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestOwnKubeconfigIsReadAsRoot: the kind target's kubeconfig is
// perfgate's own, written by root in a directory only root may enter, so
// under sudo it is read as root (the invoker could not), and not refused
// as a kubeconfig from perfgate.yml would be.
func TestOwnKubeconfigIsReadAsRoot(t *testing.T) {
	privilegetest.SudoFromNobody(t)
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: t}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := connect(ctx, config.Kubernetes{Kubeconfig: kubeconfig}, false)
	var ce *target.ConfigError
	if errors.As(err, &ce) || err == nil || !strings.Contains(err.Error(), "does not answer") {
		t.Errorf("perfgate's own kubeconfig: %v; want it read, and the server at 127.0.0.1:1 not answering", err)
	}
	if _, err := connect(ctx, config.Kubernetes{Kubeconfig: kubeconfig}, true); !errors.As(err, &ce) || !strings.Contains(err.Error(), "not readable by uid 65534") {
		t.Errorf("the same file named in perfgate.yml: %v; want it refused", err)
	}
}
