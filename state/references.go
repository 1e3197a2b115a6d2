package state

// Fingerprints calls fn with every request fingerprint f references: each
// resource's own, each of its chunks' (a chunked synthesis's outputs are
// joined from its chunks' cache entries, and an edit re-uses the chunks
// it did not change) and each one of an output an interrupted apply wrote
// (Written), and each listening check's (its transcript is kept in the
// cache under it, so a restored output brings its check) and each
// delivered output's (kept under it, so a clone need not master again),
// and, where a record's bytes live elsewhere, its CacheKey (a take put
// back, an imported file). This is what the output cache must keep for the project:
// an entry it references and loses is paid for again. A fingerprint may
// come more than once; empty ones are left out.
func (f *File) Fingerprints(fn func(fp string)) {
	call := func(fp string) {
		if fp != "" {
			fn(fp)
		}
	}
	for _, r := range f.Resources {
		call(r.Fingerprint)
		if k := r.CacheKey(); k != r.Fingerprint {
			call(k) // where its bytes live: a take's, an imported file's
		}
		for _, o := range r.Outputs {
			if o.Listen != nil {
				call(o.Listen.Fingerprint)
			}
			if o.Delivery != nil {
				call(o.Delivery.Fingerprint)
			}
		}
		for _, c := range r.Details().Chunks {
			call(c.Fingerprint)
			if c.Listen != nil {
				call(c.Listen.Fingerprint)
			}
		}
	}
	for _, w := range f.Written {
		call(w.Fingerprint)
	}
}
