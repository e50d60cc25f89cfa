package main

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// podLookup finds the pod spec of a container the kubelet creates (restartPolicy, init or not,
// ports): a GET of the pod its CRI labels name, checked against their UID.
type podLookup struct{ client kubernetes.Interface }

func (l *podLookup) role(ctx context.Context, key containerKey, uid string) containerRole {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	pod, err := l.client.CoreV1().Pods(key.namespace).Get(ctx, key.pod, metav1.GetOptions{})
	if err != nil || string(pod.UID) != uid {
		klog.InfoS("Hollow runtime: pod spec not found, the container runs as a plain program", "container", key.String(), "uid", uid, "err", err)
		return containerRole{}
	}
	find := func(list []v1.Container) *v1.Container {
		for i := range list {
			if list[i].Name == key.container {
				return &list[i]
			}
		}
		return nil
	}
	if c := find(pod.Spec.InitContainers); c != nil {
		return containerRole{spec: c, init: true, restartPolicy: pod.Spec.RestartPolicy}
	}
	if c := find(pod.Spec.Containers); c != nil {
		return containerRole{spec: c, restartPolicy: pod.Spec.RestartPolicy}
	}
	for i := range pod.Spec.EphemeralContainers {
		if e := &pod.Spec.EphemeralContainers[i]; e.Name == key.container {
			c := v1.Container(e.EphemeralContainerCommon)
			return containerRole{spec: &c, restartPolicy: v1.RestartPolicyNever} // never restarted
		}
	}
	return containerRole{restartPolicy: pod.Spec.RestartPolicy}
}
