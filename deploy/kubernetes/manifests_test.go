// Package kubernetes holds the deployment manifests' checks. It has only tests,
// so k8s.io/api is linked into no binary.
package kubernetes

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/omni-tts/omni/deploy"
	"github.com/omni-tts/omni/sched"
)

// manifests are the decoded objects of deploy/kubernetes, by kind.
type manifests struct {
	namespaces  []*corev1.Namespace
	configMaps  []*corev1.ConfigMap
	deployments []*appsv1.Deployment
	services    []*corev1.Service
	pdbs        []*policyv1.PodDisruptionBudget
	scaled      []*scaledObject
	all         []metav1.Object
}

// load decodes every document of every YAML file in deploy/kubernetes
// strictly (unknown and duplicate fields are errors) into its API type.
func load(t *testing.T) *manifests {
	t.Helper()
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in deploy/kubernetes (%v)", err)
	}
	m := &manifests{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range splitDocs(b) {
			if err := m.decode(doc); err != nil {
				t.Errorf("%s document %d: %v", f, i+1, err)
			}
		}
	}
	return m
}

// splitDocs splits a YAML stream on "---" lines, dropping empty documents.
func splitDocs(b []byte) [][]byte {
	var docs [][]byte
	for _, d := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(b), -1) {
		if strings.TrimSpace(regexp.MustCompile(`(?m)^\s*#.*$`).ReplaceAllString(d, "")) != "" {
			docs = append(docs, []byte(d))
		}
	}
	return docs
}

// decode picks the API type from apiVersion and kind and decodes strictly.
func (m *manifests) decode(doc []byte) error {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return err
	}
	strict := func(v any) error { return yaml.UnmarshalStrict(doc, v) }
	var obj metav1.Object
	switch tm.APIVersion + " " + tm.Kind {
	case "v1 Namespace":
		o := &corev1.Namespace{}
		obj, m.namespaces = o, append(m.namespaces, o)
	case "v1 ConfigMap":
		o := &corev1.ConfigMap{}
		obj, m.configMaps = o, append(m.configMaps, o)
	case "apps/v1 Deployment":
		o := &appsv1.Deployment{}
		obj, m.deployments = o, append(m.deployments, o)
	case "v1 Service":
		o := &corev1.Service{}
		obj, m.services = o, append(m.services, o)
	case "policy/v1 PodDisruptionBudget":
		o := &policyv1.PodDisruptionBudget{}
		obj, m.pdbs = o, append(m.pdbs, o)
	case "keda.sh/v1alpha1 ScaledObject":
		o := &scaledObject{}
		obj, m.scaled = o, append(m.scaled, o)
	default:
		return fmt.Errorf("apiVersion %q kind %q: no type to check it against", tm.APIVersion, tm.Kind)
	}
	if err := strict(obj); err != nil {
		return fmt.Errorf("%s: %w", tm.Kind, err)
	}
	if obj.GetName() == "" {
		return fmt.Errorf("%s without metadata.name", tm.Kind)
	}
	m.all = append(m.all, obj)
	return nil
}

