package main

import (
	"encoding/binary"
	"fmt"
	"net"
	"sync"
)

// ipPool hands out the addresses of an IPv4 CIDR inside 127.0.0.0/8 (all of it routes to the
// loopback interface on Linux, so any of them can be listened on and dialled without setup),
// one per sandbox, next-fit, skipping the network and broadcast addresses and those in use.
type ipPool struct {
	mu        sync.Mutex
	base      uint32
	size      uint32
	next      uint32
	bySandbox map[string]uint32
	inUse     map[uint32]bool
}

func newIPPool(cidr string) (*ipPool, error) {
	ip, n, err := net.ParseCIDR(cidr)
	if err != nil {
		return nil, err
	}
	ones, bits := n.Mask.Size()
	if ip.To4() == nil || !n.IP.IsLoopback() || ones < 8 || ones > 30 || bits != 32 {
		return nil, fmt.Errorf("pod CIDR %q: want an IPv4 range inside 127.0.0.0/8, /8 to /30", cidr)
	}
	return &ipPool{base: binary.BigEndian.Uint32(n.IP.To4()), size: 1 << (32 - ones), next: 1,
		bySandbox: map[string]uint32{}, inUse: map[uint32]bool{}}, nil
}

func (p *ipPool) allocate(sandboxID string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if a, ok := p.bySandbox[sandboxID]; ok {
		return ipString(a), nil
	}
	for i := uint32(0); i < p.size; i++ {
		off := (p.next + i) % p.size
		if off == 0 || off == p.size-1 || p.inUse[p.base+off] {
			continue
		}
		a := p.base + off
		p.inUse[a], p.bySandbox[sandboxID], p.next = true, a, off+1
		return ipString(a), nil
	}
	return "", fmt.Errorf("no free address left in the pod CIDR")
}

func (p *ipPool) release(sandboxID string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if a, ok := p.bySandbox[sandboxID]; ok {
		delete(p.inUse, a)
		delete(p.bySandbox, sandboxID)
	}
}

func ipString(a uint32) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], a)
	return net.IP(b[:]).String()
}
