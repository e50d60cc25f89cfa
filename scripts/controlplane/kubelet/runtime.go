package main

// The container runtime the kubelet talks to over CRI: cri-client's fake CRI server (an in-memory
// FakeRuntimeService and FakeImageService), wrapped so that its containers behave like the
// processes their specs describe (process.go) and so that faults can be injected.
//
// Guarantees, on top of the fake's bookkeeping:
//   - Every pod sandbox gets its own IP from the node's loopback pod CIDR (host-network pods get
//     the node IP), released when the sandbox is stopped, so probes really dial this machine.
//   - A running container answers HTTP 200 on every path of each port it listens on
//     (listeningPorts), on its pod IP; the listeners close the moment it stops.
//   - A container exits by itself when its plan says so: state EXITED, with the exit code, the
//     reason (0: Completed, otherwise Error; OOMKilled for the OOM rule) and finishedAt.
//   - StopContainer(timeout) delivers SIGTERM: a process that handles it exits at once (0,
//     Completed); one that ignores it keeps running until the timeout (the grace period the
//     kubelet passes), then is SIGKILLed (137, Error). StopContainer returns once it has exited,
//     as a real runtime does. Stopping a container that is not running is a no-op.
//   - ExecSync (exec probes and hooks) takes as long as the command's sleeps (a DeadlineExceeded
//     error past the request's timeout) and answers per execVerdict, unless the control endpoint
//     set an override for that container.
//   - ContainerStatus and PodSandboxStatus answer gRPC NotFound for unknown IDs, as the kubelet
//     expects from a real runtime after a removal race.
//   - The next N calls of PullImage, RunPodSandbox, CreateContainer, StartContainer or
//     StopContainer fail with an injected message (gRPC code Unknown), before any effect.

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"k8s.io/client-go/kubernetes"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	fakeremote "k8s.io/cri-client/pkg/fake"
	"k8s.io/klog/v2"
	kubelettypes "k8s.io/kubelet/pkg/types"
)

// containerKey names a container of a pod, across its restarts.
type containerKey struct{ namespace, pod, container string }

func (k containerKey) String() string { return k.namespace + "/" + k.pod + "/" + k.container }

type procState int

const (
	procCreated procState = iota
	procRunning
	procExited
)

// process is one container instance (one container ID).
type process struct {
	id, sandboxID string
	key           containerKey
	ip            string // where its ports listen: the pod IP
	plan          plan
	state         procState
	started       time.Time
	done          chan struct{} // closed when it exits
	timer         *time.Timer   // its planned exit
	servers       []*http.Server
}

// execOverride, set through the control endpoint, replaces the exec verdict of a container.
type execOverride struct {
	fail    bool
	message string
}

// fakeImageSize is every image's size, as "Pulled" events and the node's image list show it.
const fakeImageSize = 50 << 20

type runtime struct {
	*fakeremote.RemoteRuntime // every CRI method not defined here is the fake's own

	pods   *podLookup
	faults *faults
	ips    *ipPool
	nodeIP string

	mu            sync.Mutex // guards procs and execOverrides; taken before the fake's own lock
	procs         map[string]*process
	execOverrides map[containerKey]execOverride
}

func newRuntime(client kubernetes.Interface, ips *ipPool, nodeIP string) *runtime {
	f := fakeremote.NewFakeRemoteRuntime()
	// The kubelet's CRI client rejects an image whose size is 0 ("Id or size of image is not set").
	f.ImageService.SetFakeImageSize(fakeImageSize)
	// What the fake's Start would set; we serve it on our own gRPC server instead.
	f.RuntimeService.FakeStatus = &runtimeapi.RuntimeStatus{Conditions: []*runtimeapi.RuntimeCondition{
		{Type: runtimeapi.RuntimeReady, Status: true},
		{Type: runtimeapi.NetworkReady, Status: true},
	}}
	return &runtime{
		RemoteRuntime: f,
		pods:          &podLookup{client: client},
		faults:        &faults{pending: map[string]*fault{}},
		ips:           ips,
		nodeIP:        nodeIP,
		procs:         map[string]*process{},
		execOverrides: map[containerKey]execOverride{},
	}
}

// trimCalls empties the fakes' call journals every minute: they grow with every relist and
// nothing here reads them.
func (r *runtime) trimCalls(ctx context.Context) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		r.RuntimeService.Lock()
		r.RuntimeService.Called = nil
		r.RuntimeService.Unlock()
		r.ImageService.Lock()
		r.ImageService.Called = nil
		r.ImageService.Unlock()
	}
}

// --- sandboxes

