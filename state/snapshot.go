package state

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
)

// The decoded-state snapshot is a local cache in .voxform/: the state of the
// last read, in gob, keyed by the SHA-256 of voxform.state.json. Decoding it
// takes a fraction of the JSON decode of a large state, so a plan with
// nothing changed stays fast. It is only ever used for exactly the bytes it
// was made from, and its own checksum guards against a torn file; anything
// amiss falls back to the JSON.

const snapshotName = "state.snapshot"

type snapshotResource struct {
	R       resourcePlain
	Request []byte
}

type snapshotBody struct {
	Version        int
	Lineage        string
	Serial         int64
	VoxformVersion string
	Resources      map[string]snapshotResource
	JobIntents     []JobIntent
	Written        []Written
}

func (l *Local) snapshotPath() string { return filepath.Join(l.Dir, CacheDirName, snapshotName) }

// loadSnapshot returns the state whose file content has SHA-256 sum, if the
// snapshot holds it.
func (l *Local) loadSnapshot(sum [32]byte) (*File, bool) {
	data, err := os.ReadFile(l.snapshotPath())
	if err != nil || len(data) < 64 || !bytes.Equal(data[:32], sum[:]) {
		return nil, false
	}
	body := data[64:]
	if bs := sha256.Sum256(body); !bytes.Equal(bs[:], data[32:64]) {
		return nil, false
	}
	var sb snapshotBody
	if gob.NewDecoder(bytes.NewReader(body)).Decode(&sb) != nil || sb.Version != FormatVersion {
		return nil, false
	}
	f := &File{Version: sb.Version, Lineage: sb.Lineage, Serial: sb.Serial, VoxformVersion: sb.VoxformVersion,
		Resources: make(map[string]*Resource, len(sb.Resources)), JobIntents: sb.JobIntents, Written: sb.Written}
	for a, sr := range sb.Resources {
		r := Resource(sr.R)
		r.rawRequest = sr.Request
		f.Resources[a] = &r
	}
	if f.checkPaths() != nil { // a snapshot is never trusted further than the file
		return nil, false
	}
	return f, true
}

// saveSnapshot stores f, decoded from a file with SHA-256 sum. Failures are
// ignored: it is a cache. It is not fsynced; a torn snapshot fails its
// checksum and is ignored.
func (l *Local) saveSnapshot(sum [32]byte, f *File) {
	sb := snapshotBody{Version: f.Version, Lineage: f.Lineage, Serial: f.Serial, VoxformVersion: f.VoxformVersion,
		Resources: make(map[string]snapshotResource, len(f.Resources)), JobIntents: f.JobIntents, Written: f.Written}
	for a, r := range f.Resources {
		raw := r.rawRequest
		if r.Request != nil {
			if b, err := marshalNoEscape(r.Request); err == nil {
				raw = b
			}
		}
		var compact bytes.Buffer
		if json.Compact(&compact, raw) == nil {
			raw = compact.Bytes()
		}
		plain := resourcePlain(*r)
		plain.Request = nil // kept as raw JSON
		sb.Resources[a] = snapshotResource{R: plain, Request: raw}
	}
	var body bytes.Buffer
	if gob.NewEncoder(&body).Encode(&sb) != nil {
		return
	}
	dir := filepath.Dir(l.snapshotPath())
	if ensureCacheDir(dir) != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, "."+snapshotName+".tmp-*")
	if err != nil {
		return
	}
	bs := sha256.Sum256(body.Bytes())
	w := bufio.NewWriter(tmp)
	w.Write(sum[:])
	w.Write(bs[:])
	_, werr := io.Copy(w, &body)
	if werr != nil || w.Flush() != nil || tmp.Close() != nil || os.Rename(tmp.Name(), l.snapshotPath()) != nil {
		os.Remove(tmp.Name())
	}
}

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }
