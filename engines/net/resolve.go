package net

import (
	"fmt"
	stdnet "net"

	"golang.org/x/sys/unix"
)

// resolve returns hostname's IPv4 (or, with v6, IPv6) address; "" is the
// unspecified address a listener binds.
func resolve(host string, v6 bool) ([]byte, error) {
	if host == "" {
		if v6 {
			return stdnet.IPv6unspecified, nil
		}
		return stdnet.IPv4zero.To4(), nil
	}
	ips, err := stdnet.LookupIP(host)
	if err != nil {
		// fio's getaddrinfo failure: EINVAL unless the system said more.
		return nil, fmt.Errorf("net: getaddrinfo: host='%s': %v: %w", host, err, unix.EINVAL)
	}
	for _, ip := range ips {
		if v4 := ip.To4(); v4 != nil && !v6 {
			return v4, nil
		}
		if ip.To4() == nil && v6 {
			return ip.To16(), nil
		}
	}
	return nil, fmt.Errorf("net: getaddrinfo: host='%s' has no IPv%d address: %w", host, map[bool]int{false: 4, true: 6}[v6], unix.EINVAL)
}
