package state

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
)

// OutputsDigest is the digest of a resource's recorded output bytes, what
// an approval and a take are of: the SHA-256 of the sorted lines
// "format\tpath\tsha256\n" of outs that are not delivered outputs
// (Delivery set: derived from the others, and made again free), or of
// every output when all are delivered ones (a package: its books are
// what there is to approve).
func OutputsDigest(outs []Output) string {
	lines := make([]string, 0, len(outs))
	for _, o := range outs {
		if o.Delivery != nil {
			continue
		}
		lines = append(lines, o.Format+"\t"+o.Path+"\t"+o.SHA256+"\n")
	}
	if len(lines) == 0 {
		for _, o := range outs {
			lines = append(lines, o.Format+"\t"+o.Path+"\t"+o.SHA256+"\n")
		}
	}
	sort.Strings(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
	}
	return hex.EncodeToString(h.Sum(nil))
}