func (r *runtime) RunPodSandbox(ctx context.Context, req *runtimeapi.RunPodSandboxRequest) (*runtimeapi.RunPodSandboxResponse, error) {
	if err := r.faults.take("RunPodSandbox"); err != nil {
		return nil, err
	}
	resp, err := r.RemoteRuntime.RunPodSandbox(ctx, req)
	if err != nil {
		return nil, err
	}
	id := resp.PodSandboxId
	ip := r.nodeIP
	if req.GetConfig().GetLinux().GetSecurityContext().GetNamespaceOptions().GetNetwork() != runtimeapi.NamespaceMode_NODE {
		if ip, err = r.ips.allocate(id); err != nil {
			_, _ = r.RemoteRuntime.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: id})
			return nil, status.Error(codes.ResourceExhausted, err.Error())
		}
	}
	r.RuntimeService.Lock()
	if s := r.RuntimeService.Sandboxes[id]; s != nil {
		s.Network = &runtimeapi.PodSandboxNetworkStatus{Ip: ip}
	}
	r.RuntimeService.Unlock()
	klog.V(2).InfoS("Hollow runtime: sandbox started", "podSandboxID", id, "ip", ip)
	return resp, nil
}

// StopPodSandbox kills what still runs in the sandbox (SIGKILL: 137) and releases its IP.
func (r *runtime) StopPodSandbox(ctx context.Context, req *runtimeapi.StopPodSandboxRequest) (*runtimeapi.StopPodSandboxResponse, error) {
	r.killSandbox(req.PodSandboxId, false)
	resp, err := r.RemoteRuntime.StopPodSandbox(ctx, req)
	if err == nil {
		r.ips.release(req.PodSandboxId)
	}
	return resp, err
}

func (r *runtime) RemovePodSandbox(ctx context.Context, req *runtimeapi.RemovePodSandboxRequest) (*runtimeapi.RemovePodSandboxResponse, error) {
	r.killSandbox(req.PodSandboxId, true)
	r.ips.release(req.PodSandboxId)
	return r.RemoteRuntime.RemovePodSandbox(ctx, req)
}

func (r *runtime) killSandbox(sandboxID string, forget bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, p := range r.procs {
		if p.sandboxID != sandboxID {
			continue
		}
		r.exitLocked(p, 137, "Error", "")
		if forget {
			delete(r.procs, id)
		}
	}
}

func (r *runtime) PodSandboxStatus(ctx context.Context, req *runtimeapi.PodSandboxStatusRequest) (*runtimeapi.PodSandboxStatusResponse, error) {
	r.RuntimeService.Lock()
	_, ok := r.RuntimeService.Sandboxes[req.PodSandboxId]
	r.RuntimeService.Unlock()
	if !ok {
		return nil, status.Errorf(codes.NotFound, "pod sandbox %q not found", req.PodSandboxId)
	}
	return r.RemoteRuntime.PodSandboxStatus(ctx, req)
}

// --- containers

func (r *runtime) CreateContainer(ctx context.Context, req *runtimeapi.CreateContainerRequest) (*runtimeapi.CreateContainerResponse, error) {
	if err := r.faults.take("CreateContainer"); err != nil {
		return nil, err
	}
	resp, err := r.RemoteRuntime.CreateContainer(ctx, req)
	if err != nil {
		return nil, err
	}
	cfg := req.GetConfig()
	labels := cfg.GetLabels()
	key := containerKey{labels[kubelettypes.KubernetesPodNamespaceLabel], labels[kubelettypes.KubernetesPodNameLabel], labels[kubelettypes.KubernetesContainerNameLabel]}
	role := r.pods.role(ctx, key, labels[kubelettypes.KubernetesPodUIDLabel])
	image := cfg.GetImage().GetImage()
	if role.spec != nil && role.spec.Image != "" {
		image = role.spec.Image
	}
	argv := append(append([]string{}, cfg.GetCommand()...), cfg.GetArgs()...)
	pl := planProcess(argv, image, cfg.GetLinux().GetResources().GetMemoryLimitInBytes(), role)

	r.RuntimeService.Lock()
	ip := r.nodeIP
	if s := r.RuntimeService.Sandboxes[req.PodSandboxId]; s != nil && s.Network != nil {
		ip = s.Network.Ip
	}
	r.RuntimeService.Unlock()

	p := &process{id: resp.ContainerId, sandboxID: req.PodSandboxId, key: key, ip: ip, plan: pl, done: make(chan struct{})}
	r.mu.Lock()
	r.procs[p.id] = p
	r.mu.Unlock()
	logger := klog.V(2)
	if logger.Enabled() {
		exit := "never (until killed)"
		if pl.exit != nil {
			exit = fmt.Sprintf("after %s with %d %s", pl.exit.after, pl.exit.code, pl.exit.reason)
		}
		logger.InfoS("Hollow runtime: container planned", "containerID", p.id, "container", key.String(),
			"known", role.spec != nil, "exits", exit, "ignoresSigterm", pl.ignoresSigterm, "ports", pl.ports, "ip", ip)
	}
	return resp, nil
}

