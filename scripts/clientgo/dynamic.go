package main

// The dynamic client on a custom resource (its CRD created through the API), and request bodies
// that cannot be decoded.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
)

var (
	crdGVR    = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	gadgetGVR = schema.GroupVersionResource{Group: "checks.kubeloop.dev", Version: "v1", Resource: "gadgets"}
)

func dynamicChecks(ctx context.Context, env *Env) {
	dyn, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		report("dynamic/client", err, "")
		return
	}
	ok := true
	step := func(name string, fn func(ctx context.Context) (string, error)) {
		if !ok {
			report(name, errors.New("skipped: an earlier dynamic step failed"), "")
			return
		}
		check(ctx, name, func(ctx context.Context) (string, error) {
			d, err := fn(ctx)
			ok = err == nil
			return d, err
		})
	}
	step("dynamic/crd-established", func(ctx context.Context) (string, error) {
		crd := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1",
			"kind":       "CustomResourceDefinition",
			"metadata":   map[string]any{"name": "gadgets.checks.kubeloop.dev"},
			"spec": map[string]any{
				"group": "checks.kubeloop.dev",
				"scope": "Namespaced",
				"names": map[string]any{"kind": "Gadget", "listKind": "GadgetList", "plural": "gadgets", "singular": "gadget"},
				"versions": []any{map[string]any{
					"name": "v1", "served": true, "storage": true,
					"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
				}},
			},
		}}
		if _, err := dyn.Resource(crdGVR).Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return "", err
		}
		// Established, and served: a list of the new resource answers (the handler starts a moment later).
		err := wait.PollUntilContextCancel(ctx, pollInterval, true, func(ctx context.Context) (bool, error) {
			got, err := dyn.Resource(crdGVR).Get(ctx, "gadgets.checks.kubeloop.dev", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
			established := false
			for _, c := range conds {
				m, _ := c.(map[string]any)
				established = established || (m["type"] == "Established" && m["status"] == "True")
			}
			if !established {
				return false, nil
			}
			_, err = dyn.Resource(gadgetGVR).Namespace(env.NS).List(ctx, metav1.ListOptions{})
			return err == nil, nil
		})
		if err != nil {
			return "", fmt.Errorf("CRD not Established and served: %w", err)
		}
		return "Established and served", nil
	})
	r := dyn.Resource(gadgetGVR).Namespace(env.NS)
	step("dynamic/gadgets/create-get-list", func(ctx context.Context) (string, error) {
		g := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "checks.kubeloop.dev/v1", "kind": "Gadget",
			"metadata": map[string]any{"name": "g1", "labels": map[string]any{checkLabel: "dynamic"}},
			"spec":     map[string]any{"size": int64(3), "tags": []any{"a", "b"}},
		}}
		if _, err := r.Create(ctx, g, metav1.CreateOptions{}); err != nil {
			return "", err
		}
		got, err := r.Get(ctx, "g1", metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		if size, _, _ := unstructured.NestedInt64(got.Object, "spec", "size"); size != 3 || got.GetKind() != "Gadget" || got.GetUID() == "" {
			return "", fmt.Errorf("got %s %s spec.size %d", got.GetKind(), got.GetName(), size)
		}
		l, err := r.List(ctx, metav1.ListOptions{LabelSelector: checkLabel + "=dynamic"})
		if err != nil {
			return "", err
		}
		if len(l.Items) != 1 || l.Items[0].GetName() != "g1" || l.GetResourceVersion() == "" {
			return "", fmt.Errorf("list: %d items, resourceVersion %q", len(l.Items), l.GetResourceVersion())
		}
		return "created, read back, listed by label", nil
	})
	step("dynamic/gadgets/update-patch-apply", func(ctx context.Context) (string, error) {
		got, err := r.Get(ctx, "g1", metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		if err := unstructured.SetNestedField(got.Object, int64(4), "spec", "size"); err != nil {
			return "", err
		}
		if _, err := r.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
			return "", fmt.Errorf("update: %w", err)
		}
		if _, err := r.Patch(ctx, "g1", types.MergePatchType, []byte(`{"spec":{"color":"blue"}}`), metav1.PatchOptions{}); err != nil {
			return "", fmt.Errorf("merge patch: %w", err)
		}
		if _, err := r.Patch(ctx, "g1", types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/size","value":5}]`), metav1.PatchOptions{}); err != nil {
			return "", fmt.Errorf("json patch: %w", err)
		}
		// Custom resources have no strategic merge patch: upstream answers 415.
		_, err = r.Patch(ctx, "g1", types.StrategicMergePatchType, []byte(`{"spec":{"x":1}}`), metav1.PatchOptions{})
		if !apierrors.IsUnsupportedMediaType(err) {
			return "", fmt.Errorf("strategic merge patch of a custom resource: want 415 UnsupportedMediaType, got %v", err)
		}
		apply := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "checks.kubeloop.dev/v1", "kind": "Gadget",
			"metadata": map[string]any{"name": "g1"}, "spec": map[string]any{"owner": "checks"},
		}}
		a, err := r.Apply(ctx, "g1", apply, metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
		if err != nil {
			return "", fmt.Errorf("apply: %w", err)
		}
		size, _, _ := unstructured.NestedInt64(a.Object, "spec", "size")
		color, _, _ := unstructured.NestedString(a.Object, "spec", "color")
		owner, _, _ := unstructured.NestedString(a.Object, "spec", "owner")
		if size != 5 || color != "blue" || owner != "checks" {
			return "", fmt.Errorf("after update/patch/apply spec is %v", a.Object["spec"])
		}
		return "update, merge and JSON patch, apply; strategic merge refused with 415", nil
	})
	step("dynamic/gadgets/delete", func(ctx context.Context) (string, error) {
		if err := r.Delete(ctx, "g1", metav1.DeleteOptions{}); err != nil {
			return "", err
		}
		if _, err := r.Get(ctx, "g1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return "", fmt.Errorf("get after delete: want NotFound, got %v", err)
		}
		return "deleted", nil
	})
}

