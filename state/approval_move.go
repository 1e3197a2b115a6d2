package state

import "sort"

// Moved is the approval a move (outputs renamed, nothing else) records
// for after, the resource before with its outputs at new paths: a,
// re-based on after's paths, when it held of before and after records
// the same bytes (each output's format and SHA-256) at whatever paths;
// a itself otherwise (an approval that did not hold still does not).
// An approval is of bytes: renaming the files keeps it.
func (a *Approval) Moved(before, after *Resource) *Approval {
	if !a.Holds(before) || after.Status != StatusComplete || !sameBytes(before.Outputs, after.Outputs) {
		return a
	}
	moved := *a
	moved.Digest = OutputsDigest(after.Outputs)
	return &moved
}

// sameBytes reports whether x and y record the same outputs, paths
// aside: as many, of the same formats and SHA-256s.
func sameBytes(x, y []Output) bool {
	if len(x) != len(y) {
		return false
	}
	key := func(outs []Output) []string {
		k := make([]string, len(outs))
		for i, o := range outs {
			k[i] = o.Format + "\t" + o.SHA256
		}
		sort.Strings(k)
		return k
	}
	kx, ky := key(x), key(y)
	for i := range kx {
		if kx[i] != ky[i] {
			return false
		}
	}
	return true
}
