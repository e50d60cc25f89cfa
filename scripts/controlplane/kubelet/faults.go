package main

import (
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/klog/v2"
)

// faultMethods are the CRI methods whose next calls can be made to fail.
var faultMethods = []string{"PullImage", "RunPodSandbox", "CreateContainer", "StartContainer", "StopContainer"}

type fault struct {
	Count   int    `json:"count"`
	Message string `json:"message"`
}

type faults struct {
	mu      sync.Mutex
	pending map[string]*fault
}

// set replaces what is pending for the method; count 0 clears it.
func (f *faults) set(method string, count int, message string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if count <= 0 {
		delete(f.pending, method)
		return
	}
	if message == "" {
		message = "injected " + method + " failure"
	}
	f.pending[method] = &fault{Count: count, Message: message}
}

// take uses up one pending fault of the method: the error to answer with, or nil.
func (f *faults) take(method string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.pending[method]
	if p == nil {
		return nil
	}
	if p.Count--; p.Count <= 0 {
		delete(f.pending, method)
	}
	klog.V(2).InfoS("Hollow runtime: injected fault", "method", method, "message", p.Message, "left", p.Count)
	return status.Error(codes.Unknown, p.Message)
}

func (f *faults) snapshot() map[string]fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]fault{}
	for m, p := range f.pending {
		out[m] = *p
	}
	return out
}