// badBodyChecks sends protobuf bodies no server can decode: each must get the Status a real
// kube-apiserver gives (400 BadRequest), never a JSON parse error about protobuf bytes.
func badBodyChecks(ctx context.Context, env *Env) {
	bodies := []struct {
		name string
		body []byte
	}{
		{"no-magic", []byte(`{"apiVersion":"v1","kind":"ConfigMap"}`)},
		{"truncated", []byte("k8s\x00\x0a\x0c\x0a\x02v1\x12")},
		{"garbage-raw", []byte("k8s\x00\x0a\x0f\x0a\x02v1\x12\x09ConfigMap\x12\x04\xff\xff\xff\xff")},
		{"magic-only", []byte("k8s\x00")},
		{"other-kind", []byte("k8s\x00\x0a\x0c\x0a\x02v1\x12\x06Secret\x12\x00")},
	}
	for _, b := range bodies {
		check(ctx, "protobuf/undecodable-body/"+b.name, func(ctx context.Context) (string, error) {
			var code int
			err := env.Protobuf.CoreV1().RESTClient().Post().Namespace(env.NS).Resource("configmaps").
				SetHeader("Content-Type", "application/vnd.kubernetes.protobuf").Body(b.body).Do(ctx).StatusCode(&code).Error()
			var st apierrors.APIStatus
			if !errors.As(err, &st) {
				return "", fmt.Errorf("want a Status error, got %d %v", code, err)
			}
			s := st.Status()
			msg := strings.ToLower(s.Message)
			if code != http.StatusBadRequest || s.Reason != metav1.StatusReasonBadRequest {
				return "", fmt.Errorf("got %d %s %q, want 400 BadRequest", code, s.Reason, s.Message)
			}
			if strings.Contains(msg, "json") || strings.Contains(msg, "invalid character") {
				return "", fmt.Errorf("message speaks of JSON about a protobuf body: %q", s.Message)
			}
			return fmt.Sprintf("%d %s: %s", code, s.Reason, s.Message), nil
		})
	}
}