// TestStrictDecodeRefusesUnknownFields shows the decoder is strict: a
// misplaced field (a probe under the pod spec), a typo, and a duplicate key
// are each refused.
func TestStrictDecodeRefusesUnknownFields(t *testing.T) {
	for name, doc := range map[string]string{
		"misplaced": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  template:\n    spec:\n      readinessProbe: {}\n",
		"typo":      "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: x}\nspec:\n  maxUnavailabel: 1\n",
		"duplicate": "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec:\n  type: ClusterIP\n  type: NodePort\n",
		"keda":      "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: x}\nspec:\n  scaleTargetRef: {name: x}\n  minReplicas: 2\n  triggers: []\n",
		"unknown":   "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: x}\n",
	} {
		if err := (&manifests{}).decode([]byte(doc)); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
}

// The worked numbers the manifests are sized from (docs/DEPLOY.md).
const (
	// weightsBytes0_6B is the 0.6B checkpoint's bf16 weights: 905,788,672
	// parameters (omni model inspect synth:0.6b) × 2 bytes.
	weightsBytes0_6B = 905788672 * 2
	// kvBytesPerTokenFP32 is 2 (K, V) × 28 layers × 8 KV heads × 128 dims × 4 B,
	// the largest KV entry a 0.6B replica uses (float32 KV on CPUs without bf16).
	kvBytesPerTokenFP32 = 2 * 28 * 8 * 128 * 4
	// headroomBytes is the x86_cpu class headroom of the deploy profile.
	headroomBytes = 2 << 30
	// frame is one codec frame of audio.
	frame = 80 * time.Millisecond
)

func TestManifests(t *testing.T) {
	m := load(t)
	if len(m.deployments) != 1 || len(m.pdbs) != 1 || len(m.scaled) != 1 || len(m.configMaps) != 1 || len(m.services) == 0 {
		t.Fatalf("want 1 Deployment, 1 PDB, 1 ScaledObject, 1 ConfigMap and Services; have %d, %d, %d, %d, %d",
			len(m.deployments), len(m.pdbs), len(m.scaled), len(m.configMaps), len(m.services))
	}
	for _, o := range m.all {
		if _, isNS := o.(*corev1.Namespace); !isNS && o.GetNamespace() != "omni" {
			t.Errorf("%s: namespace %q, want omni", o.GetName(), o.GetNamespace())
		}
	}
	d := m.deployments[0]
	pod := d.Spec.Template
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil || !sel.Matches(labels.Set(pod.Labels)) {
		t.Fatalf("deployment selector %v does not match its pod labels %v (%v)", d.Spec.Selector, pod.Labels, err)
	}
	c := container(t, pod.Spec.Containers, "omni")
	port := findPort(t, c, "http")
	args := flags(c.Args)
	if len(c.Args) == 0 || c.Args[0] != "serve" {
		t.Errorf("container args %v do not start with serve", c.Args)
	}
	if want := "0.0.0.0:" + strconv.Itoa(int(port.ContainerPort)); args["--listen"] != want {
		t.Errorf("--listen %q, want %q (the container port)", args["--listen"], want)
	}

	// Probes: readiness on /readyz, liveness and startup on /healthz, all on
	// the http port.
	for _, p := range []struct {
		name  string
		probe *corev1.Probe
		path  string
	}{{"readiness", c.ReadinessProbe, "/readyz"}, {"liveness", c.LivenessProbe, "/healthz"}, {"startup", c.StartupProbe, "/healthz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("%s probe: want an httpGet", p.name)
			continue
		}
		g := p.probe.HTTPGet
		if g.Path != p.path || !samePort(g.Port.String(), port) {
			t.Errorf("%s probe: %s on port %s, want %s on %s/%d", p.name, g.Path, g.Port.String(), p.path, port.Name, port.ContainerPort)
		}
	}

	// Drain: preStop wait + --grace < terminationGracePeriodSeconds, and
	// --grace covers the longest stream max_model_len allows.
	prof := profile(t, m.configMaps[0])
	preStop := preStopSleep(t, c)
	grace, err := time.ParseDuration(args["--grace"])
	if err != nil {
		t.Fatalf("--grace %q: %v", args["--grace"], err)
	}
	tgps := time.Duration(*pod.Spec.TerminationGracePeriodSeconds) * time.Second
	if preStop+grace >= tgps {
		t.Errorf("preStop %s + --grace %s = %s, not below terminationGracePeriodSeconds %s", preStop, grace, preStop+grace, tgps)
	}
	if longest := time.Duration(prof.MaxModelLen) * frame; grace < longest {
		t.Errorf("--grace %s is shorter than the longest stream (max_model_len %d × 80 ms = %s)", grace, prof.MaxModelLen, longest)
	}

	// Resources: whole CPUs = model + codec threads, requests = limits
	// (Guaranteed QoS), memory covers weights + activations + KV + headroom.
	req, lim := c.Resources.Requests, c.Resources.Limits
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if q, l := req[r], lim[r]; q.IsZero() || q.Cmp(l) != 0 {
			t.Errorf("%s request %s, limit %s: want equal and set", r, q.String(), l.String())
		}
	}
	cpu := lim[corev1.ResourceCPU]
	if cpu.MilliValue() != int64(1000*(prof.ModelThreads+prof.CodecThreads)) {
		t.Errorf("cpu %s, want model_threads %d + codec_threads %d", cpu.String(), prof.ModelThreads, prof.CodecThreads)
	}
	blocks := int64((prof.MaxModelLen + 15) / 16 * 16)
	need := int64(weightsBytes0_6B) + max(weightsBytes0_6B*15/100, 512<<20) +
		int64(prof.MaxNumSeqs)*blocks*kvBytesPerTokenFP32 + headroomBytes
	mem := lim[corev1.ResourceMemory]
	if mem.Value() < need {
		t.Errorf("memory %s < %s needed (weights + activations + %d streams' KV + headroom)", mem.String(), resource.NewQuantity(need, resource.BinarySI), prof.MaxNumSeqs)
	}
	if mem.Value() > need+(1<<30) {
		t.Errorf("memory %s wastes more than 1 GiB over the %d bytes needed", mem.String(), need)
	}

	// The model: the init container pulls the model the server is given,
	// into the volume the server reads, through the same HF_HUB_CACHE.
	pull := container(t, pod.Spec.InitContainers, "pull")
	if len(pull.Args) < 2 || pull.Args[0] != "pull" || pull.Args[1] != args["--model"] {
		t.Errorf("init container args %v, want pull %s", pull.Args, args["--model"])
	}
	if env(pull, "HF_HUB_CACHE") == "" || env(pull, "HF_HUB_CACHE") != env(c, "HF_HUB_CACHE") {
		t.Errorf("HF_HUB_CACHE %q (pull) vs %q (serve)", env(pull, "HF_HUB_CACHE"), env(c, "HF_HUB_CACHE"))
	}
	if mountOf(pull, env(pull, "HF_HUB_CACHE")) == "" || mountOf(pull, env(pull, "HF_HUB_CACHE")) != mountOf(c, env(c, "HF_HUB_CACHE")) {
		t.Errorf("the pulled cache is not on a volume both containers mount")
	}
	if p := env(c, "OMNI_DEPLOY_PROFILE"); mountOf(c, p) == "" {
		t.Errorf("OMNI_DEPLOY_PROFILE %q is on no mounted volume", p)
	}
	ann := pod.Annotations
	if ann["prometheus.io/path"] != "/metrics" || ann["prometheus.io/port"] != strconv.Itoa(int(port.ContainerPort)) {
		t.Errorf("scrape annotations %v do not point at /metrics on the http port", ann)
	}

	// Services and the PDB select exactly the Deployment's pods.
	for _, s := range m.services {
		if !labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(pod.Labels)) || len(s.Spec.Selector) == 0 {
			t.Errorf("service %s selector %v does not select the pods", s.Name, s.Spec.Selector)
		}
		for _, sp := range s.Spec.Ports {
			if !samePort(sp.TargetPort.String(), port) {
				t.Errorf("service %s targets port %s, not the container's http port", s.Name, sp.TargetPort.String())
			}
		}
	}
	pdb := m.pdbs[0]
	psel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil || !psel.Matches(labels.Set(pod.Labels)) || !slices.Equal(sortedKeys(pdb.Spec.Selector.MatchLabels), sortedKeys(d.Spec.Selector.MatchLabels)) {
		t.Errorf("PDB selector %v does not match the Deployment's %v", pdb.Spec.Selector, d.Spec.Selector)
	}
	if pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() != 1 {
		t.Errorf("PDB maxUnavailable %v, want 1", pdb.Spec.MaxUnavailable)
	}

	// Autoscaling: KEDA scales this Deployment, never below 2 (so the PDB
	// can always let one replica go), on the running + waiting gauges.
	so := m.scaled[0].Spec
	if so.ScaleTargetRef.Name != d.Name || so.ScaleTargetRef.Kind != "Deployment" {
		t.Errorf("ScaledObject targets %+v, want Deployment %s", so.ScaleTargetRef, d.Name)
	}
	if so.MinReplicaCount == nil || *so.MinReplicaCount < 2 || so.MaxReplicaCount == nil || *so.MaxReplicaCount < *so.MinReplicaCount {
		t.Errorf("replica bounds %v..%v, want 2 ≤ min ≤ max", so.MinReplicaCount, so.MaxReplicaCount)
	}
	if len(so.Triggers) != 1 || so.Triggers[0].Type != "prometheus" {
		t.Fatalf("triggers %+v, want one prometheus trigger", so.Triggers)
	}
	tr := so.Triggers[0]
	for k := range tr.Metadata {
		if !prometheusMetadata[k] {
			t.Errorf("prometheus trigger metadata key %q is not one KEDA reads", k)
		}
	}
	q := tr.Metadata["query"]
	if !strings.Contains(q, "omni_requests_waiting") || !strings.Contains(q, "omni_requests_running") {
		t.Errorf("query %q does not use omni_requests_waiting and omni_requests_running", q)
	}
	th, err := strconv.ParseFloat(tr.Metadata["threshold"], 64)
	if err != nil || th <= 0 || th > float64(prof.MaxNumSeqs) {
		t.Errorf("threshold %q: want a per-replica target in (0, max_num_seqs %d]", tr.Metadata["threshold"], prof.MaxNumSeqs)
	}
}

