package main

// The control endpoint: plain HTTP with JSON bodies, on a loopback address only, through which a
// test harness drives the fake runtime.
//
//	GET  /healthz          200 "ok"
//	GET  /containers       every container the runtime holds (containerInfo), oldest first
//	POST /containers/exit  {namespace, pod, container, exitCode, reason?, message?}
//	                       the running instance exits now; 404 if none runs
//	POST /probes/exec      {namespace, pod, container, fail: true|false|null, message?}
//	                       every later ExecSync of the container fails (exit 1, message as
//	                       output) / succeeds; null returns it to its spec's rules
//	POST /faults           {method, count, message?}: the next count calls of the CRI method
//	                       fail with message (count 0 clears); GET /faults: what is pending
//
// A body that is not such JSON (unknown fields included) gets 400 {"error": "..."}, any other
// method or path 404 {"error": "..."}; every answer but /healthz's is JSON.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
)

func controlHandler(rt *runtime) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok"))
	})
	mux.HandleFunc("GET /containers", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, http.StatusOK, rt.containers())
	})
	mux.HandleFunc("POST /containers/exit", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			containerRef
			ExitCode *int32 `json:"exitCode"`
			Reason   string `json:"reason"`
			Message  string `json:"message"`
		}
		err := decode(r, &body)
		if err == nil && body.ExitCode == nil {
			err = errors.New("exitCode is required")
		}
		if err == nil {
			err = body.check()
		}
		if err != nil {
			fail(w, http.StatusBadRequest, err.Error())
			return
		}
		if !rt.exitContainer(body.key(), *body.ExitCode, body.Reason, body.Message) {
			fail(w, http.StatusNotFound, fmt.Sprintf("no running container %s", body.key()))
			return
		}
		reply(w, http.StatusOK, map[string]bool{"exited": true})
	})
	mux.HandleFunc("POST /probes/exec", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			containerRef
			Fail    json.RawMessage `json:"fail"`
			Message string          `json:"message"`
		}
		err := decode(r, &body)
		if err == nil {
			err = body.check()
		}
		var verdict *bool
		if err == nil {
			if len(body.Fail) == 0 {
				err = errors.New("fail is required: true, false or null")
			} else if json.Unmarshal(body.Fail, &verdict) != nil {
				err = errors.New("fail must be true, false or null")
			}
		}
		if err != nil {
			fail(w, http.StatusBadRequest, err.Error())
			return
		}
		message := body.Message
		if message == "" {
			message = "injected exec probe failure"
		}
		rt.setExecOverride(body.key(), verdict, message)
		reply(w, http.StatusOK, map[string]*bool{"fail": verdict})
	})
	mux.HandleFunc("POST /faults", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Method  string `json:"method"`
			Count   *int   `json:"count"`
			Message string `json:"message"`
		}
		err := decode(r, &body)
		if err == nil && !slices.Contains(faultMethods, body.Method) {
			err = fmt.Errorf("method must be one of %v", faultMethods)
		}
		if err == nil && (body.Count == nil || *body.Count < 0) {
			err = errors.New("count is required, >= 0")
		}
		if err != nil {
			fail(w, http.StatusBadRequest, err.Error())
			return
		}
		rt.faults.set(body.Method, *body.Count, body.Message)
		reply(w, http.StatusOK, rt.faults.snapshot())
	})
	mux.HandleFunc("GET /faults", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, http.StatusOK, rt.faults.snapshot())
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, fmt.Sprintf("no endpoint %s %s", r.Method, r.URL.Path))
	})
	return mux
}

// containerRef names a container in a request body.
type containerRef struct {
	Namespace string `json:"namespace"`
	Pod       string `json:"pod"`
	Container string `json:"container"`
}

func (c containerRef) check() error {
	if c.Namespace == "" || c.Pod == "" || c.Container == "" {
		return errors.New("namespace, pod and container are required")
	}
	return nil
}

func (c containerRef) key() containerKey { return containerKey{c.Namespace, c.Pod, c.Container} }

// decode reads one JSON object of at most 64 KiB, rejecting unknown fields.
func decode(r *http.Request, v any) error {
	d := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 64<<10))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("bad JSON body: %v", err)
	}
	return nil
}

func reply(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, code int, msg string) {
	reply(w, code, map[string]string{"error": msg})
}
