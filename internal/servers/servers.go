// Package servers holds what the test servers of internal/miniotest and
// internal/pgtest share: a free loopback port, random names, and a buffer
// for a server's output.
package servers

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"net"
	"sync"
)

// FreeAddr is a loopback address (127.0.0.1:PORT) with a port free a
// moment ago.
func FreeAddr() (*net.TCPAddr, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr), nil
}

// RandomHex is n random bytes in hex.
func RandomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Log collects a server's output, for a failure message; it is safe for
// concurrent use.
type Log struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
