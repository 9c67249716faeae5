package kubernetes

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/perfgate/perfgate/engine/internal/loadgen"
)

// Labels on everything perfgate creates: `kubectl get all -A -l
// app.kubernetes.io/managed-by=perfgate` lists them all, and a run's by
// LabelRun.
const (
	LabelManagedBy = "app.kubernetes.io/managed-by"
	LabelRun       = "perfgate.dev/run"
	labelComponent = "app.kubernetes.io/component"
	labelInstance  = "perfgate.dev/instance"
	labelName      = "app.kubernetes.io/name"
	managedBy      = "perfgate"
)

// Ports inside the pods, and the run's Services' port.
const (
	servicePort   = 8080
	loadgenPort   = 9090
	servicePort80 = 80
)

// serviceSpec is everything one service Deployment is made of.
type serviceSpec struct {
	Run       string // unique per perfgate invocation
	Instance  int    // counts the service processes of the run
	Namespace string
	Image     string
	Args      []string
	// Env is service.env with {addr}/{port} filled, plus GOMAXPROCS and
	// GOMEMLIMIT unless the config sets them.
	Env         map[string]string
	CPUMilli    int64
	MemoryBytes int64
	Ready       string
	// Node, when set, is the one node the pod may run on (a run driven
	// from this machine: kubernetes.load_from).
	Node string
}

func runLabels(run, component string) map[string]string {
	return map[string]string{LabelManagedBy: managedBy, labelName: "perfgate", LabelRun: run, labelComponent: component}
}

func (s serviceSpec) name() string { return fmt.Sprintf("%s-%d", s.Run, s.Instance) }

func (s serviceSpec) labels() map[string]string {
	l := runLabels(s.Run, "service")
	l[labelInstance] = strconv.Itoa(s.Instance)
	return l
}

// guaranteed is requests == limits, the Guaranteed QoS class: the pod
// gets exactly the CPU quota and memory it is measured under.
func guaranteed(cpuMilli, memoryBytes int64) corev1.ResourceRequirements {
	list := corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewMilliQuantity(cpuMilli, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(memoryBytes, resource.BinarySI),
	}
	return corev1.ResourceRequirements{Requests: list, Limits: list.DeepCopy()}
}

// Deployment is one replica of the service. Its pod never restarts into a
// second measurement: a restart is how perfgate learns of an OOM kill or a
// crash, and the run is then invalid.
func (s serviceSpec) Deployment() *appsv1.Deployment {
	one := int32(1)
	noHistory := int32(0)
	grace := int64(3)
	labels := s.labels()
	var env []corev1.EnvVar
	names := make([]string, 0, len(s.Env))
	for k := range s.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		env = append(env, corev1.EnvVar{Name: k, Value: s.Env[k]})
	}
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: s.name(), Namespace: s.Namespace, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas:             &one,
			RevisionHistoryLimit: &noHistory,
			Selector:             &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					TerminationGracePeriodSeconds: &grace,
					AutomountServiceAccountToken:  boolPtr(false),
					EnableServiceLinks:            boolPtr(false),
					Affinity:                      besideTheRunsServices(s.Run, s.Node),
					Containers: []corev1.Container{{
						Name:            "service",
						Image:           s.Image,
						ImagePullPolicy: corev1.PullIfNotPresent,
						Args:            s.Args,
						Env:             env,
						Ports:           []corev1.ContainerPort{{Name: "http", ContainerPort: servicePort, Protocol: corev1.ProtocolTCP}},
						Resources:       guaranteed(s.CPUMilli, s.MemoryBytes),
						ReadinessProbe: &corev1.Probe{
							ProbeHandler:     corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: s.Ready, Port: intstr.FromInt32(servicePort)}},
							PeriodSeconds:    1,
							FailureThreshold: 1,
							TimeoutSeconds:   1,
						},
						SecurityContext: restricted(),
					}},
				},
			},
		},
	}
}

// besideTheRunsServices requires a service pod to be scheduled on the node
// of the run's other service pods: a duet's base and head must share a
// node to share its CPUs and whatever disturbs them. The first pod of a
// round matches its own term, which the scheduler accepts when no other
// pod matches yet (Kubernetes' rule for a group's first pod), so it may go
// to any node; the second must follow it. On a single-node cluster this
// changes nothing; on a larger one, a round whose node cannot fit the
// second pod fails to schedule and says so instead of measuring two nodes.
// A run driven from this machine also binds every service pod to node
// (its node name, matched as a field: a hostname label may differ).
func besideTheRunsServices(run, node string) *corev1.Affinity {
	a := &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{LabelRun: run, labelComponent: "service"}},
			TopologyKey:   corev1.LabelHostname,
		}},
	}}
	if node != "" {
		a.NodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{
				{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}},
			}}},
		}}
	}
	return a
}

// runService is endpoint slot's ClusterIP, which the in-cluster load
// generator attacks; the run has one per service that may run at once (a
// duet's base and head: endpointSlots). The generator may send load only
// to the addresses it was given when its Job started, so they must exist
// before the first service does. Start points a free slot's selector at
// each new service pod (selectInstance); until then it selects none.
func runService(run, namespace string, slot int) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: endpointName(run, slot), Namespace: namespace, Labels: runLabels(run, "service")},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: serviceSpec{Run: run, Instance: 0}.labels(),
			// Readiness gates the start only: a throttled service that
			// answers one probe late must not lose its traffic mid-window,
			// which would turn slowness into errors.
			PublishNotReadyAddresses: true,
			Ports:                    []corev1.ServicePort{{Name: "http", Port: servicePort80, TargetPort: intstr.FromInt32(servicePort), Protocol: corev1.ProtocolTCP}},
		},
	}
}

