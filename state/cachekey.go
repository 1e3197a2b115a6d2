package state

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
)

// CacheKey is where the output cache holds the bytes r records: the one
// rule by which a resource's outputs are kept (import), pushed (push)
// and put back (pull, a plan's repair of a missing output). It is
//
//   - its Fingerprint for outputs the service made and for a recording
//     (Origin "" and OriginRecorded): the entry is the answer to that
//     request;
//   - the take's fingerprint for a take put back by 'voxform use'
//     (OriginTake): the entry it was made under, while Fingerprint names
//     the request it now stands for;
//   - its ContentKey for imported outputs (OriginImported): they are no
//     request's answer, and are never kept under one.
//
// A restore takes the entry only when its files hash to the recorded
// outputs, whatever the key.
func (r *Resource) CacheKey() string {
	switch r.Origin {
	case OriginTake:
		return r.Details().Take
	case OriginImported:
		return ContentKey(r.Kind, r.Outputs)
	}
	return r.Fingerprint
}

// contentKeyDomain starts what a ContentKey hashes. A request's
// fingerprint hashes canonical JSON, which starts with "{", as do the
// listening checks'; deliveries and packages hash their own "voxform ..."
// prefixes: no fingerprint of a request, delivery, package or check is
// the hash of anything that starts so.
const contentKeyDomain = "voxform imported 1\x00"

// ContentKey is the cache key of outputs adopted by 'voxform import' for
// a resource of kind: the SHA-256 of contentKeyDomain, the kind, and each
// non-delivered output's format, SHA-256 and size (sorted; not its path,
// so a move keeps the key). It names content, not a request: an entry
// under it is never taken for the service's answer to one.
func ContentKey(kind string, outs []Output) string {
	lines := make([]string, 0, len(outs))
	for _, o := range outs {
		if o.Delivery == nil {
			lines = append(lines, fmt.Sprintf("%s\t%s\t%d\n", o.Format, o.SHA256, o.Size))
		}
	}
	sort.Strings(lines)
	h := sha256.New()
	h.Write([]byte(contentKeyDomain))
	h.Write([]byte(kind + "\x00"))
	for _, l := range lines {
		h.Write([]byte(l))
	}
	return hex.EncodeToString(h.Sum(nil))
}
