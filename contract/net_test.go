package contract_test

import (
	"testing"

	"github.com/voxform/voxform/contract"
)

// One rule for every place that asks (base URLs, input and callback URLs,
// polling, job intents): the loopback interface by address, or localhost.
func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST:8080": true, "127.0.0.1": true, "127.3.4.5:99": true,
		"[::1]:8080": true, "::1": true,
		"127.example.com": false, "127.0.0.1.nip.io": false, "10.0.0.1": false, "example.com": false, "": false,
	} {
		if got := contract.IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
	for raw, want := range map[string]bool{
		"http://localhost:8080/x": true, "http://127.example.com": false, "https://api.example.com": true,
		"ws://[::1]:9/": false, "http://10.1.1.1/": false,
	} {
		if got := contract.SecureOrLoopback(raw, "https", "http"); got != want {
			t.Errorf("SecureOrLoopback(%q) = %v, want %v", raw, got, want)
		}
	}
}