func (r *runtime) StartContainer(ctx context.Context, req *runtimeapi.StartContainerRequest) (*runtimeapi.StartContainerResponse, error) {
	if err := r.faults.take("StartContainer"); err != nil {
		return nil, err
	}
	resp, err := r.RemoteRuntime.StartContainer(ctx, req)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.procs[req.ContainerId]; p != nil && p.state == procCreated {
		r.startLocked(p)
	}
	return resp, nil
}

// okHandler is every listening container's server: 200 "ok" on any path.
var okHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	_, _ = w.Write([]byte("ok"))
})

func (r *runtime) startLocked(p *process) {
	p.state = procRunning
	p.started = time.Now()
	for _, port := range p.plan.ports {
		addr := net.JoinHostPort(p.ip, fmt.Sprint(port))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			klog.InfoS("Hollow runtime: container cannot listen", "containerID", p.id, "addr", addr, "err", err)
			continue
		}
		srv := &http.Server{Handler: okHandler, ReadHeaderTimeout: 10 * time.Second}
		p.servers = append(p.servers, srv)
		go func() { _ = srv.Serve(ln) }()
	}
	if e := p.plan.exit; e != nil {
		p.timer = time.AfterFunc(e.after, func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.exitLocked(p, e.code, e.reason, "")
		})
	}
}

// exitLocked ends a running process: timers and listeners stop, and the fake's container turns
// EXITED with this code and reason ("": Completed for 0, otherwise Error). False if it was not
// running.
func (r *runtime) exitLocked(p *process, code int32, reason, message string) bool {
	if p.state != procRunning {
		return false
	}
	p.state = procExited
	if p.timer != nil {
		p.timer.Stop()
	}
	for _, s := range p.servers {
		_ = s.Close()
	}
	p.servers = nil
	close(p.done)
	if reason == "" {
		reason = "Error"
		if code == 0 {
			reason = "Completed"
		}
	}
	r.RuntimeService.Lock()
	if c := r.RuntimeService.Containers[p.id]; c != nil {
		c.State = runtimeapi.ContainerState_CONTAINER_EXITED
		c.ExitCode = code
		c.Reason = reason
		c.Message = message
		c.FinishedAt = time.Now().UnixNano()
	}
	r.RuntimeService.Unlock()
	klog.V(2).InfoS("Hollow runtime: container exited", "containerID", p.id, "container", p.key.String(), "exitCode", code, "reason", reason)
	return true
}

func (r *runtime) StopContainer(ctx context.Context, req *runtimeapi.StopContainerRequest) (*runtimeapi.StopContainerResponse, error) {
	if err := r.faults.take("StopContainer"); err != nil {
		return nil, err
	}
	r.mu.Lock()
	p := r.procs[req.ContainerId]
	if p == nil || p.state != procRunning {
		r.mu.Unlock()
		return &runtimeapi.StopContainerResponse{}, nil
	}
	if req.Timeout <= 0 || !p.plan.ignoresSigterm {
		if req.Timeout <= 0 {
			r.exitLocked(p, 137, "Error", "") // SIGKILL at once
		} else {
			r.exitLocked(p, 0, "Completed", "") // handles SIGTERM
		}
		r.mu.Unlock()
		return &runtimeapi.StopContainerResponse{}, nil
	}
	done := p.done
	r.mu.Unlock()
	grace := time.NewTimer(time.Duration(req.Timeout) * time.Second)
	defer grace.Stop()
	select {
	case <-done: // it exited by itself meanwhile
	case <-grace.C:
		r.mu.Lock()
		r.exitLocked(p, 137, "Error", "")
		r.mu.Unlock()
	case <-ctx.Done():
		return nil, status.FromContextError(ctx.Err()).Err()
	}
	return &runtimeapi.StopContainerResponse{}, nil
}

func (r *runtime) RemoveContainer(ctx context.Context, req *runtimeapi.RemoveContainerRequest) (*runtimeapi.RemoveContainerResponse, error) {
	r.mu.Lock()
	if p := r.procs[req.ContainerId]; p != nil {
		r.exitLocked(p, 137, "Error", "") // removal forces a running container down
		delete(r.procs, req.ContainerId)
	}
	r.mu.Unlock()
	return r.RemoteRuntime.RemoveContainer(ctx, req)
}

func (r *runtime) ContainerStatus(ctx context.Context, req *runtimeapi.ContainerStatusRequest) (*runtimeapi.ContainerStatusResponse, error) {
	r.RuntimeService.Lock()
	_, ok := r.RuntimeService.Containers[req.ContainerId]
	r.RuntimeService.Unlock()
	if !ok {
		return nil, status.Errorf(codes.NotFound, "container %q not found", req.ContainerId)
	}
	return r.RemoteRuntime.ContainerStatus(ctx, req)
}