// profile resolves the ConfigMap's deploy profile with omni's own parser
// (unknown fields refused) for the 0.6B geometry.
func profile(t *testing.T, cm *corev1.ConfigMap) deploy.Profile {
	t.Helper()
	js, ok := cm.Data["profile.json"]
	if !ok {
		t.Fatalf("ConfigMap %s has no profile.json", cm.Name)
	}
	path := filepath.Join(t.TempDir(), "profile.json")
	os.WriteFile(path, []byte(js), 0o644)
	w := int64(weightsBytes0_6B)
	p, err := deploy.Resolve(deploy.ResolveOptions{Profile: path, Model: "deploy-test",
		Geometry: sched.KVGeometry{NumLayers: 28, NumKVHeads: 8, HeadDim: 128}, WeightsBytes: w})
	if err != nil {
		t.Fatalf("deploy profile: %v", err)
	}
	if p.BytesPerToken > kvBytesPerTokenFP32 {
		t.Errorf("profile KV %d B/token, above the float32 bound %d the memory is sized for", p.BytesPerToken, kvBytesPerTokenFP32)
	}
	return p
}

func container(t *testing.T, cs []corev1.Container, name string) *corev1.Container {
	t.Helper()
	for i := range cs {
		if cs[i].Name == name {
			return &cs[i]
		}
	}
	t.Fatalf("no container %q", name)
	return nil
}

