package state

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// CacheKey is the one rule for where a record's bytes live in the output
// cache: the request's fingerprint for the service's outputs and a
// recording's, the take's own for a take put back, and for imported
// outputs a content key (ContentKey), never the request's fingerprint.
func TestCacheKeyByOrigin(t *testing.T) {
	fp, take := strings.Repeat("a", 64), strings.Repeat("b", 64)
	sha := strings.Repeat("c", 64)
	outs := []Output{{Path: "build/x.wav", SHA256: sha, Size: 10}}
	for _, tc := range []struct {
		origin, take, want string
	}{
		{"", "", fp},
		{OriginRecorded, "", fp},
		{OriginTake, take, take},
		{OriginImported, "", ContentKey("synthesis", outs)},
	} {
		r := (&Resource{Kind: "synthesis", Fingerprint: fp, Origin: tc.origin, Outputs: outs}).WithDetails(Details{Take: tc.take})
		if got := r.CacheKey(); got != tc.want {
			t.Errorf("origin %q: cache key %s, want %s", tc.origin, got, tc.want)
		}
	}
	imported := &Resource{Kind: "synthesis", Fingerprint: fp, Origin: OriginImported, Outputs: outs}
	if imported.CacheKey() == fp {
		t.Fatal("an imported record's bytes are keyed by the request's fingerprint")
	}
}

// A content key is the SHA-256 of its own domain ("voxform imported 1"
// and a NUL), which no request's fingerprint hashes: those hash canonical
// JSON, starting with "{" (planner's TestFingerprintPreimageIsJSON).
// It names the bytes (kind, format, SHA-256, size), not where they are.
func TestContentKeyDomain(t *testing.T) {
	sha := strings.Repeat("c", 64)
	outs := []Output{{Path: "build/x.wav", SHA256: sha, Size: 10}, {Path: "build/x.mp3", SHA256: sha, Size: 3, Delivery: &Delivery{Profile: "web"}}}
	sum := sha256.Sum256([]byte("voxform imported 1\x00synthesis\x00\t" + sha + "\t10\n"))
	if got, want := ContentKey("synthesis", outs), hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("content key %s, want %s (the documented preimage)", got, want)
	}
	moved := []Output{{Path: "elsewhere/y.wav", SHA256: sha, Size: 10}}
	if ContentKey("synthesis", moved) != ContentKey("synthesis", outs) {
		t.Error("the content key depends on the output's path")
	}
	other := []Output{{Path: "build/x.wav", SHA256: strings.Repeat("d", 64), Size: 10}}
	if ContentKey("synthesis", other) == ContentKey("synthesis", outs) || ContentKey("embedding", outs) == ContentKey("synthesis", outs) {
		t.Error("the content key does not name the bytes and their kind")
	}
}

// The fingerprints a state references (what 'voxform cache gc' keeps)
// include where each record's bytes live: a take put back keeps its
// take's entry, an imported file its content key's.
func TestFingerprintsKeepTheCacheKeys(t *testing.T) {
	fp, take := strings.Repeat("a", 64), strings.Repeat("b", 64)
	outs := []Output{{Path: "build/x.wav", SHA256: strings.Repeat("c", 64), Size: 10}}
	f := &File{Resources: map[string]*Resource{
		"synthesis.t": (&Resource{Kind: "synthesis", Fingerprint: fp, Origin: OriginTake, Outputs: outs}).WithDetails(Details{Take: take}),
		"synthesis.i": {Kind: "synthesis", Fingerprint: fp, Origin: OriginImported, Outputs: outs},
	}}
	seen := map[string]bool{}
	f.Fingerprints(func(fp string) { seen[fp] = true })
	for _, want := range []string{fp, take, ContentKey("synthesis", outs)} {
		if !seen[want] {
			t.Errorf("the state does not reference %.12s", want)
		}
	}
}
