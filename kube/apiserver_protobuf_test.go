package kube_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// protobufClientset serves a cluster and returns a clientset that
// speaks only protobuf (bodies and responses), as kubectl and
// client-go do for built-in kinds, and a counter of the responses the
// server answered in protobuf.
func protobufClientset(t *testing.T) (*kubernetes.Clientset, *atomic.Int64) {
	t.Helper()
	c, err := cluster.New(t.Context(), cluster.Options{})
	require.NoError(t, err)
	srv, err := apiserver.New(c, apiserver.Options{})
	require.NoError(t, err)
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		srv.ServeHTTP(w, r)
		if strings.HasPrefix(w.Header().Get("Content-Type"), "application/vnd.kubernetes.protobuf") {
			n.Add(1)
		}
	}))
	t.Cleanup(ts.Close)
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: ts.URL, ContentConfig: rest.ContentConfig{
		ContentType: "application/vnd.kubernetes.protobuf", AcceptContentTypes: "application/vnd.kubernetes.protobuf"}})
	require.NoError(t, err)
	return cs, &n
}

// TestClientsetProtobuf drives the served API with a clientset in
// protobuf mode: create, get, list, update, delete and watch of the
// kinds with the special protobuf shapes, the scale subresource, an
// error, and an informer syncing.
func TestClientsetProtobuf(t *testing.T) {
	cs, protoResponses := protobufClientset(t)
	ctx := t.Context()
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "pb"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Equal(t, "pb", ns.Name)
	require.False(t, ns.CreationTimestamp.IsZero(), "metav1.Time comes back")

	// ConfigMap and Secret: strings and bytes.
	cm, err := cs.CoreV1().ConfigMaps("pb").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Labels: map[string]string{"a": "b"}},
		Data: map[string]string{"k": "v"}, BinaryData: map[string][]byte{"bin": {0, 1, 255}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Equal(t, []byte{0, 1, 255}, cm.BinaryData["bin"])
	cm.Data["k2"] = "v2"
	cm, err = cs.CoreV1().ConfigMaps("pb").Update(ctx, cm, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.Equal(t, "v2", cm.Data["k2"])
	sec, err := cs.CoreV1().Secrets("pb").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"},
		Data: map[string][]byte{"key": []byte("\x00secret\xff")}}, metav1.CreateOptions{})
	require.NoError(t, err)
	sec, err = cs.CoreV1().Secrets("pb").Get(ctx, "s", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, []byte("\x00secret\xff"), sec.Data["key"])

	// Service: int-or-string ports.
	svc, err := cs.CoreV1().Services("pb").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "svc"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{
			{Name: "http", Port: 80, TargetPort: intstr.FromString("http")},
			{Name: "alt", Port: 81, TargetPort: intstr.FromInt32(8081)}}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Equal(t, intstr.FromString("http"), svc.Spec.Ports[0].TargetPort)
	require.Equal(t, intstr.FromInt32(8081), svc.Spec.Ports[1].TargetPort)

	// Pod: quantities.
	pod, err := cs.CoreV1().Pods("pb").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("64Mi")}}}}}},
		metav1.CreateOptions{})
	require.NoError(t, err)
	q := pod.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]
	require.Equal(t, "250m", q.String())

	// Deployment, its scale subresource.
	dep, err := cs.AppsV1().Deployments("pb").Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{Replicas: ptrTo[int32](2), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.EqualValues(t, 2, *dep.Spec.Replicas)
	sc, err := cs.AppsV1().Deployments("pb").GetScale(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	require.EqualValues(t, 2, sc.Spec.Replicas)
	sc, err = cs.AppsV1().Deployments("pb").UpdateScale(ctx, "web", &autoscalingv1.Scale{ObjectMeta: sc.ObjectMeta,
		Spec: autoscalingv1.ScaleSpec{Replicas: 5}}, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.EqualValues(t, 5, sc.Spec.Replicas)
	dep, err = cs.AppsV1().Deployments("pb").Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	require.EqualValues(t, 5, *dep.Spec.Replicas)

	// Job and CronJob.
	podTmpl := corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	_, err = cs.BatchV1().Jobs("pb").Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j"},
		Spec: batchv1.JobSpec{BackoffLimit: ptrTo[int32](1), Template: podTmpl}}, metav1.CreateOptions{})
	require.NoError(t, err)
	cj, err := cs.BatchV1().CronJobs("pb").Create(ctx, &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "cj"},
		Spec: batchv1.CronJobSpec{Schedule: "*/5 * * * *", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: podTmpl}}}},
		metav1.CreateOptions{})
	require.NoError(t, err)
	require.Equal(t, "*/5 * * * *", cj.Spec.Schedule)

	// Lists.
	jobs, err := cs.BatchV1().Jobs("pb").List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, jobs.Items, 1)
	require.NotEmpty(t, jobs.ResourceVersion)

	// Errors come back as a Status client-go understands.
	_, err = cs.CoreV1().ConfigMaps("pb").Get(ctx, "nope", metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "%v", err)
	_, err = cs.CoreV1().ConfigMaps("pb").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}, metav1.CreateOptions{})
	require.True(t, apierrors.IsAlreadyExists(err), "%v", err)

	// Watch in protobuf.
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	w, err := cs.CoreV1().ConfigMaps("pb").Watch(wctx, metav1.ListOptions{ResourceVersion: cm.ResourceVersion})
	require.NoError(t, err)
	defer w.Stop()
	_, err = cs.CoreV1().ConfigMaps("pb").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm2"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, cs.CoreV1().ConfigMaps("pb").Delete(ctx, "cm", metav1.DeleteOptions{GracePeriodSeconds: ptrTo[int64](0)}))
	ev := <-w.ResultChan()
	require.Equal(t, watch.Added, ev.Type, "%v", ev.Object)
	require.Equal(t, "cm2", ev.Object.(*corev1.ConfigMap).Name)
	ev = <-w.ResultChan()
	require.Equal(t, watch.Deleted, ev.Type, "%v", ev.Object)
	require.Equal(t, "cm", ev.Object.(*corev1.ConfigMap).Name)

	// An informer in protobuf mode syncs.
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace("pb"))
	inf := f.Core().V1().ConfigMaps().Informer()
	f.Start(wctx.Done())
	require.True(t, cache.WaitForCacheSync(wctx.Done(), inf.HasSynced))
	keys := inf.GetStore().ListKeys()
	require.ElementsMatch(t, []string{"pb/cm2"}, keys)
	require.Positive(t, protoResponses.Load(), "responses in protobuf")
}