func (r *runtime) ExecSync(ctx context.Context, req *runtimeapi.ExecSyncRequest) (*runtimeapi.ExecSyncResponse, error) {
	r.mu.Lock()
	p := r.procs[req.ContainerId]
	if p == nil || p.state != procRunning {
		r.mu.Unlock()
		return nil, status.Errorf(codes.FailedPrecondition, "container %q is not running", req.ContainerId)
	}
	ov, overridden := r.execOverrides[p.key]
	files, started := p.plan.files, p.started
	r.mu.Unlock()

	if overridden {
		if ov.fail {
			return &runtimeapi.ExecSyncResponse{ExitCode: 1, Stderr: []byte(ov.message)}, nil
		}
		return &runtimeapi.ExecSyncResponse{}, nil
	}
	runs, finite := execDuration(req.Cmd)
	limit := time.Duration(req.Timeout) * time.Second
	if !finite || (limit > 0 && runs > limit) {
		if limit > 0 {
			runs = limit
		} else {
			runs = 1<<63 - 1
		}
		if err := sleepCtx(ctx, runs); err != nil {
			return nil, err
		}
		return nil, status.Errorf(codes.DeadlineExceeded, "command timed out after %s", limit)
	}
	if err := sleepCtx(ctx, runs); err != nil {
		return nil, err
	}
	code, out := execVerdict(req.Cmd, files, time.Since(started))
	return &runtimeapi.ExecSyncResponse{ExitCode: code, Stderr: []byte(out)}, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return status.FromContextError(ctx.Err()).Err()
	}
}

// --- images

func (r *runtime) PullImage(ctx context.Context, req *runtimeapi.PullImageRequest) (*runtimeapi.PullImageResponse, error) {
	if err := r.faults.take("PullImage"); err != nil {
		return nil, err
	}
	return r.RemoteRuntime.PullImage(ctx, req)
}

// --- what the control endpoint reads and changes

// containerInfo is one container the fake runtime holds, as GET /containers shows it.
type containerInfo struct {
	PodUID     string  `json:"podUID"`
	Namespace  string  `json:"namespace"`
	Pod        string  `json:"pod"`
	Container  string  `json:"container"`
	ID         string  `json:"id"`
	Attempt    uint32  `json:"attempt"`
	State      string  `json:"state"`
	ExitCode   int32   `json:"exitCode"`
	Reason     string  `json:"reason"`
	StartedAt  *string `json:"startedAt"`
	FinishedAt *string `json:"finishedAt"`
}

func (r *runtime) containers() []containerInfo {
	stamp := func(ns int64) *string {
		if ns == 0 {
			return nil
		}
		s := time.Unix(0, ns).UTC().Format(time.RFC3339Nano)
		return &s
	}
	states := map[runtimeapi.ContainerState]string{
		runtimeapi.ContainerState_CONTAINER_CREATED: "created",
		runtimeapi.ContainerState_CONTAINER_RUNNING: "running",
		runtimeapi.ContainerState_CONTAINER_EXITED:  "exited",
		runtimeapi.ContainerState_CONTAINER_UNKNOWN: "unknown",
	}
	r.RuntimeService.Lock()
	out := make([]containerInfo, 0, len(r.RuntimeService.Containers))
	created := map[string]int64{}
	for id, c := range r.RuntimeService.Containers {
		l := c.Labels
		out = append(out, containerInfo{
			PodUID: l[kubelettypes.KubernetesPodUIDLabel], Namespace: l[kubelettypes.KubernetesPodNamespaceLabel],
			Pod: l[kubelettypes.KubernetesPodNameLabel], Container: l[kubelettypes.KubernetesContainerNameLabel],
			ID: id, Attempt: c.GetMetadata().GetAttempt(), State: states[c.State], ExitCode: c.ExitCode, Reason: c.Reason,
			StartedAt: stamp(c.StartedAt), FinishedAt: stamp(c.FinishedAt),
		})
		created[id] = c.CreatedAt
	}
	r.RuntimeService.Unlock()
	sort.Slice(out, func(i, j int) bool { return created[out[i].ID] < created[out[j].ID] })
	return out
}

// exitContainer makes the newest running instance of the container exit now; false if none runs.
func (r *runtime) exitContainer(key containerKey, code int32, reason, message string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	var newest *process
	for _, p := range r.procs {
		if p.key == key && p.state == procRunning && (newest == nil || p.started.After(newest.started)) {
			newest = p
		}
	}
	return newest != nil && r.exitLocked(newest, code, reason, message)
}

// setExecOverride: fail nil returns the container to its spec's rules.
func (r *runtime) setExecOverride(key containerKey, fail *bool, message string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if fail == nil {
		delete(r.execOverrides, key)
		return
	}
	r.execOverrides[key] = execOverride{fail: *fail, message: message}
}