// selectInstance is the merge patch that points one of the run's Services
// at instance n's pod.
func selectInstance(n int) []byte {
	return []byte(fmt.Sprintf(`{"spec":{"selector":{%q:%q}}}`, labelInstance, strconv.Itoa(n)))
}

// loadgenSpec is the run's load generator.
type loadgenSpec struct {
	Run, Namespace, Image string
	// Targets are the only hosts (host:port) it may send load to: the
	// run's Services.
	Targets []string
}

// tokenKey is the key of the token in the load generator's Secret.
const tokenKey = "token"

func (l loadgenSpec) secretName() string { return l.Run + "-load-token" }

// Secret holds the run's token, which every control request to the load
// generator must carry; the Job reads it from here, so the token is not
// in the Job's spec.
func (l loadgenSpec) Secret(token string) *corev1.Secret {
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: l.secretName(), Namespace: l.Namespace, Labels: runLabels(l.Run, "load-generator")},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{tokenKey: []byte(token)},
	}
}

// Job runs perfgate's load generator for the whole gate. perfgate drives
// it through the API server's pod proxy; it exits on its own when idle, and
// the deadline bounds a Job whose perfgate vanished.
func (l loadgenSpec) Job() *batchv1.Job {
	labels := runLabels(l.Run, "load-generator")
	noRetry := int32(0)
	deadline := int64(6 * 60 * 60)
	ttl := int32(60)
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: l.Run + "-load", Namespace: l.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			BackoffLimit:            &noRetry,
			ActiveDeadlineSeconds:   &deadline,
			TTLSecondsAfterFinished: &ttl,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy:                corev1.RestartPolicyNever,
					AutomountServiceAccountToken: boolPtr(false),
					EnableServiceLinks:           boolPtr(false),
					Containers: []corev1.Container{{
						Name:            "load-generator",
						Image:           l.Image,
						ImagePullPolicy: corev1.PullIfNotPresent,
						Env: []corev1.EnvVar{
							{Name: loadgen.ListenEnv, Value: fmt.Sprintf(":%d", loadgenPort)},
							{Name: loadgen.TargetsEnv, Value: strings.Join(l.Targets, ",")},
							{Name: loadgen.TokenEnv, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
								LocalObjectReference: corev1.LocalObjectReference{Name: l.secretName()}, Key: tokenKey,
							}}},
						},
						Ports: []corev1.ContainerPort{{Name: "control", ContainerPort: loadgenPort, Protocol: corev1.ProtocolTCP}},
						// A request, no CPU limit: a throttled generator
						// would cut the offered load, and perfgate checks
						// its saturation from its own CPU time.
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{
								corev1.ResourceCPU:    resource.MustParse("250m"),
								corev1.ResourceMemory: resource.MustParse("128Mi"),
							},
							Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")},
						},
						ReadinessProbe: &corev1.Probe{
							ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(loadgenPort)}},
							PeriodSeconds: 1,
						},
						SecurityContext: restricted(),
					}},
				},
			},
		},
	}
}

// networkPolicies keep everything else in the cluster away from the run's
// pods: they admit traffic from the run's own pods (the generator's load
// to the service), and to the generator's control port from anywhere,
// because perfgate reaches it through the API server, whose address the
// pod cannot know; the token guards that port. They select the run's pods
// by its label, so they hold in a namespace perfgate shares too. The
// kubelet's probes and the API server on the pod's own node are always
// admitted (Kubernetes never blocks a node's traffic to its own pods).
func networkPolicies(run, namespace string) []*networkingv1.NetworkPolicy {
	tcp := corev1.ProtocolTCP
	control := intstr.FromInt32(loadgenPort)
	runPods := metav1.LabelSelector{MatchLabels: map[string]string{LabelRun: run}}
	policy := func(name string, selector metav1.LabelSelector, rule networkingv1.NetworkPolicyIngressRule) *networkingv1.NetworkPolicy {
		return &networkingv1.NetworkPolicy{
			TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: runLabels(run, "network-policy")},
			Spec: networkingv1.NetworkPolicySpec{
				PodSelector: selector,
				PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
				Ingress:     []networkingv1.NetworkPolicyIngressRule{rule},
			},
		}
	}
	return []*networkingv1.NetworkPolicy{
		policy(run+"-only-the-run", runPods, networkingv1.NetworkPolicyIngressRule{
			From: []networkingv1.NetworkPolicyPeer{{PodSelector: &runPods}},
		}),
		policy(run+"-load-control", metav1.LabelSelector{MatchLabels: runLabels(run, "load-generator")}, networkingv1.NetworkPolicyIngressRule{
			Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: &control}},
			From: []networkingv1.NetworkPolicyPeer{
				{IPBlock: &networkingv1.IPBlock{CIDR: "0.0.0.0/0"}},
				{IPBlock: &networkingv1.IPBlock{CIDR: "::/0"}},
			},
		}),
	}
}

// restricted meets the "restricted" Pod Security Standard, so the pods
// are admitted in namespaces that enforce it.
func restricted() *corev1.SecurityContext {
	nobody := int64(65534)
	return &corev1.SecurityContext{
		RunAsNonRoot:             boolPtr(true),
		RunAsUser:                &nobody,
		RunAsGroup:               &nobody,
		AllowPrivilegeEscalation: boolPtr(false),
		ReadOnlyRootFilesystem:   boolPtr(false),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

// namespace is the run's own namespace, when perfgate may create one.
func namespace(run string) *corev1.Namespace {
	return &corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: run, Labels: runLabels(run, "namespace")},
	}
}

func boolPtr(b bool) *bool { return &b }
