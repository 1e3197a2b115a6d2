package synth

import (
	"bytes"
	"container/list"
	"io"
	"strconv"
	"sync"
)

// Encoded mp3 and ogg outputs up to maxEncodedEntry bytes are kept, so
// that repeated requests (retries, a burst of identical prompts) do not
// start ffmpeg again; each process start costs about 0.1 s.
const (
	maxEncodedEntry = 1 << 20
	maxEncodedCache = 32 << 20
)

// encodedCache is a bounded LRU of whole encoded outputs.
type encodedCache struct {
	mu    sync.Mutex
	lru   *list.List
	byKey map[string]*list.Element
	size  int
}

type encodedEntry struct {
	key  string
	data []byte
}

func newEncodedCache() *encodedCache {
	return &encodedCache{lru: list.New(), byKey: map[string]*list.Element{}}
}

// formatKey extends a rendering key with what the container adds.
func formatKey(renderKey string, f outFormat) string {
	return renderKey + "|" + f.Container + "|" + strconv.Itoa(f.Channels) + "|" + f.Bitrate
}

func (c *encodedCache) get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*encodedEntry).data, true
}

func (c *encodedCache) put(key string, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; ok {
		return
	}
	c.byKey[key] = c.lru.PushFront(&encodedEntry{key: key, data: data})
	c.size += len(data)
	for c.size > maxEncodedCache && c.lru.Len() > 1 {
		old := c.lru.Remove(c.lru.Back()).(*encodedEntry)
		delete(c.byKey, old.key)
		c.size -= len(old.data)
	}
}

// cached serves an encoded output from the cache.
func (c *encodedCache) cached(key string) (*encoded, bool) {
	data, ok := c.get(key)
	if !ok {
		return nil, false
	}
	return &encoded{Reader: bytes.NewReader(data), size: int64(len(data)), close: func() error { return nil }}, true
}

// recording wraps a fresh encoding so that, read to its end without error
// and small enough, it is stored under key.
func (c *encodedCache) recording(key string, enc *encoded) *encoded {
	rec := &recorder{r: enc.Reader, c: c, key: key}
	return &encoded{Reader: rec, size: enc.size, close: enc.close}
}

type recorder struct {
	r    io.Reader
	c    *encodedCache
	key  string
	buf  bytes.Buffer
	over bool
}

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if !r.over {
		if r.buf.Len()+n > maxEncodedEntry {
			r.over = true
			r.buf = bytes.Buffer{}
		} else {
			r.buf.Write(p[:n])
		}
	}
	if err == io.EOF && !r.over {
		r.c.put(r.key, bytes.Clone(r.buf.Bytes()))
		r.over = true
	}
	return n, err
}
