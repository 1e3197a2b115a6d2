package contract

import (
	"net"
	"net/url"
	"strings"
)

// IsLoopback reports whether host (a name or an address, with or without a
// port and brackets) is the loopback interface: localhost or an address in
// 127.0.0.0/8 or ::1. Only there may voxform use http:// and ws:// (the API
// key travels in a header), poll faster than the documents ask, or forget
// the job intents of a service that is gone. A name that merely starts with
// "127." (127.example.com) is not an address and not loopback.
func IsLoopback(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// IsLoopbackURL reports whether an absolute URL's host is loopback.
func IsLoopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Host != "" && IsLoopback(u.Host)
}

// SecureOrLoopback reports whether an absolute URL may carry a request:
// its scheme is secure (https or wss), or insecure on the loopback
// interface.
func SecureOrLoopback(raw, secure, insecure string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return false
	}
	return u.Scheme == secure || (u.Scheme == insecure && IsLoopback(u.Host))
}