func findPort(t *testing.T, c *corev1.Container, name string) corev1.ContainerPort {
	t.Helper()
	for _, p := range c.Ports {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("container %s has no port %q", c.Name, name)
	return corev1.ContainerPort{}
}

// samePort reports whether a probe or service port (a name or a number)
// names the container port p.
func samePort(s string, p corev1.ContainerPort) bool {
	return s == p.Name || s == strconv.Itoa(int(p.ContainerPort))
}

// flags maps "--name value" pairs of args.
func flags(args []string) map[string]string {
	f := map[string]string{}
	for i := 0; i < len(args); i++ {
		if name, ok := strings.CutPrefix(args[i], "--"); ok {
			if k, v, eq := strings.Cut(name, "="); eq {
				f["--"+k] = v
			} else if i+1 < len(args) {
				f[args[i]] = args[i+1]
				i++
			}
		}
	}
	return f
}

func preStopSleep(t *testing.T, c *corev1.Container) time.Duration {
	t.Helper()
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil {
		t.Fatal("no preStop hook")
	}
	h := c.Lifecycle.PreStop
	switch {
	case h.Sleep != nil:
		return time.Duration(h.Sleep.Seconds) * time.Second
	case h.Exec != nil && len(h.Exec.Command) == 2 && h.Exec.Command[0] == "sleep":
		s, err := strconv.Atoi(h.Exec.Command[1])
		if err == nil && s > 0 {
			return time.Duration(s) * time.Second
		}
	}
	t.Fatalf("preStop %+v is not a sleep of whole seconds", h)
	return 0
}

func env(c *corev1.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

// mountOf returns the volume whose mount holds path ("" if none).
func mountOf(c *corev1.Container, path string) string {
	for _, m := range c.VolumeMounts {
		if path != "" && (path == m.MountPath || strings.HasPrefix(path, strings.TrimSuffix(m.MountPath, "/")+"/")) {
			return m.Name
		}
	}
	return ""
}

func sortedKeys(m map[string]string) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	slices.Sort(k)
	return k
}
